package meta

import (
	"testing"

	"github.com/mcpgen/mcpgen/generator/diag"
)

// FuzzLoad feeds Parse arbitrary project files: it never panics, and it
// returns a project file exactly when it reported no error.
func FuzzLoad(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"title": "x", "settings": [{"env": "K"}]}`, `{"author": {"name": 1}}`,
		`{"settings": [{"env": "K", "min": 1, "default": [1]}]} // c`, `[]`, `{"publish": {"headers": [{}]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var diags diag.List
		m := Parse("/p/"+File, data, "example.com/x", &diags)
		if (m != nil) == diags.HasErrors() {
			t.Fatalf("Load(%q) = %v with diagnostics %v", data, m, diags)
		}
		if m != nil {
			m.At("/settings/0/env")
		}
	})
}
