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

// Of two bad fields, the refusal names the same one every time (the first
// by name), where the validator, walking its properties in map order,
// named either; a refusal no field explains alone keeps its words.
func TestRefusalNamesTheSameField(t *testing.T) {
	s, err := Compile([]byte(`{"type":"object","additionalProperties":false,"required":["customer"],
		"properties":{"customer":{"type":"string","minLength":2},"limit":{"type":"integer","maximum":50},
		"status":{"type":"string","enum":["open","closed"]},"since":{"type":"string","format":"date"},
		"until":{"type":"string","format":"date"},"items":{"$ref":"#/$defs/Items"}},
		"$defs":{"Items":{"type":"array","maxItems":1}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ in, want string }{
		{`{"limit":500,"status":"lost","customer":"C"}`, `invalid arguments: "customer": `},
		{`{"status":"lost","limit":500,"customer":"C42"}`, `invalid arguments: "limit": must be <= 50`},
		{`{"items":[1,2],"status":"lost","customer":"C42"}`, `invalid arguments: "items": `},
		{`{"zzz":1,"status":"lost","customer":"C42"}`, `invalid arguments: "status": `},
		{`{"until":"tomorrow","since":"yesterday","customer":"C42"}`, `invalid arguments: "since": `},
		{`{"limit":5}`, `invalid arguments: `},
	} {
		var first string
		for i := range 60 {
			_, err := s.Check(json.RawMessage(tc.in))
			if err == nil {
				t.Fatalf("%s: accepted", tc.in)
			}
			if i == 0 {
				first = err.Error()
				if !strings.HasPrefix(first, tc.want) {
					t.Errorf("%s: %q, want it to start %q", tc.in, first, tc.want)
				}
			} else if err.Error() != first {
				t.Fatalf("%s: refused as %q, then as %q", tc.in, first, err.Error())
			}
		}
	}
	if _, err := s.Check(json.RawMessage(`{"limit":5}`)); err == nil || !strings.Contains(err.Error(), "customer") {
		t.Errorf("a missing required field: %v, want it named", err)
	}
}
