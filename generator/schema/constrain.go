package schema

import (
	"encoding/json"
	"fmt"
	"go/token"
	"go/types"
	"math"
	"reflect"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// options parses the mcpgen tag of a field and reports syntax errors,
// unknown constraints and duplicates.
func (bd *build) options(f jfield, fc *fctx) []option {
	tag, ok := reflect.StructTag(f.tag).Lookup("mcpgen")
	if !ok {
		return nil
	}
	opts, errs := parseTag(tag)
	for _, e := range errs {
		pos := bd.tagPos(fc, e.Off)
		switch e.Kind {
		case "empty":
			bd.errorf(pos, hintEmptyOption, "schema-tag-syntax", msgEmptyOption, fc.name)
		case "unterminated":
			bd.errorf(pos, hintUnterminated, "schema-tag-syntax", msgUnterminated, fc.name)
		case "afterQuote":
			bd.errorf(pos, hintAfterQuote, "schema-tag-syntax", msgAfterQuote, e.Text, fc.name)
		}
	}
	names := constraintNames()
	seen := map[string]bool{}
	var out []option
	for i, o := range opts {
		if _, ok := constraints[o.Key]; !ok {
			hint := fmt.Sprintf(hintOptions, strings.Join(names, ", "))
			if i > 0 {
				prev := opts[i-1]
				if c := constraints[prev.Key]; prev.HasValue && !prev.Quoted && (c.value == valText || c.value == valTyped || c.value == valTypedList) {
					hint = fmt.Sprintf(hintQuoteValue, o.Key, prev.Key, prev.Key)
				}
			}
			bd.errorf(bd.tagPos(fc, o.Off), hint, "schema-unknown-constraint", msgUnknownOption, o.Key, fc.name, didYouMean(o.Key, constraintKeys()))
			continue
		}
		canon := o.Key
		if c, ok := canonical[canon]; ok {
			canon = c
		}
		if seen[canon] {
			bd.errorf(bd.tagPos(fc, o.Off), hintDuplicate, "schema-duplicate-constraint", msgDuplicate, o.Key, fc.name)
			continue
		}
		seen[canon] = true
		o.Key = canon
		out = append(out, o)
	}
	// type= first: the other constraints depend on the JSON type it sets.
	slices.SortStableFunc(out, func(a, b option) int {
		switch {
		case a.Key == "type" && b.Key != "type":
			return -1
		case b.Key == "type" && a.Key != "type":
			return 1
		}
		return 0
	})
	return out
}

// tagPos is the source position of byte off of the field's mcpgen tag value.
// It is exact for raw-string tags without backslashes, and the start of the
// tag otherwise.
func (bd *build) tagPos(fc *fctx, off int) token.Pos {
	lit := fc.src.tagLit
	if lit == "" || !fc.src.tagPos.IsValid() {
		return fc.pos
	}
	if lit[0] != '`' {
		return fc.src.tagPos
	}
	i := 0
	for {
		j := strings.Index(lit[i:], `mcpgen:"`)
		if j < 0 {
			return fc.src.tagPos
		}
		i += j
		if i == 1 || lit[i-1] == ' ' || lit[i-1] == '\t' {
			break
		}
		i++
	}
	start := i + len(`mcpgen:"`)
	end := start
	for end < len(lit) && lit[end] != '"' {
		if lit[end] == '\\' {
			return fc.src.tagPos + token.Pos(i)
		}
		end++
	}
	if off > end-start {
		off = end - start
	}
	return fc.src.tagPos + token.Pos(start+off)
}

// jsonKind names the JSON type of a schema for messages.
func jsonKind(n *node) string {
	switch {
	case n.ref != "":
		return "object"
	case len(n.types) == 0:
		return "any value"
	}
	return strings.Join(n.types, " or ")
}

func fits(n *node, a applies) bool {
	t := n.jsonType()
	switch a {
	case toAny:
		return true
	case toNumber:
		return t == "integer" || t == "number"
	case toString:
		return t == "string"
	case toArray:
		return t == "array"
	case toObject:
		return t == "object"
	case toScalar:
		return t == "string" || t == "integer" || t == "number" || t == "boolean"
	case toUntyped:
		return n.untyped()
	case toHeader:
		return t == "string" || t == "integer" || t == "boolean"
	}
	return false
}

// target finds the schema a constraint applies to: the field's own, or, when
// it does not fit an array or map, that of its elements.
func target(n *node, a applies) *node {
	for n != nil {
		if fits(n, a) {
			return n
		}
		switch n.jsonType() {
		case "array":
			n = n.items
		case "object":
			n = n.addProps
		default:
			return nil
		}
	}
	return nil
}

// apply applies the constraints of a field's tag to its schema and reports
// whether it has a default.
func (bd *build) apply(fn *node, opts []option, fc *fctx) (hasDefault bool) {
	type bound struct {
		key, text string
		v         float64
	}
	bounds := map[*node]map[string]bound{}
	for _, o := range opts {
		c := constraints[o.Key]
		pos := bd.tagPos(fc, o.Off)
		vpos := bd.tagPos(fc, o.ValOff)
		if !o.HasValue || o.Value == "" {
			if c.value != valFlag && !(o.HasValue && (c.value == valTyped || c.value == valTypedList)) {
				bd.errorf(pos, fmt.Sprintf(hintMissingValue, o.Key), "schema-missing-value", msgMissingValue, o.Key, fc.name)
				continue
			}
		}
		flag := true
		if c.value == valFlag && o.HasValue {
			switch o.Value {
			case "true":
			case "false":
				flag = false
			default:
				bd.errorf(vpos, fmt.Sprintf(hintFlagValue, o.Key, o.Key), "schema-bad-value", msgFlagValue, o.Key, fc.name, o.Value)
				continue
			}
		}
		t := target(fn, c.applies)
		if t == nil && o.Key == "type" {
			bd.errorf(pos, fmt.Sprintf(hintTypeNotAny, o.Value), "schema-not-applicable", msgTypeNotAny,
				o.Value, fc.name, bd.qualify(fn.gtOr()), jsonKind(fn))
			continue
		}
		if t == nil {
			hint := fmt.Sprintf(hintNotApplicable, o.Key, c.applies)
			if alt := sizeAlternative(o.Key, fn); alt != "" {
				hint = fmt.Sprintf(hintUseSize, o.Key, alt, jsonKind(fn))
			}
			bd.errorf(pos, hint, "schema-not-applicable", msgNotApplicable,
				o.Key, fc.name, bd.qualify(fn.gtOr()), jsonKind(fn))
			continue
		}
		switch o.Key {
		case "min", "max", "exclusiveMin", "exclusiveMax", "multipleOf":
			text, v, ok := jsonNumber(o.Value)
			if !ok {
				bd.errorf(vpos, fmt.Sprintf(hintBadNumber, o.Key, o.Key), "schema-bad-value", msgBadNumber, o.Key, o.Value, fc.name)
				continue
			}
			if o.Key == "multipleOf" {
				if v <= 0 {
					bd.errorf(vpos, fmt.Sprintf(hintBadNumber, o.Key, o.Key), "schema-bad-value", msgBadMultipleOf, o.Value, fc.name)
					continue
				}
				t.multipleOf = text
				continue
			}
			if v < 0 && unsigned(t.gt) && (o.Key == "max" || o.Key == "exclusiveMax") {
				bd.errorf(vpos, hintNegativeUint, "schema-bad-value", msgNegativeUint, o.Key, text, fc.name)
				continue
			}
			if bounds[t] == nil {
				bounds[t] = map[string]bound{}
			}
			bounds[t][o.Key] = bound{o.Key, text, v}
			switch o.Key {
			case "min":
				if v < 0 && unsigned(t.gt) {
					bd.errorf(vpos, hintNegativeUint, "schema-bad-value", msgNegativeUint, o.Key, text, fc.name)
					continue
				}
				t.minimum = text
			case "max":
				t.maximum = text
			case "exclusiveMin":
				t.exclMin = text
				if unsigned(t.gt) && t.minimum == "0" && v >= 0 {
					t.minimum = ""
				}
			case "exclusiveMax":
				t.exclMax = text
			}
		case "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties":
			v, err := strconv.Atoi(o.Value)
			if err != nil || v < 0 {
				bd.errorf(vpos, fmt.Sprintf(hintBadCount, o.Key), "schema-bad-value", msgBadCount, o.Key, o.Value, fc.name)
				continue
			}
			if bounds[t] == nil {
				bounds[t] = map[string]bound{}
			}
			bounds[t][o.Key] = bound{o.Key, o.Value, float64(v)}
			switch o.Key {
			case "minLength":
				t.minLength = &v
			case "maxLength":
				t.maxLength = &v
			case "minItems":
				t.minItems = &v
			case "maxItems":
				t.maxItems = &v
			case "minProperties":
				t.minProps = &v
			case "maxProperties":
				t.maxProps = &v
			}
		case "pattern":
			if bd.checkPattern(o.Value, vpos, fc) {
				t.pattern = o.Value
			}
		case "format":
			if !slices.Contains(formats, o.Value) {
				bd.errorf(vpos, fmt.Sprintf(hintFormats, strings.Join(formats, ", ")), "schema-unknown-format",
					msgUnknownFormat, o.Value, fc.name, didYouMean(o.Value, formats))
				continue
			}
			t.format = o.Value
		case "header":
			if t != fn {
				// Only the field's own value can travel in a header, never
				// an element of an array or a map.
				bd.errorf(pos, fmt.Sprintf(hintNotApplicable, o.Key, c.applies), "schema-not-applicable", msgNotApplicable,
					o.Key, fc.name, bd.qualify(fn.gtOr()), jsonKind(fn))
				continue
			}
			if why := headerNameProblem(o.Value); why != "" {
				bd.errorf(vpos, hintHeaderName, "schema-bad-value", msgBadHeaderName, o.Value, fc.name, why)
				continue
			}
			t.header, t.headerAt, t.headerOf = o.Value, pos, fc.name
		case "uniqueItems":
			t.uniqueItems = flag
		case "deprecated":
			t.deprecated = flag
		case "readOnly":
			t.readOnly = flag
		case "writeOnly":
			t.writeOnly = flag
		case "title":
			t.title = o.Value
		case "description":
			t.desc = o.Value
		case "type":
			if !slices.Contains(jsonTypes, o.Value) {
				bd.errorf(vpos, hintTypes, "schema-bad-value", msgBadType, o.Value, fc.name, didYouMean(o.Value, jsonTypes))
				continue
			}
			t.types = []string{o.Value}
		case "enum", "examples":
			var vals []json.RawMessage
			ok := true
			for _, s := range strings.Split(o.Value, "|") {
				v, err := typedValue(t, s)
				if err != "" {
					bd.errorf(vpos, err, "schema-bad-value", msgBadValue, o.Key+" value", s, fc.name, jsonKind(t))
					ok = false
					continue
				}
				vals = append(vals, v)
			}
			if !ok {
				continue
			}
			if o.Key == "enum" {
				t.enum = vals
				t.notes = ""
			} else {
				t.examples = append(t.examples, vals...)
				for _, v := range vals {
					bd.checks = append(bd.checks, check{what: "example", n: t, val: v, pos: vpos, fc: fc})
				}
			}
		case "const", "default", "example":
			v, err := typedValue(t, o.Value)
			if err != "" {
				bd.errorf(vpos, err, "schema-bad-value", msgBadValue, o.Key, o.Value, fc.name, jsonKind(t))
				continue
			}
			switch o.Key {
			case "const":
				t.cnst = v
			case "default":
				t.dflt = v
				hasDefault = true
				bd.checks = append(bd.checks, check{what: "default", n: t, val: v, pos: vpos, fc: fc})
			case "example":
				t.examples = append(t.examples, v)
				bd.checks = append(bd.checks, check{what: "example", n: t, val: v, pos: vpos, fc: fc})
			}
		}
	}
	for _, bs := range bounds {
		for _, pair := range [][2]string{{"min", "max"}, {"exclusiveMin", "exclusiveMax"}, {"min", "exclusiveMax"}, {"exclusiveMin", "max"},
			{"minLength", "maxLength"}, {"minItems", "maxItems"}, {"minProperties", "maxProperties"}} {
			lo, ok1 := bs[pair[0]]
			hi, ok2 := bs[pair[1]]
			if ok1 && ok2 && lo.v > hi.v {
				bd.errorf(fc.src.tagPos, hintRange, "schema-bad-range", msgRange, lo.key, lo.text, fc.name, hi.key, hi.text)
			}
		}
	}
	return hasDefault
}

func (n *node) gtOr() types.Type {
	if n.gt != nil {
		return n.gt
	}
	return types.Typ[types.Invalid]
}

func unsigned(t types.Type) bool {
	if t == nil {
		return false
	}
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsUnsigned != 0
}

var jsonNumberRE = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// jsonNumber parses a number in a tag and returns its JSON text.
func jsonNumber(s string) (string, float64, bool) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return "", 0, false
	}
	if jsonNumberRE.MatchString(s) {
		return s, v, true
	}
	return strconv.FormatFloat(v, 'g', -1, 64), v, true
}

