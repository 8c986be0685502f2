package load

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generator/diag"
	"github.com/mcpgen/mcpgen/internal/testenv"
)

func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files["go.mod"] = goMod(t, "example.com/acme")
	sum, err := os.ReadFile(filepath.Join(testenv.Root(), "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	files["go.sum"] = string(sum)
	for name, src := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const mainGo = `package main

import "github.com/mcpgen/mcpgen/connector"

var app *connector.App = mcpgenApp()

func main() { _ = app; _ = mcpgenViews }
`

func TestLoadStaleGenerated(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"main.go": mainGo,
		// A stale generated file that no longer compiles must not matter.
		GenFile:          "package main\n\nfunc mcpgenApp() int { return undefined }\n",
		"orders/find.go": "package orders\n\n// Find finds.\nfunc Find() error { return nil }\n",
	})
	var diags diag.List
	prog, ok := Load(context.Background(), dir, &diags)
	if !ok {
		t.Fatalf("Load: %s", diags.Render(dir))
	}
	if prog.Module != "example.com/acme" || prog.Root == nil || prog.Root.Name != "main" {
		t.Fatalf("module %q root %v", prog.Module, prog.Root)
	}
	var paths []string
	for _, p := range prog.Packages {
		paths = append(paths, p.PkgPath)
	}
	if got := strings.Join(paths, " "); got != "example.com/acme example.com/acme/orders" {
		t.Errorf("packages: %s", got)
	}
}

func TestLoadTypeErrors(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"main.go":        mainGo,
		"orders/find.go": "package orders\n\nfunc Find() error {\n\treturn 42\n}\n",
	})
	var diags diag.List
	_, ok := Load(context.Background(), dir, &diags)
	if ok {
		t.Fatal("Load succeeded on a type error")
	}
	got := diags.Render(dir)
	if !strings.Contains(got, "orders/find.go:4:9: cannot use 42") {
		t.Errorf("diagnostics:\n%s", got)
	}
}

func TestLoadNoGoMod(t *testing.T) {
	var diags diag.List
	if _, ok := Load(context.Background(), t.TempDir(), &diags); ok || len(diags) != 1 || diags[0].Code != "no-go-mod" {
		t.Fatalf("got %s", diags.Render(""))
	}
}

// goMod returns a go.mod for module that requires mcpgen from this checkout
// (and what mcpgen requires, as a tidy module would).
func goMod(t *testing.T, module string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testenv.Root(), "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	lines[0] = "module " + module
	return strings.Join(lines, "\n") + "\nrequire github.com/mcpgen/mcpgen v0.0.0\n\nreplace github.com/mcpgen/mcpgen => " + testenv.Root() + "\n"
}

func TestLoadWithoutMcpgen(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/acme\n\ngo 1.26\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() { _ = mcpgenApp() }\n"), 0o644)
	var diags diag.List
	if _, ok := Load(context.Background(), dir, &diags); ok || len(diags) != 1 || diags[0].Code != "no-runtime" ||
		diags[0].Pos.File != filepath.Join(dir, "go.mod") || !strings.Contains(diags[0].Hint, "-replace=github.com/mcpgen/mcpgen=") {
		t.Fatalf("got %s", diags.Render(dir))
	}
}

func TestLoadUntidyGoMod(t *testing.T) {
	dir := t.TempDir()
	// mcpgen is required, but not what mcpgen itself requires.
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/acme\n\ngo 1.26\n\nrequire github.com/mcpgen/mcpgen v0.0.0\n\nreplace github.com/mcpgen/mcpgen => "+testenv.Root()+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() { _ = mcpgenApp() }\n"), 0o644)
	var diags diag.List
	if _, ok := Load(context.Background(), dir, &diags); ok || len(diags) != 1 || diags[0].Code != "go-list" || !strings.Contains(diags[0].Message, "go mod tidy") {
		t.Fatalf("got %s", diags.Render(dir))
	}
}

func TestLoadBadReplace(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/acme\n\ngo 1.26\n\nrequire github.com/mcpgen/mcpgen v0.0.0\n\nreplace github.com/mcpgen/mcpgen => ../no-such-checkout\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() { _ = mcpgenApp() }\n"), 0o644)
	var diags diag.List
	_, ok := Load(context.Background(), dir, &diags)
	want := "go.mod:7:1: go.mod replaces github.com/mcpgen/mcpgen with ../no-such-checkout, which holds no go.mod"
	if ok || len(diags) != 1 || !strings.HasPrefix(diags.Render(dir), want) {
		t.Fatalf("got %s\nwant %s", diags.Render(dir), want)
	}
}

// A go.mod the go command cannot parse is an error at its line, not go
// list's output at the module root; versions the go command would fix are
// left to it.
func TestLoadBadGoModSyntax(t *testing.T) {
	for _, tc := range []struct{ gomod, want string }{
		{"module example.com/acme\n\ngo 1.26\n\nrequire (\n", "go.mod:6:1: syntax error (unterminated block"},
		{"module example.com/acme\n\ngo 1.26\n\nfrobnicate x\n", "go.mod:5:1: unknown directive: frobnicate"},
	} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "go.mod"), []byte(tc.gomod), 0o644)
		os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)
		var diags diag.List
		_, ok := Load(context.Background(), dir, &diags)
		if ok || len(diags) != 1 || diags[0].Code != "bad-go-mod" || !strings.HasPrefix(diags.Render(dir), tc.want) {
			t.Errorf("got %s\nwant %s", diags.Render(dir), tc.want)
		}
	}
}

// A package no module provides is reported in the go command's words, with
// its fix, at the import, not as the type checker's "invalid package name".
func TestLoadMissingModule(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"main.go": mainGo,
		"db.go":   "package main\n\nimport _ \"modernc.org/sqlite\"\n",
	})
	var diags diag.List
	_, ok := Load(context.Background(), dir, &diags)
	got := diags.Render(dir)
	want := "db.go:3:10: no required module provides package modernc.org/sqlite\n\tto add it: go get modernc.org/sqlite (in the module root)\n"
	if ok || got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}
