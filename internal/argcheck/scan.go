package argcheck

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"
)

// scanner checks one JSON text against fast nodes as it reads it. Every
// method returns false both for arguments the schema refuses and for
// anything it is not sure of; the caller then asks the validator.
type scanner struct {
	b     []byte
	i     int
	depth int

	// Set by the top-level object's check, for the defaults.
	members   int    // members sent
	seen      uint64 // the root's properties sent
	container bool   // a member's value is an object or array
}

// check reads one value (after optional whitespace) and reports whether
// it passes n, nil standing for the empty schema.
func (sc *scanner) check(n *fastNode) bool {
	sc.depth++
	defer func() { sc.depth-- }()
	if sc.depth > fastMaxDepth {
		return false
	}
	sc.ws()
	if n == nil {
		return sc.own(&emptyNode, false)
	}
	start := sc.i
	if n.ref != nil {
		if !sc.check(n.ref) {
			return false
		}
		if !n.own && n.anyOf == nil {
			return true
		}
		sc.i = start
	}
	if n.own && !sc.own(n, false) {
		return false
	}
	if n.anyOf != nil {
		got, ok := sc.fitKind(start)
		if !ok {
			return false
		}
		for j, b := range n.anyOf {
			sc.i = start
			if n.anyOfFit[j].fits(got) && sc.check(b) {
				return true
			}
		}
		return false
	}
	return true
}

var emptyNode = fastNode{own: true, minLen: -1, maxLen: -1, minItems: -1, maxItems: -1, minProps: -1, maxProps: -1}

// end reports whether only whitespace follows.
func (sc *scanner) end() bool {
	sc.ws()
	return sc.i == len(sc.b)
}

func (sc *scanner) ws() {
	for sc.i < len(sc.b) {
		switch sc.b[sc.i] {
		case ' ', '\t', '\n', '\r':
			sc.i++
		default:
			return
		}
	}
}

// own checks the value at sc.i against n's own keywords. top marks the
// arguments object itself.
func (sc *scanner) own(n *fastNode, top bool) bool {
	if sc.i >= len(sc.b) {
		return false
	}
	switch c := sc.b[sc.i]; {
	case c == '{':
		if n.types != 0 && n.types&tObject == 0 || n.hasEnm || n.cnst != nil {
			return false
		}
		return sc.object(n, top)
	case c == '[':
		if n.types != 0 && n.types&tArray == 0 || n.hasEnm || n.cnst != nil {
			return false
		}
		return sc.array(n)
	case c == '"':
		if n.types != 0 && n.types&tString == 0 {
			return false
		}
		start := sc.i
		simple, ok := sc.str()
		if !ok {
			return false
		}
		if !n.needStr {
			return true
		}
		if simple {
			return stringOK(n, sc.b[start+1:sc.i-1], "")
		}
		s, ok := decodeString(sc.b[start:sc.i])
		return ok && stringOK(n, nil, s)
	case c == 't':
		return sc.literal("true") && sc.scalarOK(n, scalar{kind: tBoolean, b: true})
	case c == 'f':
		return sc.literal("false") && sc.scalarOK(n, scalar{kind: tBoolean})
	case c == 'n':
		return sc.literal("null") && sc.scalarOK(n, scalar{kind: tNull})
	case c == '-' || c >= '0' && c <= '9':
		start := sc.i
		simple, ok := sc.number()
		if !ok {
			return false
		}
		if !n.needNum {
			// In range (number checked), and any number will do.
			return n.types == 0 || n.types&tNumber != 0
		}
		f, ok := parseNumber(sc.b[start:sc.i], simple)
		if !ok {
			return false // out of float64's range: the decoder refuses it
		}
		return numberOK(n, f)
	}
	return false
}

// scalarOK checks a boolean or null.
func (sc *scanner) scalarOK(n *fastNode, v scalar) bool {
	if n.types != 0 && n.types&v.kind == 0 {
		return false
	}
	if n.hasEnm && !inEnum(n.enum, v) {
		return false
	}
	return n.cnst == nil || *n.cnst == v
}

func (sc *scanner) literal(lit string) bool {
	if len(sc.b)-sc.i < len(lit) || string(sc.b[sc.i:sc.i+len(lit)]) != lit {
		return false
	}
	sc.i += len(lit)
	return true
}