// typedValue converts a tag value to JSON of the schema's type. The error is
// a hint saying how to write the value.
func typedValue(n *node, s string) (json.RawMessage, string) {
	if isNamed(n.gt, "time", "Duration") {
		if d, err := time.ParseDuration(s); err == nil {
			return json.RawMessage(strconv.FormatInt(int64(d), 10)), ""
		}
		if v, err := strconv.ParseInt(s, 10, 64); err == nil {
			return json.RawMessage(strconv.FormatInt(v, 10)), ""
		}
		return nil, "write a Go duration such as 30s or 1h30m"
	}
	if isNamed(n.gt, "time", "Time") {
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			return nil, "write an RFC 3339 time such as 2026-01-02T15:04:05Z"
		}
	}
	switch n.jsonType() {
	case "string":
		b, _ := json.Marshal(s)
		return b, ""
	case "integer":
		if unsigned(n.gt) {
			if v, err := strconv.ParseUint(s, 10, 64); err == nil {
				return json.RawMessage(strconv.FormatUint(v, 10)), ""
			}
			return nil, "write a whole number of 0 or more"
		}
		if v, err := strconv.ParseInt(s, 10, 64); err == nil {
			return json.RawMessage(strconv.FormatInt(v, 10)), ""
		}
		return nil, "write a whole number such as 10"
	case "number":
		if text, _, ok := jsonNumber(s); ok {
			return json.RawMessage(text), ""
		}
		return nil, "write a number such as 1.5"
	case "boolean":
		if s == "true" || s == "false" {
			return json.RawMessage(s), ""
		}
		return nil, "write true or false"
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return nil, `write a JSON value, quoted in the tag when it contains commas: default='["a","b"]'`
	}
	b, _ := json.Marshal(v)
	return b, ""
}

