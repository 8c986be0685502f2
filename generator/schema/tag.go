package schema

import (
	"fmt"
	"sort"

	"github.com/mcpgen/mcpgen/generator/diag"
	"github.com/mcpgen/mcpgen/internal/tagopt"
)

// option is one option of an mcpgen struct tag; tagError a syntax problem
// in one. The grammar is package tagopt's, shared with the runtime.
type (
	option   = tagopt.Option
	tagError = tagopt.Error
)

// parseTag splits an mcpgen tag value into its options (tagopt.Parse).
func parseTag(s string) ([]option, []tagError) { return tagopt.Parse(s) }

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