// str reads a string, reporting whether its text is its bytes (ASCII, no
// escapes) and whether it is well formed as encoding/json reads strings.
func (sc *scanner) str() (simple, ok bool) {
	sc.i++ // the opening quote
	simple = true
	for sc.i < len(sc.b) {
		c := sc.b[sc.i]
		switch {
		case c == '"':
			sc.i++
			return simple, true
		case c == '\\':
			simple = false
			if sc.i+1 >= len(sc.b) {
				return false, false
			}
			switch sc.b[sc.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				sc.i += 2
			case 'u':
				if sc.i+6 > len(sc.b) {
					return false, false
				}
				for _, h := range sc.b[sc.i+2 : sc.i+6] {
					if !isHex(h) {
						return false, false
					}
				}
				sc.i += 6
			default:
				return false, false
			}
		case c < 0x20:
			return false, false
		case c >= utf8.RuneSelf:
			simple = false
			sc.i++
		default:
			sc.i++
		}
	}
	return false, false
}

// decodeString decodes a string with escapes or non-ASCII bytes as
// encoding/json does (invalid UTF-8 becomes U+FFFD).
func decodeString(tok []byte) (string, bool) {
	var s string
	err := json.Unmarshal(tok, &s)
	return s, err == nil
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// number reads a number, reporting whether it is a plain integer of at
// most 15 digits (exact in a float64, and in range).
func (sc *scanner) number() (simple, ok bool) {
	b, i := sc.b, sc.i
	if b[i] == '-' {
		i++
	}
	digits := i
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return false, false
	}
	simple = i-digits <= 15
	if i < len(b) && b[i] == '.' {
		simple = false
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return false, false
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		simple = false
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return false, false
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	sc.i = i
	if !simple && !inRange(b[digits:i]) {
		return false, false
	}
	return simple, true
}

// inRange reports whether a number's digits (sign dropped) certainly
// parse as a float64: without an exponent, fewer than 300 digits before
// the point. Others are parsed.
func inRange(tok []byte) bool {
	if bytes.ContainsAny(tok, "eE") {
		_, err := strconv.ParseFloat(string(tok), 64)
		return err == nil
	}
	if i := bytes.IndexByte(tok, '.'); i >= 0 {
		tok = tok[:i]
	}
	return len(tok) < 300
}

// parseNumber parses a number as encoding/json does into an any.
func parseNumber(tok []byte, simple bool) (float64, bool) {
	if simple {
		neg := tok[0] == '-'
		if neg {
			tok = tok[1:]
		}
		var v int64
		for _, c := range tok {
			v = v*10 + int64(c-'0')
		}
		if neg {
			return -float64(v), true
		}
		return float64(v), true
	}
	f, err := strconv.ParseFloat(string(tok), 64)
	return f, err == nil
}

// numberOK checks a number as the validator does: its type by whether it
// has a fraction, the bounds compared exactly (two float64s compare as
// their rationals do).
func numberOK(n *fastNode, f float64) bool {
	kind := tNumber
	if _, frac := math.Modf(f); frac == 0 {
		kind = tInteger
	}
	if n.types != 0 && n.types&kind == 0 && !(kind == tInteger && n.types&tNumber != 0) {
		return false
	}
	if n.hasEnm && !inEnum(n.enum, scalar{kind: tNumber, num: f}) {
		return false
	}
	if n.cnst != nil && *n.cnst != (scalar{kind: tNumber, num: f}) {
		return false
	}
	if n.num != 0 {
		if n.num&nMultipleOf != 0 {
			if _, frac := math.Modf(f / n.mult); frac != 0 {
				return false
			}
		}
		if n.num&nMinimum != 0 && f < n.minimum ||
			n.num&nMaximum != 0 && f > n.maximum ||
			n.num&nExclMin != 0 && f <= n.exclMin ||
			n.num&nExclMax != 0 && f >= n.exclMax {
			return false
		}
	}
	return true
}

func inEnum(enum []scalar, v scalar) bool {
	for _, e := range enum {
		if e == v {
			return true
		}
	}
	return false
}

// stringOK checks a string given as its bytes (raw, when they are its
// text) or decoded (s).
func stringOK(n *fastNode, raw []byte, s string) bool {
	if n.types != 0 && n.types&tString == 0 {
		return false
	}
	if n.hasEnm || n.cnst != nil {
		found := false
		for _, e := range n.enum {
			if e.kind == tString && (raw != nil && string(raw) == e.str || raw == nil && s == e.str) {
				found = true
				break
			}
		}
		if n.hasEnm && !found {
			return false
		}
		if c := n.cnst; c != nil && (c.kind != tString || (raw != nil && string(raw) != c.str) || (raw == nil && s != c.str)) {
			return false
		}
	}
	if n.minLen >= 0 || n.maxLen >= 0 {
		count := len(raw)
		if raw == nil {
			count = utf8.RuneCountInString(s)
		}
		if n.minLen >= 0 && count < n.minLen || n.maxLen >= 0 && count > n.maxLen {
			return false
		}
	}
	if n.pattern != nil {
		if raw != nil && !n.pattern.Match(raw) || raw == nil && !n.pattern.MatchString(s) {
			return false
		}
	}
	if n.format != nil {
		if raw != nil {
			s = string(raw)
		}
		if !n.format.valid(s) {
			return false
		}
	}
	return true
}

func (sc *scanner) array(n *fastNode) bool {
	start := sc.i
	sc.i++ // [
	count := 0
	sc.ws()
	if sc.i < len(sc.b) && sc.b[sc.i] == ']' {
		sc.i++
	} else {
		for {
			if !sc.check(n.items) {
				return false
			}
			count++
			sc.ws()
			if sc.i >= len(sc.b) {
				return false
			}
			if sc.b[sc.i] == ']' {
				sc.i++
				break
			}
			if sc.b[sc.i] != ',' {
				return false
			}
			sc.i++
		}
	}
	if n.minItems >= 0 && count < n.minItems || n.maxItems >= 0 && count > n.maxItems {
		return false
	}
	return !n.unique || count < 2 || uniqueScalars(sc.b[start:sc.i])
}

// uniqueScalars reports whether the items of an array (already scanned,
// so well formed) are strings, numbers, booleans and nulls that are all
// different as the validator compares them: strings by their decoded
// text, numbers by value (1 and 1.0 are equal). An array holding an
// array or object is left to the validator.
func uniqueScalars(b []byte) bool {
	sc := scanner{b: b, i: 1}
	seen := make(map[scalar]struct{})
	for {
		sc.ws()
		if sc.i >= len(sc.b) || sc.b[sc.i] == ']' {
			return true
		}
		var v scalar
		switch c := sc.b[sc.i]; {
		case c == '"':
			start := sc.i
			simple, ok := sc.str()
			if !ok {
				return false
			}
			v.kind = tString
			if simple {
				v.str = string(sc.b[start+1 : sc.i-1])
			} else if v.str, ok = decodeString(sc.b[start:sc.i]); !ok {
				return false
			}
		case c == 't' || c == 'f':
			v.kind, v.b = tBoolean, c == 't'
			sc.i += 4
			if !v.b {
				sc.i++
			}
		case c == 'n':
			v.kind = tNull
			sc.i += 4
		case c == '-' || c >= '0' && c <= '9':
			start := sc.i
			simple, ok := sc.number()
			if !ok {
				return false
			}
			v.kind = tNumber
			if v.num, ok = parseNumber(sc.b[start:sc.i], simple); !ok {
				return false
			}
		default:
			return false
		}
		if _, dup := seen[v]; dup {
			return false
		}
		seen[v] = struct{}{}
		sc.ws()
		if sc.i < len(sc.b) && sc.b[sc.i] == ',' {
			sc.i++
		}
	}
}

func (sc *scanner) object(n *fastNode, top bool) bool {
	sc.i++ // {
	var seen uint64
	members := 0
	var keys []string // for counting members when a key may repeat
	sc.ws()
	if sc.i < len(sc.b) && sc.b[sc.i] == '}' {
		sc.i++
	} else {
		for {
			if sc.i >= len(sc.b) || sc.b[sc.i] != '"' {
				return false
			}
			start := sc.i
			simple, ok := sc.str()
			if !ok {
				return false
			}
			var key string
			var rawKey []byte
			if simple {
				rawKey = sc.b[start+1 : sc.i-1]
			} else if key, ok = decodeString(sc.b[start:sc.i]); !ok {
				return false
			}
			sc.ws()
			if sc.i >= len(sc.b) || sc.b[sc.i] != ':' {
				return false
			}
			sc.i++
			sc.ws()
			if top && sc.i < len(sc.b) && (sc.b[sc.i] == '{' || sc.b[sc.i] == '[') {
				sc.container = true
			}
			if n.objectChecked {
				idx := -1
				for j := range n.props {
					if rawKey != nil && string(rawKey) == n.props[j].name || rawKey == nil && key == n.props[j].name {
						idx = j
						break
					}
				}
				switch {
				case idx >= 0:
					seen |= 1 << idx
					if !sc.check(n.props[idx].node) {
						return false
					}
				case n.addl == addlFalse:
					return false
				case n.addl == addlSchema:
					if !sc.check(n.addlNode) {
						return false
					}
				default:
					if !sc.check(nil) {
						return false
					}
				}
				if n.propNames != nil && !stringOK(n.propNames, rawKey, key) {
					return false
				}
				if n.countProps {
					if rawKey != nil {
						key = string(rawKey)
					}
					for _, k := range keys {
						if k == key {
							return false // a repeated key: the validator counts
						}
					}
					keys = append(keys, key)
				}
			} else if !sc.check(nil) {
				return false
			}
			members++
			sc.ws()
			if sc.i >= len(sc.b) {
				return false
			}
			if sc.b[sc.i] == '}' {
				sc.i++
				break
			}
			if sc.b[sc.i] != ',' {
				return false
			}
			sc.i++
			sc.ws()
		}
	}
	if top {
		sc.members, sc.seen = members, seen
		return true // the caller adds the defaults and checks the rest
	}
	return objectRest(n, seen, members)
}

// objectRest checks what an object's members say together: required
// properties and the number of members.
func objectRest(n *fastNode, seen uint64, members int) bool {
	if n.required&^seen != 0 {
		return false
	}
	return (n.minProps < 0 || members >= n.minProps) && (n.maxProps < 0 || members <= n.maxProps)
}

// fitKind is the JSON type formats.go's typeFits gives the value at start.
func (sc *scanner) fitKind(start int) (string, bool) {
	if start >= len(sc.b) {
		return "", false
	}
	switch c := sc.b[start]; {
	case c == '{':
		return "object", true
	case c == '[':
		return "array", true
	case c == '"':
		return "string", true
	case c == 't' || c == 'f':
		return "boolean", true
	case c == 'n':
		return "null", true
	default:
		save := sc.i
		sc.i = start
		simple, ok := sc.number()
		tok := sc.b[start:sc.i]
		sc.i = save
		if !ok {
			return "", false
		}
		v, ok := parseNumber(tok, simple)
		if !ok {
			return "", false
		}
		if v == float64(int64(v)) {
			return "integer", true
		}
		return "number", true
	}
}

func (f fitTypes) fits(got string) bool {
	if f.all {
		return true
	}
	for _, t := range f.types {
		if t == got || (t == "number" && got == "integer") {
			return true
		}
	}
	return false
}

// checkFast checks args with the fast check; ok is false when the
// validator must decide.
func (s *Schema) checkFast(args json.RawMessage) (out json.RawMessage, ok bool) {
	fs := s.fast
	trimmed := bytes.TrimSpace(args)
	body := trimmed
	if len(body) == 0 || bytes.Equal(body, []byte("null")) {
		body = []byte("{}")
	}
	if body[0] != '{' {
		return nil, false
	}
	sc := scanner{b: body}
	if !sc.own(fs.root, true) || !sc.end() {
		return nil, false
	}
	seen, members := sc.seen, sc.members
	var added uint64
	if s.defaults {
		if sc.container {
			return nil, false // nested defaults: the validator's merge
		}
		for _, d := range fs.defaults {
			if seen&(1<<d.prop) != 0 {
				continue
			}
			if !d.ok {
				return nil, false
			}
			added |= 1 << d.prop
		}
	}
	total := members
	if fs.root.countProps {
		total += bitCount(added)
	}
	if !objectRest(fs.root, seen|added, total) {
		return nil, false
	}
	if !s.defaults {
		if members == 0 {
			return json.RawMessage("{}"), true
		}
		return args, true
	}
	if added == 0 {
		if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
			return json.RawMessage("{}"), true
		}
		return trimmed, true
	}
	// As appendDefaults writes them.
	size := len(trimmed) + 2
	for _, d := range fs.defaults {
		if added&(1<<d.prop) != 0 {
			size += len(d.member) + 1
		}
	}
	out = make([]byte, 0, size)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		out = append(out, '{')
	} else {
		out = append(out, trimmed[:len(trimmed)-1]...)
	}
	first := true
	for _, d := range fs.defaults {
		if added&(1<<d.prop) == 0 {
			continue
		}
		if !first || members > 0 {
			out = append(out, ',')
		}
		first = false
		out = append(out, d.member...)
	}
	return append(out, '}'), true
}

func bitCount(x uint64) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}
