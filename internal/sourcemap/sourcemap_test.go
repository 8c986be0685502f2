package sourcemap_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/bundler"
	"github.com/mcpgen/mcpgen/internal/sourcemap"
	"github.com/mcpgen/mcpgen/internal/testenv"
)

const boomTSX = `import { useToolData } from "mcpgen/ui";

// Boom renders its data.
export default function Boom() {
  const data = useToolData<{ n: number }>();
  if (!data) return <p>waiting</p>;
  if (data.n > 1) {
    throw new Error("boom-marker");
  }
  return <p>{data.n}</p>;
}
`

// TestViewErrorPlace bundles a view with the real bundler, minified and
// not, and maps the place of its throw in the document, as a browser
// reports it (line and column from 1), back to ui/boom.tsx:8.
func TestViewErrorPlace(t *testing.T) {
	nm := testenv.NodeModules(t, "react", "react-dom")
	for _, minify := range []bool{false, true} {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "ui"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "ui", "boom.tsx"), []byte(boomTSX), 0o644); err != nil {
			t.Fatal(err)
		}
		b, err := bundler.New(bundler.Options{Dir: dir, Minify: minify, NodePaths: []string{nm}})
		if err != nil {
			t.Fatal(err)
		}
		views, diags := b.Rebuild(context.Background())
		b.Close()
		if diags.HasErrors() || len(views) != 1 {
			t.Fatalf("minify=%v: %v", minify, diags)
		}
		v := views[0]
		m, err := sourcemap.Parse([]byte(v.SourceMap))
		if err != nil {
			t.Fatalf("minify=%v: %v", minify, err)
		}
		// Where the browser puts the throw: the line and column of
		// "throw" in the document, from 1.
		i := strings.Index(v.HTML, `throw new Error("boom-marker")`)
		if i < 0 {
			t.Fatalf("minify=%v: no throw in the bundle", minify)
		}
		line := strings.Count(v.HTML[:i], "\n") + 1
		col := i - strings.LastIndex(v.HTML[:i], "\n")
		doc := &sourcemap.Doc{Map: m, ScriptLine: v.ScriptLine}
		p, ok := doc.Source(line, col)
		if !ok || p.File != "ui/boom.tsx" || p.Line != 8 || p.Col != 5 {
			t.Errorf("minify=%v: document %d:%d maps to %v %v, want ui/boom.tsx:8:5", minify, line, col, p, ok)
		}
		url := "http://127.0.0.1:1234/view/abc"
		got := sourcemap.Rewrite("Error: boom-marker\n    at Boom ("+url+":"+itoa(line)+":"+itoa(col)+")\n    at other (http://x.test/y.js:1:2)",
			func(u string) *sourcemap.Doc {
				if u == url {
					return doc
				}
				return nil
			})
		if !strings.Contains(got, "at Boom (ui/boom.tsx:8:5)") || !strings.Contains(got, "(http://x.test/y.js:1:2)") {
			t.Errorf("minify=%v: Rewrite gave %q", minify, got)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestParseErrors: a malformed map is an error, never a partial map.
func TestParseErrors(t *testing.T) {
	for _, in := range []string{
		`not json`,
		`{"version":2,"sources":[],"mappings":""}`,
		`{"version":3,"sources":["a.ts"],"mappings":"A!"}`,
		`{"version":3,"sources":["a.ts"],"mappings":"ADAA"}`,
		`{"version":3,"sources":["a.ts"],"mappings":"AA"}`,
		`{"version":3,"sources":["a.ts"],"mappings":"g"}`,
	} {
		if m, err := sourcemap.Parse([]byte(in)); err == nil {
			t.Errorf("Parse(%s) = %v, want an error", in, m)
		}
	}
}

// FuzzParse: no input makes Parse or a lookup panic.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"version":3,"sources":["a.ts","b.ts"],"mappings":"AAAA,CAAC;ACAA,GAAG;;E"}`))
	f.Add([]byte(`{"version":3,"sources":["a.ts"],"mappings":"gBAAgB"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := sourcemap.Parse(data)
		if err != nil {
			return
		}
		for line := -1; line < 4; line++ {
			for col := -1; col < 40; col += 7 {
				m.Source(line, col)
			}
		}
	})
}
