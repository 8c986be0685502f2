package lint

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generator/diag"
	"github.com/mcpgen/mcpgen/generator/ir"
)

// FuzzCheck runs every rule over a tool with an arbitrary description,
// title and name and a view with arbitrary source: no rule may panic, and
// every finding names its rule, a message, a fix and a place in a file.
func FuzzCheck(f *testing.F) {
	f.Add("AddNote adds a note.\n\nDetails:", "Add", "add_note", `fetch("https://api.example.com/x"); <img src="//cdn.example.com/a.png"/>`)
	f.Add("", "", "", "")
	f.Add("Returns\u200b the \u202eweather.", "T\U000E0041", "a.b", "new WebSocket(url)\n@import url(https://fonts.example.com/x.css);")
	f.Add("X", "x", strings.Repeat("n", 70), "fetch(`")
	f.Fuzz(func(t *testing.T, desc, title, name, view string) {
		dir := t.TempDir()
		file := filepath.Join(dir, "tools.go")
		src := "package main\n\n// " + strings.ReplaceAll(desc, "\n", "\n// ") + "\n//\n//mcpgen:tool\nfunc F() {}\n"
		if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, "ui"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "ui", "v.tsx"), []byte(view), 0o644); err != nil {
			t.Fatal(err)
		}
		lines := strings.Count(src, "\n")
		input, _ := json.Marshal(map[string]any{"type": "object", "properties": map[string]any{desc: map[string]any{"type": "string", "description": title}}})
		output, _ := json.Marshal(map[string]any{"type": "object", "properties": map[string]any{"items": map[string]any{"type": "array", "items": map[string]any{"type": "object"}}}})
		proj := &ir.Project{Dir: dir, Name: name, Tools: []ir.Tool{{
			Name: name, Title: title, Description: desc, UI: "v",
			Func:        ir.Func{Name: "F", Pos: diag.Pos{File: file, Line: lines, Col: 6}, Doc: diag.Pos{File: file, Line: 3, Col: 1}},
			Sig:         ir.Signature{Kind: ir.ResultStruct},
			InputSchema: input, OutputSchema: output,
			Directive: ir.Directive{Pos: diag.Pos{File: file, Line: lines - 1, Col: 1}, Options: []ir.Option{
				{Name: "name", Value: name, Pos: diag.Pos{File: file, Line: lines - 1, Col: 15}, ValuePos: diag.Pos{File: file, Line: lines - 1, Col: 20}},
			}},
		}}, Views: []ir.View{{Name: "v", File: "ui/v.tsx"}}}
		for _, cfg := range []Config{{}, {AuthKnown: true}, {AuthKnown: true, AuthIssuer: "https://issuer.example.com"}} {
			for _, fd := range Check(proj, cfg) {
				if fd.Code == "" || fd.Rule == nil || fd.Message == "" || fd.Hint == "" || fd.Pos.File == "" {
					t.Errorf("incomplete finding: %+v", fd)
				}
			}
		}
	})
}
