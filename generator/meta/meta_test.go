package meta

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generator/diag"
)

func TestLoad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	text := `{
  // comments are allowed
  "title": "Acme Orders",
  "description": "Find and track Acme orders.",
  "settings": [
    {"env": "ACME_API_KEY", "sensitive": true, "required": true},
    {"key": "region", "env": "ACME_REGION", "title": "Region", "default": "eu"},
  ],
}`
	os.WriteFile(filepath.Join(dir, File), []byte(text), 0o644)
	var diags diag.List
	m := Load(dir, "github.com/acme/orders/v2", &diags)
	if len(diags) != 0 || m == nil {
		t.Fatalf("Load: %v", diags)
	}
	if m.RegistryName != "io.github.acme/orders" {
		t.Errorf("RegistryName = %q, want io.github.acme/orders", m.RegistryName)
	}
	s := m.Settings[0]
	if s.Key != "acme_api_key" || s.Type != "string" || s.Title != "Acme api key" || !s.Sensitive {
		t.Errorf("first setting's defaults: %+v", s)
	}
	if p := m.At("/settings/1/env"); p.Line != 7 || p.Col != 30 {
		t.Errorf("At(/settings/1/env) = %v, want line 7 col 30", p)
	}
	if p := m.At("/publish/mcpb"); p.Line != 1 {
		t.Errorf("At of an absent field = %v, want the file's start", p)
	}
}

func TestLoadMissing(t *testing.T) {
	t.Parallel()
	var diags diag.List
	if m := Load(t.TempDir(), "x", &diags); m != nil || len(diags) != 0 {
		t.Fatalf("no mcpgen.json: got %v, %v; want nil and no diagnostics", m, diags)
	}
}

func TestLoadMistakes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, text, want string }{
		{"syntax", `{"title": }`, "mcpgen.json:1:"},
		{"unknown", "{\n  \"titel\": \"x\"\n}", "mcpgen.json:2:3: unknown field \"titel\" in mcpgen.json\n\tdid you mean \"title\"?"},
		{"nested unknown", `{"author": {"nam": "x"}}`, `unknown field "nam" in mcpgen.json at /author`},
		{"type", `{"title": 3}`, "title in mcpgen.json must be string"},
		{"no env", `{"settings": [{"title": "x"}]}`, "setting 1 has no env"},
		{"env name", `{"settings": [{"env": "API-KEY"}]}`, `setting env "API-KEY" is not an environment variable name`},
		{"setting type", `{"settings": [{"env": "K", "type": "secret"}]}`, `setting K has type "secret"`},
		{"dup", `{"settings": [{"env": "K"}, {"env": "K"}]}`, "declared twice"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, File), []byte(c.text), 0o644)
			var diags diag.List
			m := Load(dir, "x", &diags)
			got := diags.Render(dir)
			if m != nil || !strings.Contains(got, c.want) {
				t.Errorf("Load(%s) = %v\n%s\nwant nil and a diagnostic with %q", c.text, m, got, c.want)
			}
		})
	}
}

func TestRegistryNameOf(t *testing.T) {
	t.Parallel()
	for module, want := range map[string]string{
		"github.com/acme/orders":     "io.github.acme/orders",
		"github.com/acme/tools/v3":   "io.github.acme/tools",
		"example.com/x/orders":       "com.example/orders",
		"mcp.acme.co.uk/orders":      "uk.co.acme.mcp/orders",
		"orders":                     "local/orders",
		"gitlab.com/team/sub/orders": "com.gitlab.team/orders",
	} {
		if got := RegistryNameOf(module); got != want {
			t.Errorf("RegistryNameOf(%q) = %q, want %q", module, got, want)
		}
	}
}
