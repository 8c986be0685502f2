package typecheck

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generator/diag"
	"github.com/mcpgen/mcpgen/internal/testenv"
)

func TestParse(t *testing.T) {
	out := "ui/orders.tsx(7,20): error TS2551: Property 'totl' does not exist on type 'FindOrdersOutput'. Did you mean 'total'?\n" +
		"ui/a.tsx(2,1): error TS2769: No overload matches this call.\n" +
		"  Overload 1 of 2, '(name: \"x\"): void', gave the following error.\n" +
		"    Argument of type '\"y\"' is not assignable to parameter of type '\"x\"'.\n" +
		"error TS5083: Cannot read file '/p/base.json'.\n" +
		"some other line\n"
	got := Parse("/p", []byte(out))
	want := diag.List{
		{Pos: diag.Pos{File: "/p/tsconfig.json"}, Code: "TS5083", Message: "Cannot read file '/p/base.json'. (TS5083)"},
		{Pos: diag.Pos{File: "/p/ui/a.tsx", Line: 2, Col: 1}, Code: "TS2769", Message: "No overload matches this call. (TS2769)",
			Hint: "Overload 1 of 2, '(name: \"x\"): void', gave the following error.\n\tArgument of type '\"y\"' is not assignable to parameter of type '\"x\"'."},
		{Pos: diag.Pos{File: "/p/ui/orders.tsx", Line: 7, Col: 20}, Code: "TS2551",
			Message: "Property 'totl' does not exist on type 'FindOrdersOutput'. Did you mean 'total'? (TS2551)"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d diagnostics, want %d:\n%s", len(got), len(want), got.Render("/p"))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("diagnostic %d:\n got %#v\nwant %#v", i, got[i], want[i])
		}
	}
	if r := got.Render("/p"); !strings.Contains(r, "ui/orders.tsx:7:20: Property 'totl'") {
		t.Errorf("rendered diagnostics lack file:line:col:\n%s", r)
	}
}

func TestFindWithoutTypeScript(t *testing.T) {
	dir := t.TempDir()
	if c, err := Find(dir); c != nil || err != nil {
		t.Errorf("Find without tsconfig.json = %v, %v; want nil, nil", c, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tsconfig.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Find(dir)
	if c != nil || err == nil || !strings.Contains(err.Error(), "npm install --save-dev typescript") {
		t.Errorf("Find without node_modules/typescript = %v, %v; want an error naming the install command", c, err)
	}
}

// TestCheck runs the real TypeScript compiler over a view with a type error,
// then over the fixed view.
func TestCheck(t *testing.T) {
	node := testenv.Node(t)
	nm := testenv.NodeModules(t, "typescript", "@types/react")
	dir := t.TempDir()
	write := func(name, src string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("tsconfig.json", `{"compilerOptions":{"target":"ES2020","lib":["ES2020","DOM"],"module":"ESNext",
		"moduleResolution":"Bundler","jsx":"react-jsx","strict":true,"noEmit":true,"skipLibCheck":true},"include":["ui"]}`)
	write("ui/card.tsx", "export default function Card() {\n  const n: number = \"one\";\n  return <p>{n}</p>;\n}\n")
	if err := os.Symlink(nm, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MCPGEN_NODE", node)
	c, err := Find(dir)
	if err != nil || c == nil {
		t.Fatalf("Find = %v, %v", c, err)
	}
	diags, err := c.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := diags.Render(dir)
	if want := "ui/card.tsx:2:9: Type 'string' is not assignable to type 'number'. (TS2322)\n"; got != want {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", got, want)
	}
	write("ui/card.tsx", "export default function Card() {\n  const n: number = 1;\n  return <p>{n}</p>;\n}\n")
	if diags, err := c.Check(context.Background()); err != nil || len(diags) != 0 {
		t.Errorf("fixed view: %v\n%s", err, diags.Render(dir))
	}
}
