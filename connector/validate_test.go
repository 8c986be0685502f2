package connector

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

func TestExplainValidation(t *testing.T) {
	const schema = `{"type":"object","additionalProperties":false,"required":["q"],
		"properties":{
			"q":{"type":"string","minLength":2,"maxLength":5},
			"n":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1},
			"kind":{"type":"string","enum":["a","b"]},
			"tags":{"type":"array","maxItems":2,"items":{"type":"string","minLength":2}},
			"filter":{"$ref":"#/$defs/Filter"}},
		"$defs":{"Filter":{"type":"object","required":["lang"],"properties":{"lang":{"type":"string"}}}}}`
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(schema), &s); err != nil {
		t.Fatal(err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ in, want string }{
		{`{}`, `"q": is required`},
		{`{"q":"x"}`, `"q": must be at least 2 characters long`},
		{`{"q":"xxxxxxx"}`, `"q": must be at most 5 characters long`},
		{`{"q":"xx","n":1}`, `"n": must be < 1`},
		{`{"q":"xx","n":0}`, `"n": must be > 0`},
		{`{"q":"xx","kind":"c"}`, `"kind": must be one of [a b]`},
		{`{"q":"xx","tags":["aa","bb","cc"]}`, `"tags": must have at most 2 items`},
		{`{"q":"xx","tags":["a"]}`, `"tags[]": must be at least 2 characters long`},
		{`{"q":"xx","filter":{"lang":3}}`, `"filter.lang": must be of type string (got integer)`},
		{`{"q":"xx","filter":{}}`, `"filter.lang": is required`},
		{`{"q":"xx","zz":1}`, `"zz": unknown field; valid fields are listed in the tool's input schema`},
	} {
		var v any
		json.Unmarshal([]byte(tc.in), &v)
		err := r.Validate(&v)
		if err == nil {
			t.Errorf("%s: valid", tc.in)
			continue
		}
		if got := explainValidation(err); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s\n(from %v)", tc.in, got, tc.want, err)
		}
	}
}

func TestValidateKeepsNumbersAndAddsDefaults(t *testing.T) {
	const schema = `{"type":"object","properties":{
		"id":{"type":"integer"},
		"limit":{"type":"integer","default":10},
		"f":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string","default":"x"}}},
		"bill":{"$ref":"#/$defs/Address"},
		"ship":{"type":"array","items":{"$ref":"#/$defs/Address"}},
		"tags":{"type":"object","additionalProperties":{"$ref":"#/$defs/Address"}}},
		"$defs":{"Address":{"type":"object","required":["street"],"properties":{
			"street":{"type":"string"},"country":{"type":"string","default":"US"}}}}}`
	s, err := NewServer(&App{Tools: []Tool{{Name: "t", InputSchema: schema, Handler: func(context.Context, json.RawMessage) (any, error) { return nil, nil }}}})
	if err != nil {
		t.Fatal(err)
	}
	tl := s.tools["t"]
	for _, tc := range []struct{ in, want string }{
		{`{"id":9007199254740993,"f":{"a":1}}`, `{"f":{"a":1,"b":"x"},"id":9007199254740993,"limit":10}`},
		// An omitted optional object stays omitted, even when its
		// properties have defaults: its required fields are not demanded.
		{`{"id":9007199254740993,"limit":3}`, `{"id":9007199254740993,"limit":3}`},
		{``, `{"limit":10}`},
		{`null`, `{"limit":10}`},
		// Top-level defaults are appended to the client's JSON as sent.
		{`{"id":9007199254740993}`, `{"id":9007199254740993,"limit":10}`},
		{` { } `, `{ "limit":10}`},
		{`{"id":1 ,"limit":2}`, `{"id":1 ,"limit":2}`},
		// Defaults reach through $ref, array items and additionalProperties.
		{`{"bill":{"street":"Main"}}`, `{"bill":{"country":"US","street":"Main"},"limit":10}`},
		{`{"ship":[{"street":"A"},{"street":"B","country":"NL"}]}`, `{"limit":10,"ship":[{"country":"US","street":"A"},{"street":"B","country":"NL"}]}`},
		{`{"tags":{"home":{"street":"C"}}}`, `{"limit":10,"tags":{"home":{"country":"US","street":"C"}}}`},
	} {
		got, err := tl.validate(json.RawMessage(tc.in))
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if string(got) != tc.want {
			t.Errorf("%s: got %s, want %s", tc.in, got, tc.want)
		}
	}
	if _, err := tl.validate(json.RawMessage(`{"bill":{}}`)); err == nil || !strings.Contains(err.Error(), `"bill.street": is required`) {
		t.Errorf("a sent object still needs its required fields; got %v", err)
	}
}

// TestDecodeIntegralNumbers checks that integers written with a fraction or
// an exponent (valid JSON Schema integers) decode into Go integers, and
// that a decoding error names the field and the JSON type, never a Go type.
func TestDecodeIntegralNumbers(t *testing.T) {
	type in struct {
		Limit  int     `json:"limit"`
		Big    int64   `json:"big"`
		Ratio  float64 `json:"ratio"`
		Name   string  `json:"name"`
		Nested struct {
			N uint8 `json:"n"`
		} `json:"nested"`
	}
	for _, tc := range []struct {
		args, want string
	}{
		{`{"limit":50.0}`, `{50 0 0  {0}}`},
		{`{"limit":5e1,"big":9007199254740993.0}`, `{50 9007199254740993 0  {0}}`},
		{`{"limit":1.5E2,"ratio":2.50,"name":"50.0 \"3.0\""}`, `{150 0 2.5 50.0 "3.0" {0}}`},
		{`{"limit":-0.0e0,"nested":{"n":2.000}}`, `{0 0 0  {2}}`},
		{`{"limit":50.5}`, `invalid arguments: "limit": must be an integer in range (got 50.5)`},
		{`{"limit":1e30}`, `invalid arguments: "limit": must be an integer in range (got 1000000000000000000000000000000)`},
		{`{"nested":{"n":300}}`, `invalid arguments: "nested.n": must be an integer in range (got 300)`},
		{`{"name":5}`, `invalid arguments: "name": must be a string (got number)`},
		{`{"nested":[]}`, `invalid arguments: "nested": must be an object (got array)`},
	} {
		var v in
		got := ""
		if err := Decode(json.RawMessage(tc.args), &v); err != nil {
			got = err.Error()
		} else {
			got = fmt.Sprintf("%v", v)
		}
		if got != tc.want {
			t.Errorf("Decode(%s) = %s, want %s", tc.args, got, tc.want)
		}
		if strings.Contains(got, "int") && strings.Contains(got, "Go") || strings.Contains(got, "uint8") || strings.Contains(got, "struct") {
			t.Errorf("Decode(%s) names a Go type: %s", tc.args, got)
		}
	}
}
