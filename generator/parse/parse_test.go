package parse

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpgen/mcpgen/generator/diag"
	"github.com/mcpgen/mcpgen/generator/directive"
	"github.com/mcpgen/mcpgen/generator/ir"
)

func TestSnakeCase(t *testing.T) {
	for in, want := range map[string]string{
		"FindOrders":    "find_orders",
		"GetHTTPStatus": "get_http_status",
		"HTTPServer":    "http_server",
		"GetID":         "get_id",
		"Top10Items":    "top10_items",
		"version":       "version",
		"A":             "a",
		"userIDs":       "user_ids",
	} {
		if got := snakeCase(in); got != want {
			t.Errorf("snakeCase(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAnnotations(t *testing.T) {
	for text, want := range map[string]ir.Annotations{
		"//mcpgen:tool":                         {Destructive: true, OpenWorld: true},
		"//mcpgen:tool destructive":             {Destructive: true, OpenWorld: true},
		"//mcpgen:tool readonly":                {ReadOnly: true, Idempotent: true, OpenWorld: true},
		"//mcpgen:tool readonly closedworld":    {ReadOnly: true, Idempotent: true},
		"//mcpgen:tool additive":                {OpenWorld: true},
		"//mcpgen:tool idempotent":              {Destructive: true, Idempotent: true, OpenWorld: true},
		"//mcpgen:tool additive idempotent":     {Idempotent: true, OpenWorld: true},
		"//mcpgen:tool destructive closedworld": {Destructive: true},
	} {
		var diags diag.List
		d, ok := directive.Parse(text, diag.Pos{File: "x.go", Line: 1, Col: 1}, &diags)
		if !ok {
			t.Fatalf("%s: %s", text, diags.Render(""))
		}
		if got := Annotations(d); got != want {
			t.Errorf("%s: got %+v, want %+v", text, got, want)
		}
	}
}

func TestDiscoverViews(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"ui/card.tsx", "ui/board/index.tsx", "ui/board/part.tsx", "ui/_shared.tsx", "ui/.hidden.tsx", "ui/style.css", "ui/empty/readme.md", "ui/bad name.tsx"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	views := DiscoverViews(dir)
	if len(views) != 2 || views[0].Name != "board" || views[0].File != "ui/board/index.tsx" || views[1].Name != "card" || views[1].File != "ui/card.tsx" {
		t.Errorf("views = %+v", views)
	}
	if v := DiscoverViews(t.TempDir()); v != nil {
		t.Errorf("no ui/: %+v", v)
	}
}

func TestServerName(t *testing.T) {
	for in, want := range map[string]string{
		"example.com/acme":       "acme",
		"github.com/x/orders/v2": "orders",
		"notes":                  "notes",
		"example.com/v":          "v",
		"example.com/vault":      "vault",
	} {
		if got := ServerName(in); got != want {
			t.Errorf("ServerName(%q) = %q, want %q", in, got, want)
		}
	}
}
