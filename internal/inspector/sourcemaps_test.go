package inspector

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/bundler"
	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/internal/testenv"
)

// TestSandboxSourceMaps stores a real bundled view in the sandbox: its
// document links the source map the sandbox serves (the browser's
// developer tools then show errors in ui/), and a place in the document,
// as a browser reports it, maps back to the view's source.
func TestSandboxSourceMaps(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "ui"), 0o755)
	src := "import { useToolData } from \"mcpgen/ui\";\n\nexport default function Card() {\n  const d = useToolData<{ n: number }>();\n  if (d && d.n > 1) throw new Error(\"card-marker\");\n  return <p>card</p>;\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "ui", "card.tsx"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := bundler.New(bundler.Options{Dir: dir, NodePaths: []string{testenv.NodeModules(t, "react", "react-dom")}})
	if err != nil {
		t.Fatal(err)
	}
	views, diags := b.Rebuild(context.Background())
	b.Close()
	if diags.HasErrors() || len(views) != 1 || views[0].SourceMap == "" {
		t.Fatalf("bundling: %v (%d views)", diags, len(views))
	}
	v := views[0]
	s, ts := newServer(t, Options{Views: func() []ir.View { return views }})

	body, _ := json.Marshal(map[string]any{"html": v.HTML})
	req, _ := http.NewRequest("POST", ts.URL+"/_mcpgen/views", strings.NewReader(string(body)))
	req.Header.Set("Origin", ts.URL)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var stored struct{ Path string }
	json.NewDecoder(res.Body).Decode(&stored)
	res.Body.Close()
	id := strings.TrimPrefix(stored.Path, "/view/")

	get := func(path string) (string, int) {
		res, err := http.Get(s.SandboxURL() + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return string(b), res.StatusCode
	}
	page, _ := get(stored.Path)
	if !strings.Contains(page, "//# sourceMappingURL=/map/"+id+"\n</script>") {
		t.Errorf("the served document does not link its source map")
	}
	if m, code := get("/map/" + id); code != 200 || !strings.Contains(m, `"ui/card.tsx"`) {
		t.Errorf("GET /map/%s: %d %.200s", id, code, m)
	}
	if _, code := get("/map/unknown"); code != 404 {
		t.Errorf("GET /map/unknown: %d, want 404", code)
	}

	i := strings.Index(page, `throw new Error("card-marker")`)
	if i < 0 {
		t.Fatal("no throw in the served document")
	}
	line := strings.Count(page[:i], "\n") + 1
	col := i - strings.LastIndex(page[:i], "\n")
	url := s.SandboxURL() + stored.Path
	if p, ok := s.SourcePlace(url, line, col); !ok || p.String() != "ui/card.tsx:5:21" {
		t.Errorf("SourcePlace(%d:%d) = %v %v, want ui/card.tsx:5:21", line, col, p, ok)
	}
	stack := "Error: card-marker\n    at Card (" + url + ":" + itoa(line) + ":" + itoa(col) + ")"
	if got := s.Rewrite(stack); !strings.Contains(got, "at Card (ui/card.tsx:5:21)") {
		t.Errorf("Rewrite = %q", got)
	}
	// A document no bundled view has: served as it is, no map.
	if _, ok := s.SourcePlace(s.SandboxURL()+"/view/unknown", 1, 1); ok {
		t.Error("a place in an unknown document was mapped")
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
