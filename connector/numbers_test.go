package connector

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

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
