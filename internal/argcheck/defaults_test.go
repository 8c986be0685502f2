package argcheck

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCheckKeepsNumbersAndAddsDefaults(t *testing.T) {
	const schema = `{"type":"object","properties":{
		"id":{"type":"integer"},
		"limit":{"type":"integer","default":10},
		"f":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string","default":"x"}}},
		"bill":{"$ref":"#/$defs/Address"},
		"ship":{"type":"array","items":{"$ref":"#/$defs/Address"}},
		"tags":{"type":"object","additionalProperties":{"$ref":"#/$defs/Address"}}},
		"$defs":{"Address":{"type":"object","required":["street"],"properties":{
			"street":{"type":"string"},"country":{"type":"string","default":"US"}}}}}`
	s, err := Compile([]byte(schema))
	if err != nil {
		t.Fatal(err)
	}
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
		got, err := s.Check(json.RawMessage(tc.in))
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if string(got) != tc.want {
			t.Errorf("%s: got %s, want %s", tc.in, got, tc.want)
		}
	}
	if _, err := s.Check(json.RawMessage(`{"bill":{}}`)); err == nil || !strings.Contains(err.Error(), `"bill.street": is required`) {
		t.Errorf("a sent object still needs its required fields; got %v", err)
	}
}
