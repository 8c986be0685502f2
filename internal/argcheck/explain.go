package argcheck

import (
	"regexp"
	"strconv"
	"strings"
)

// explainValidation rewrites a jsonschema-go validation error, which names
// schema locations and keywords ("validating /properties/limit: maximum: 60
// is greater than 50.000000"), into the field and the rule a model can act
// on (`"limit": must be <= 50`).
func explainValidation(err error) string {
	msg := err.Error()
	parts := strings.Split(msg, ": ")
	var fields []string
	prev := ""
	rest := parts
	for len(rest) > 0 {
		p := rest[0]
		if p == "validating root" {
			rest = rest[1:]
			continue
		}
		ptr, ok := strings.CutPrefix(p, "validating ")
		if !ok || !strings.HasPrefix(ptr, "/") {
			break
		}
		rel := ptr
		if prev != "" && strings.HasPrefix(ptr, prev+"/") {
			rel = ptr[len(prev):]
		}
		fields = append(fields, pointerFields(rel)...)
		prev = ptr
		rest = rest[1:]
	}
	detail := strings.Join(rest, ": ")
	field := joinFields(fields)
	keyword, body, _ := strings.Cut(detail, ": ")
	rule := ""
	switch keyword {
	case "required":
		if names := quotedList(body); len(names) > 0 {
			return prefixField(field, names[0]) + ": is required"
		}
	case "maximum":
		rule = "must be <= " + lastNumber(body)
	case "minimum":
		rule = "must be >= " + lastNumber(body)
	case "exclusiveMaximum":
		rule = "must be < " + lastNumber(body)
	case "exclusiveMinimum":
		rule = "must be > " + lastNumber(body)
	case "multipleOf":
		rule = "must be a multiple of " + lastNumber(body)
	case "minLength":
		rule = "must be at least " + lastNumber(body) + " characters long"
	case "maxLength":
		rule = "must be at most " + lastNumber(body) + " characters long"
	case "minItems":
		rule = "must have at least " + lastNumber(body) + " items"
	case "maxItems":
		rule = "must have at most " + lastNumber(body) + " items"
	case "pattern":
		if i := strings.Index(body, "regular expression "); i >= 0 {
			rule = "must match the pattern " + body[i+len("regular expression "):]
		}
	case "type":
		if i := strings.LastIndex(body, "want "); i >= 0 {
			rule = "must be of type " + strings.Trim(body[i+len("want "):], `"`)
			if j := strings.Index(body, " has type "); j >= 0 {
				got, _, _ := strings.Cut(body[j+len(" has type "):], ",")
				rule += " (got " + strings.Trim(got, `"`) + ")"
			}
		}
	case "enum":
		if i := strings.Index(body, "any of: "); i >= 0 {
			rule = "must be one of " + body[i+len("any of: "):]
		}
	case "const":
		if i := strings.Index(body, "does not equal "); i >= 0 {
			rule = "must equal " + body[i+len("does not equal "):]
		}
	case "uniqueItems":
		rule = "must not repeat items (" + body + ")"
	}
	if rule == "" && strings.HasPrefix(detail, "unexpected additional properties ") {
		if names := quotedList(strings.TrimPrefix(detail, "unexpected additional properties ")); len(names) > 0 {
			return prefixField(field, names[0]) + ": unknown field; valid fields are listed in the tool's input schema"
		}
	}
	if rule == "" {
		rule = detail
	}
	if field == "" {
		return rule
	}
	return strconv.Quote(field) + ": " + rule
}

// pointerFields turns a schema pointer (relative to its parent) into the
// field names it crosses: /properties/a/items → a, [].
func pointerFields(ptr string) []string {
	segs := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	var out []string
	for i := 0; i < len(segs); i++ {
		switch segs[i] {
		case "properties", "patternProperties":
			if i+1 < len(segs) {
				out = append(out, unescapePointer(segs[i+1]))
				i++
			}
		case "$defs", "definitions", "dependentSchemas":
			i++
		case "items", "prefixItems", "additionalItems":
			out = append(out, "[]")
		case "additionalProperties":
			out = append(out, "{}")
		}
	}
	return out
}

func unescapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}

func joinFields(fs []string) string {
	var b strings.Builder
	for _, f := range fs {
		if f == "[]" || f == "{}" {
			b.WriteString(f)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(f)
	}
	return b.String()
}

func prefixField(parent, name string) string {
	if parent == "" {
		return strconv.Quote(name)
	}
	return strconv.Quote(parent + "." + name)
}

var numberRE = regexp.MustCompile(`-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?`)

// lastNumber returns the last number of s, printed without trailing zeros.
func lastNumber(s string) string {
	all := numberRE.FindAllString(s, -1)
	if len(all) == 0 {
		return s
	}
	n := all[len(all)-1]
	if f, err := strconv.ParseFloat(n, 64); err == nil {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return n
}

// quotedList parses a Go-quoted list such as ["a" "b"] into its strings.
func quotedList(s string) []string {
	if i := strings.Index(s, "["); i >= 0 {
		s = s[i+1:]
	}
	s = strings.TrimSuffix(strings.TrimSpace(s), "]")
	var out []string
	for len(s) > 0 {
		s = strings.TrimLeft(s, " ,")
		if s == "" || s[0] != '"' {
			break
		}
		q, err := strconv.QuotedPrefix(s)
		if err != nil {
			break
		}
		v, _ := strconv.Unquote(q)
		out = append(out, v)
		s = s[len(q):]
	}
	return out
}
