package schema

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mcpgen/mcpgen/generator/diag"
)

// option is one constraint of an mcpgen struct tag: name or name=value.
// Off and ValOff are byte offsets into the tag value (the text between the
// quotes of mcpgen:"...").
type option struct {
	Key      string
	Value    string
	HasValue bool
	Quoted   bool
	Off      int
	ValOff   int
}

// tagError is a syntax problem in a tag value at byte offset Off.
type tagError struct {
	Off  int
	Kind string // "empty", "unterminated", "afterQuote"
	Text string
}

// parseTag splits an mcpgen tag value into its options. Options are separated
// by commas; a value may be quoted with single quotes to hold commas
// (pattern='^[a-z]{1,3}$'), and ” inside quotes stands for one quote.
// Spaces around names and unquoted values are trimmed.
func parseTag(s string) ([]option, []tagError) {
	var opts []option
	var errs []tagError
	i := 0
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	for i <= len(s) {
		// key
		start := i
		for i < len(s) && s[i] != '=' && s[i] != ',' {
			i++
		}
		key := strings.TrimSpace(s[start:i])
		keyOff := start + strings.Index(s[start:i], key)
		if key == "" {
			keyOff = start
		}
		o := option{Key: key, Off: keyOff}
		if i < len(s) && s[i] == '=' {
			i++
			o.HasValue = true
			j := i
			for j < len(s) && s[j] == ' ' {
				j++
			}
			if j < len(s) && s[j] == '\'' {
				o.Quoted = true
				o.ValOff = j + 1
				var b strings.Builder
				k := j + 1
				closed := false
				for k < len(s) {
					if s[k] == '\'' {
						if k+1 < len(s) && s[k+1] == '\'' {
							b.WriteByte('\'')
							k += 2
							continue
						}
						closed = true
						k++
						break
					}
					b.WriteByte(s[k])
					k++
				}
				o.Value = b.String()
				if !closed {
					errs = append(errs, tagError{Off: j, Kind: "unterminated"})
					if key != "" {
						opts = append(opts, o)
					}
					return opts, errs
				}
				// only spaces may follow, up to the comma
				m := k
				for m < len(s) && s[m] != ',' {
					m++
				}
				if rest := strings.TrimSpace(s[k:m]); rest != "" {
					errs = append(errs, tagError{Off: k + strings.Index(s[k:m], rest), Kind: "afterQuote", Text: rest})
				}
				i = m
			} else {
				for i < len(s) && s[i] != ',' {
					i++
				}
				raw := s[j:i]
				o.Value = strings.TrimRight(raw, " ")
				o.ValOff = j
			}
		}
		if key == "" {
			errs = append(errs, tagError{Off: keyOff, Kind: "empty"})
		} else {
			opts = append(opts, o)
		}
		if i >= len(s) {
			break
		}
		i++ // the comma
		if i == len(s) {
			errs = append(errs, tagError{Off: i - 1, Kind: "empty"})
			break
		}
	}
	return opts, errs
}

// applies says which JSON types a constraint applies to.
type applies uint8

const (
	toAny     applies = iota // any schema (annotations)
	toNumber                 // integer or number
	toString                 // string
	toArray                  // array
	toObject                 // object (maps and structs)
	toScalar                 // string, number, integer, boolean
	toUntyped                // only schemas without a JSON type (any, RawMessage, MarshalJSON)
	toHeader                 // string, integer, boolean: what SEP-2243 lets a client mirror into a header
)

func (a applies) String() string {
	switch a {
	case toNumber:
		return "number and integer"
	case toString:
		return "string"
	case toArray:
		return "array"
	case toObject:
		return "object"
	case toScalar:
		return "string, number, integer and boolean"
	case toHeader:
		return "string, integer and boolean (not number: SEP-2243 leaves floats out of headers)"
	}
	return "any"
}

// valueKind says what value a constraint takes.
type valueKind uint8

const (
	valNumber    valueKind = iota // a JSON number
	valCount                      // a non-negative integer
	valText                       // any text
	valFlag                       // no value, or true/false
	valTyped                      // a value of the field's type
	valTypedList                  // values of the field's type separated by |
)

type constraint struct {
	applies applies
	value   valueKind
}

// constraints are the keys an mcpgen tag accepts. The JSON Schema spellings
// of the bounds (minimum, exclusiveMinimum, ...) are accepted as aliases.
var constraints = map[string]constraint{
	"min":              {toNumber, valNumber},
	"max":              {toNumber, valNumber},
	"exclusiveMin":     {toNumber, valNumber},
	"exclusiveMax":     {toNumber, valNumber},
	"minimum":          {toNumber, valNumber},
	"maximum":          {toNumber, valNumber},
	"exclusiveMinimum": {toNumber, valNumber},
	"exclusiveMaximum": {toNumber, valNumber},
	"multipleOf":       {toNumber, valNumber},
	"minLength":        {toString, valCount},
	"maxLength":        {toString, valCount},
	"pattern":          {toString, valText},
	"format":           {toString, valText},
	"header":           {toHeader, valText},
	"minItems":         {toArray, valCount},
	"maxItems":         {toArray, valCount},
	"uniqueItems":      {toArray, valFlag},
	"minProperties":    {toObject, valCount},
	"maxProperties":    {toObject, valCount},
	"enum":             {toScalar, valTypedList},
	"const":            {toScalar, valTyped},
	"default":          {toAny, valTyped},
	"example":          {toAny, valTyped},
	"examples":         {toAny, valTypedList},
	"title":            {toAny, valText},
	"description":      {toAny, valText},
	"deprecated":       {toAny, valFlag},
	"readOnly":         {toAny, valFlag},
	"writeOnly":        {toAny, valFlag},
	"type":             {toUntyped, valText},
}

var canonical = map[string]string{
	"minimum":          "min",
	"maximum":          "max",
	"exclusiveMinimum": "exclusiveMin",
	"exclusiveMaximum": "exclusiveMax",
}

// constraintNames lists the primary constraint names (aliases left out).
func constraintNames() []string {
	var names []string
	for k := range constraints {
		if _, alias := canonical[k]; !alias {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	return names
}

// constraintKeys lists every accepted key, aliases included, for suggestions.
func constraintKeys() []string {
	var keys []string
	for k := range constraints {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// formats are the formats of JSON Schema 2020-12 (validation vocabulary §7.3).
var formats = []string{
	"date", "date-time", "duration", "email", "hostname", "idn-email", "idn-hostname",
	"ipv4", "ipv6", "iri", "iri-reference", "json-pointer", "regex",
	"relative-json-pointer", "time", "uri", "uri-reference", "uri-template", "uuid",
}

var jsonTypes = []string{"array", "boolean", "integer", "number", "object", "string"}

// didYouMean returns `; did you mean "x"?` for the closest candidate, or "".
func didYouMean(s string, candidates []string) string {
	if best := diag.Closest(s, candidates); best != "" {
		return fmt.Sprintf("; did you mean %q?", best)
	}
	return ""
}
