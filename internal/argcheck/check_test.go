package argcheck

import (
	"encoding/json"
	"strings"
	"testing"
)

// A schema that cannot be used says so when compiled: not JSON, a reference
// to nothing, a default its own schema refuses.
func TestCompileRefusesBadSchemas(t *testing.T) {
	for _, schema := range []string{
		`{"type":"object",`,
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/Nope"}}}`,
		`{"type":"object","properties":{"n":{"type":"integer","default":"ten"}}}`,
	} {
		if _, err := Compile([]byte(schema)); err == nil {
			t.Errorf("%s: compiled", schema)
		}
	}
}

// Arguments that are not a JSON object are refused as such; none at all
// (absent or null) are the empty object.
func TestCheckArgumentsObject(t *testing.T) {
	s, err := Compile([]byte(`{"type":"object","properties":{"q":{"type":"string"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	// want ends with "…" where the rest is the JSON decoder's own words.
	for _, tc := range []struct{ in, want string }{
		{``, `{}`},
		{` null `, `{}`},
		{`{}`, `{}`},
		{`{"q":"x"}`, `{"q":"x"}`},
		{`[1]`, `invalid arguments: must be a JSON object: …`},
		{`{"q":1}`, `invalid arguments: "q": must be of type string (got integer)`},
	} {
		got, err := s.Check(json.RawMessage(tc.in))
		if err != nil {
			got = json.RawMessage(err.Error())
		}
		want, prefix := strings.CutSuffix(tc.want, "…")
		if string(got) != want && !(prefix && strings.HasPrefix(string(got), want)) {
			t.Errorf("%q: got %s, want %s", tc.in, got, tc.want)
		}
	}
}
