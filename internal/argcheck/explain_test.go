package argcheck

import (
	"encoding/json"
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