func isNamed(t types.Type, pkg, name string) bool {
	if t == nil {
		return false
	}
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == pkg && n.Obj().Name() == name
}

// checkPattern reports whether p is a regular expression that both Go (the
// runtime's validator) and ECMA-262 (JSON Schema's dialect) read the same way.
func (bd *build) checkPattern(p string, pos token.Pos, fc *fctx) bool {
	if _, err := syntax.Parse(p, syntax.Perl); err != nil {
		msg := err.Error()
		if e, ok := err.(*syntax.Error); ok {
			msg = fmt.Sprintf("%s: %s", e.Code, e.Expr)
		}
		bd.errorf(pos, hintBadPattern, "schema-bad-pattern", msgBadPattern, p, fc.name, msg)
		return false
	}
	if what := goOnlyRegexp(p); what != "" {
		bd.errorf(pos, hintGoOnlyPattern, "schema-bad-pattern", msgGoOnlyPattern, p, fc.name, what)
		return false
	}
	return true
}

// goOnlyRegexp names a construct of p that Go's regexp accepts and an
// ECMA-262 regular expression in unicode mode rejects or reads differently,
// or returns "". JSON Schema patterns are ECMA-262, and validators such as
// Ajv compile them with the u flag, where escaping a character that needs
// no escape (\-, \_, \@) and lone braces are syntax errors.
func goOnlyRegexp(p string) string {
	inClass := false
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '\\' && i+1 < len(p):
			e := p[i+1]
			switch {
			case e == 'A' || e == 'z':
				return `\` + string(e) + " (text anchors; write ^ or $)"
			case e == 'Q' || e == 'E':
				return `\Q...\E (literal text)`
			case e == 'C':
				return `\C (any byte)`
			case e == 'p' || e == 'P':
				if i+2 >= len(p) || p[i+2] != '{' {
					return `\` + string(e) + string(p[i+2:min(i+3, len(p))]) + " (a one-letter Unicode class; write \\" + string(e) + "{L})"
				}
				if end := strings.IndexByte(p[i:], '}'); end > 0 {
					i += end - 1 // past the class name; i++ below skips the }
				}
			case strings.IndexByte(`^$\.*+?()[]{}|/dDwWsSbBnrtfvcxuk0123456789`, e) >= 0:
			case e == '-' && inClass:
			default:
				return `\` + string(e) + " (an escape ECMA-262 rejects in unicode mode; write " + string(e) + " without the backslash)"
			}
			i++
		case inClass:
			if c == ']' {
				inClass = false
			} else if c == '[' && i+1 < len(p) && p[i+1] == ':' {
				return "[[:class:]] (POSIX classes)"
			}
		case c == '[':
			inClass = true
			if i+1 < len(p) && p[i+1] == ']' || i+2 < len(p) && p[i+1] == '^' && p[i+2] == ']' {
				return "a ] first in a class (Go reads it literally, ECMA-262 as an empty class; write \\])"
			}
		case c == ']':
			return "a lone ] (write \\])"
		case c == '}':
			return "a lone } (write \\})"
		case c == '{':
			m := quantifierRE.FindString(p[i:])
			if m == "" {
				return "a lone { (write \\{)"
			}
			i += len(m) - 1
		case c == '(' && i+1 < len(p) && p[i+1] == '?':
			if i+2 < len(p) {
				switch p[i+2] {
				case ':':
				case 'P':
					return "(?P<name>...) (write (?<name>...))"
				case '<':
				default:
					return "(?flags) (inline flags)"
				}
			}
		}
	}
	return ""
}

var quantifierRE = regexp.MustCompile(`^\{[0-9]+(,[0-9]*)?\}`)

// runChecks validates defaults and examples against the field schemas they
// belong to, within the finished document (so $refs resolve).
func (bd *build) runChecks(root *node) {
	for _, c := range bd.checks {
		if c.n.ref == "#" {
			continue
		}
		v := *c.n
		v.dflt, v.examples = nil, nil
		v.schema = true
		v.defs = root.defs
		var s jsonschema.Schema
		if err := json.Unmarshal(v.marshal(), &s); err != nil {
			bd.errorf(c.pos, hintBadSchema, "schema-invalid", msgBadSchema, c.fc.name, err)
			continue
		}
		rs, err := s.Resolve(nil)
		if err != nil {
			bd.errorf(c.pos, hintBadSchema, "schema-invalid", msgBadSchema, c.fc.name, err)
			continue
		}
		var inst any
		if err := json.Unmarshal(c.val, &inst); err != nil {
			continue // typedValue produced it; cannot happen
		}
		if msg := violation(c.n, inst); msg != "" {
			bd.errorf(c.pos, hintBadDefault, "schema-bad-"+c.what, msgBadDefault, c.what+" "+string(c.val), c.fc.name, msg)
			continue
		}
		if err := rs.Validate(inst); err != nil {
			msg := err.Error()
			if i := strings.LastIndex(msg, ": "); i >= 0 && strings.HasPrefix(msg, "validating") {
				msg = msg[i+2:]
			}
			bd.errorf(c.pos, hintBadDefault, "schema-bad-"+c.what, msgBadDefault, c.what+" "+string(c.val), c.fc.name, msg)
		}
	}
}

// sizeAlternative names the size constraint a user most likely meant by a
// numeric bound on a string, array or object ("min=1" on a string means
// "minLength=1"), or "" when there is none.
func sizeAlternative(key string, n *node) string {
	var lo, hi string
	switch n.jsonType() {
	case "string":
		lo, hi = "minLength", "maxLength"
	case "array":
		lo, hi = "minItems", "maxItems"
	case "object":
		lo, hi = "minProperties", "maxProperties"
	default:
		return ""
	}
	switch key {
	case "min", "exclusiveMin":
		return lo
	case "max", "exclusiveMax":
		return hi
	}
	return ""
}
