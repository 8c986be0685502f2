package generator

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/mcpgen/mcpgen/internal/testenv"
)

// BenchmarkGenerate measures one generation of a small connector (four
// handlers in two packages) with a warm Go build cache: what mcpgen dev pays
// on every Go change before go build starts.
func BenchmarkGenerate(b *testing.B) {
	ar, err := txtar.ParseFile("testdata/e2e_connector.txtar")
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	for _, f := range ar.Files {
		if strings.HasPrefix(f.Name, "want/") {
			continue
		}
		data := f.Data
		if f.Name == "go.mod" {
			data = []byte(goMod(b, string(data)))
		}
		writeTestFile(b, filepath.Join(dir, f.Name), data)
	}
	writeTestFile(b, filepath.Join(dir, "go.sum"), readFile(b, filepath.Join(testenv.Root(), "go.sum")))
	ctx := context.Background()
	if res, diags := Generate(ctx, Config{Dir: dir}); res == nil {
		b.Fatalf("generate:\n%s", diags.Render(dir))
	}
	b.ResetTimer()
	for b.Loop() {
		if res, _ := Generate(ctx, Config{Dir: dir}); res == nil {
			b.Fatal("generate failed")
		}
	}
}
