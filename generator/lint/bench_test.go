package lint

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generator/diag"
	"github.com/mcpgen/mcpgen/generator/ir"
)

// BenchmarkCheck measures every rule over a connector of 100 tools (each
// with a doc comment, a directive, input and output schemas) and one view:
// the cost lint adds to every generate and every dev rebuild.
func BenchmarkCheck(b *testing.B) {
	dir := b.TempDir()
	file := filepath.Join(dir, "tools.go")
	var src strings.Builder
	src.WriteString("package main\n")
	proj := &ir.Project{Dir: dir, Name: "acme"}
	line := 2
	for i := range 100 {
		fmt.Fprintf(&src, "\n// Finds the orders of customer %d, newest first.\n//\n//mcpgen:tool readonly title=\"Find orders %d\"\nfunc FindOrders%d() {}\n", i, i, i)
		proj.Tools = append(proj.Tools, ir.Tool{
			Name: fmt.Sprintf("find_orders_%d", i), Title: fmt.Sprintf("Find orders %d", i),
			Description:  fmt.Sprintf("Finds the orders of customer %d, newest first.", i),
			Func:         ir.Func{Name: fmt.Sprintf("FindOrders%d", i), Pos: diag.Pos{File: file, Line: line + 4, Col: 6}, Doc: diag.Pos{File: file, Line: line + 1, Col: 1}},
			Sig:          ir.Signature{Kind: ir.ResultStruct},
			InputSchema:  []byte(`{"type":"object","properties":{"customer":{"type":"string","description":"Customer is the customer's ID."},"limit":{"type":"integer"}}}`),
			OutputSchema: []byte(`{"type":"object","properties":{"orders":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"}}}}}}`),
			Directive: ir.Directive{Pos: diag.Pos{File: file, Line: line + 3, Col: 1}, Options: []ir.Option{
				{Name: "readonly", Pos: diag.Pos{File: file, Line: line + 3, Col: 15}},
				{Name: "title", Value: "Find orders", Pos: diag.Pos{File: file, Line: line + 3, Col: 24}},
			}},
		})
		line += 5
	}
	if err := os.WriteFile(file, []byte(src.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "ui"), 0o755)
	view := strings.Repeat("export const x = () => fetch(\"https://api.example.com/orders\").then((r) => r.json());\n", 200)
	os.WriteFile(filepath.Join(dir, "ui", "orders.tsx"), []byte(view), 0o644)
	proj.Views = []ir.View{{Name: "orders", File: "ui/orders.tsx", Meta: ir.ViewMeta{ConnectDomains: []string{"https://api.example.com"}}}}
	b.ResetTimer()
	for b.Loop() {
		if fs := Check(proj, Config{}); len(fs) != 0 {
			b.Fatalf("findings: %v", fs[0].Message)
		}
	}
}
