package wire

import (
	"bytes"
	"strings"
)

// IntegralNumbers returns src with every number literal that has an
// integral value but is written with a fraction or an exponent (50.0,
// 5e1, 1.5E2) rewritten as a plain integer, and whether it changed any.
// Values beyond 40 digits are left alone: no Go integer holds them.
func IntegralNumbers(src []byte) ([]byte, bool) {
	out := RewriteNumbers(src)
	return out, !bytes.Equal(out, src)
}

// RewriteNumbers returns src with its integral number literals rewritten.
func RewriteNumbers(src []byte) []byte {
	out := make([]byte, 0, len(src))
	inString, escaped := false, false
	for i := 0; i < len(src); i++ {
		c := src[i]
		if inString {
			out = append(out, c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		if c == '"' {
			inString = true
			out = append(out, c)
			continue
		}
		if c != '-' && (c < '0' || c > '9') {
			out = append(out, c)
			continue
		}
		j := i
		for j < len(src) && strings.IndexByte("+-0123456789.eE", src[j]) >= 0 {
			j++
		}
		if lit, ok := IntegerLiteral(string(src[i:j])); ok {
			out = append(out, lit...)
		} else {
			out = append(out, src[i:j]...)
		}
		i = j - 1
	}
	return out
}

// IntegerLiteral returns the plain integer form of a JSON number literal
// with a fraction or exponent whose value is integral.
func IntegerLiteral(lit string) (string, bool) {
	if !strings.ContainsAny(lit, ".eE") {
		return "", false
	}
	neg := strings.HasPrefix(lit, "-")
	lit = strings.TrimPrefix(lit, "-")
	mant, exp := lit, 0
	if k := strings.IndexAny(lit, "eE"); k >= 0 {
		mant = lit[:k]
		e := lit[k+1:]
		sign := 1
		if strings.HasPrefix(e, "+") || strings.HasPrefix(e, "-") {
			if e[0] == '-' {
				sign = -1
			}
			e = e[1:]
		}
		if e == "" || len(e) > 3 {
			return "", false
		}
		for _, d := range e {
			if d < '0' || d > '9' {
				return "", false
			}
			exp = exp*10 + int(d-'0')
		}
		exp *= sign
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	if intPart == "" || strings.ContainsAny(intPart+frac, ".eE+-") {
		return "", false
	}
	digits := intPart + frac
	point := len(intPart) + exp
	if point < 0 {
		point = 0
	}
	if point < len(digits) && strings.Trim(digits[point:], "0") != "" {
		return "", false // a fraction remains
	}
	if point > 40 {
		return "", false
	}
	var whole string
	if point <= len(digits) {
		whole = digits[:point]
	} else {
		whole = digits + strings.Repeat("0", point-len(digits))
	}
	whole = strings.TrimLeft(whole, "0")
	if whole == "" {
		return "0", true
	}
	if neg {
		whole = "-" + whole
	}
	return whole, true
}
