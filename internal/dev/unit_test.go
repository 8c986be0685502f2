package dev

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generator/diag"
	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/internal/dev/front"
	"github.com/mcpgen/mcpgen/internal/dev/watch"
	"github.com/mcpgen/mcpgen/internal/testenv"
)

func TestRequires(t *testing.T) {
	block := "module x\n\nrequire (\n\tgithub.com/mcpgen/mcpgen v0.1.0\n\tgithub.com/y v1.0.0\n)\n"
	one := "module x\nrequire github.com/mcpgen/mcpgen v0.1.0 // indirect\n"
	none := "module x\nrequire github.com/mcpgen/mcpgenx v0.1.0\n// github.com/mcpgen/mcpgen\n"
	if !requires(block, mcpgenModule) || !requires(one, mcpgenModule) || requires(none, mcpgenModule) {
		t.Errorf("requires: block %v one %v none %v", requires(block, mcpgenModule), requires(one, mcpgenModule), requires(none, mcpgenModule))
	}
}

func TestParseGoErrors(t *testing.T) {
	out := "# example.com/acme\n./hello.go:17:38: undefined: undefinedThing\n./orders/db.go:3:2: \"fmt\" imported and not used\n\thave (int)\n"
	l := parseGoErrors("/p", out)
	got := l.Render("/p")
	want := "hello.go:17:38: undefined: undefinedThing\norders/db.go:3:2: \"fmt\" imported and not used\n\thave (int)\n"
	if got != want {
		t.Errorf("rendered:\n%s\nwant:\n%s", got, want)
	}
	// The unpositioned copy of the same lines is dropped.
	var all diag.List
	all.Errorf(diag.Pos{File: "/p"}, "go", "", "%s", "# example.com/acme\n./hello.go:17:38: undefined: undefinedThing")
	all.Errorf(diag.Pos{File: "/p/hello.go", Line: 17, Col: 38}, "go", "", "undefined: undefinedThing")
	if d := dedupe("/p", all); len(d) != 1 || d[0].Pos.Line != 17 {
		t.Errorf("dedupe kept %v", d)
	}
}

func TestSkeleton(t *testing.T) {
	base := "package main\n\n// Hello greets.\n//\n//mcpgen:tool readonly\nfunc Hello(ctx context.Context, in In) (string, error) {\n\treturn \"v1\", nil\n}\n\ntype In struct{ Name string }\n"
	same := strings.Replace(base, `return "v1", nil`, "// a comment\n\tx := 1\n\t_ = x\n\treturn \"v2\", nil", 1)
	if string(skeleton([]byte(base))) != string(skeleton([]byte(same))) {
		t.Errorf("a body edit changed the skeleton:\n%s\n%s", skeleton([]byte(base)), skeleton([]byte(same)))
	}
	for _, changed := range []string{
		strings.Replace(base, "// Hello greets.", "// Hello greets warmly.", 1),
		strings.Replace(base, "readonly", "idempotent", 1),
		strings.Replace(base, "in In)", "in *In)", 1),
		strings.Replace(base, "Name string", "Name, Nick string", 1),
		base + "\nconst Extra = 1\n",
		strings.Replace(base, "}\n\ntype", "\ntype", 1), // does not parse: kept whole
	} {
		if string(skeleton([]byte(base))) == string(skeleton([]byte(changed))) {
			t.Errorf("an edit outside bodies kept the skeleton:\n%s", changed)
		}
	}
}

// TestTypeCheckWaitsForDeclarations: views saved together with Go are not
// type-checked until the Go build, which regenerates ui/mcpgen.d.ts, has
// ended (against the old declarations tsc would report errors the build is
// about to fix); a view saved alone is checked at once.
func TestTypeCheckWaitsForDeclarations(t *testing.T) {
	if testing.Short() {
		t.Skip("bundles views and runs tsc")
	}
	dir := t.TempDir()
	src := filepath.Join("testdata", "plain")
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(testenv.NodeModules(t, "react", "react-dom", "typescript"), filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tsconfig.json"), []byte(`{"compilerOptions":{"target":"ES2020",
		"lib":["ES2020","DOM"],"module":"ESNext","moduleResolution":"Bundler","jsx":"react-jsx","strict":true,
		"noEmit":true,"skipLibCheck":true},"include":["ui"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := newRunner(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r.rebuildViews(ctx, watch.Batch{Kind: watch.View}, true)

	// A view and Go saved together: the views are swapped in, the check
	// waits for the build.
	r.rebuildViews(ctx, watch.Batch{Kind: watch.View | watch.Go, Files: []string{"main.go", "ui/card.tsx"}}, false)
	if r.types.busy {
		t.Fatal("the views' type check started before the Go build that regenerates ui/mcpgen.d.ts")
	}
	// The build ends (here failing): the check runs now.
	r.startBuild(ctx, watch.Batch{Kind: watch.Go}).cancel()
	if r.checkTypes(ctx); r.types.busy {
		t.Fatal("a type check started while a Go build runs")
	}
	r.finishBuild(ctx, &buildJob{cancel: func() {}, start: time.Now()},
		diag.List{{Severity: diag.Error, Message: "undefined: x", Pos: diag.Pos{File: filepath.Join(dir, "main.go"), Line: 1, Col: 1}}})
	if !r.types.busy {
		t.Fatal("the deferred type check did not run when the build ended")
	}
	if res := <-r.types.done; res.err != nil {
		t.Fatal(res.err)
	}
	r.types.busy = false

	// A view alone: checked at once.
	r.rebuildViews(ctx, watch.Batch{Kind: watch.View, Files: []string{"ui/card.tsx"}}, false)
	if !r.types.busy {
		t.Fatal("a view saved alone was not type-checked")
	}
	<-r.types.done
}

// TestFingerprintProjectFile: an edit of mcpgen.json (what the generated
// App says about the connector) regenerates, like an edit outside a body.
func TestFingerprintProjectFile(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module x\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "mcpgen.json"), []byte(`{"title": "A"}`), 0o644)
	var s skeletons
	before, err := s.fingerprint(dir)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "mcpgen.json"), []byte(`{"title": "Bee"}`), 0o644)
	after, err := s.fingerprint(dir)
	if err != nil {
		t.Fatal(err)
	}
	if before == after {
		t.Error("editing mcpgen.json kept the fingerprint")
	}
}

// The line a view swap prints names what changed: a rebundled view by its
// new URI, an added one too, a deleted one by its name — never an arrow
// pointing at nothing.
func TestViewSwapLine(t *testing.T) {
	card := ir.View{Name: "card", URI: "ui://card/new", HTML: "<p>"}
	chart := ir.View{Name: "chart", URI: "ui://chart/1", HTML: "<p>"}
	for _, tc := range []struct {
		name   string
		views  []ir.View
		before []string
		old    []string
		want   string
	}{
		{"rebundled", []ir.View{card}, []string{"card"}, []string{"ui://card/old"}, "✓ view rebundled in 17ms → ui://card/new (3 B)"},
		{"removed", []ir.View{card}, []string{"card", "stats"}, []string{"ui://stats/x"}, "✓ view stats removed in 17ms"},
		{"added", []ir.View{card, chart}, []string{"card"}, nil, "✓ view added in 17ms → ui://chart/1 (3 B)"},
		{"both", []ir.View{chart}, []string{"card", "chart"}, []string{"ui://card/new", "ui://chart/0"}, "✓ views rebundled in 17ms → ui://chart/1 (3 B); removed card"},
		{"unchanged", []ir.View{card}, []string{"card"}, nil, "✓ views rebundled in 17ms, unchanged output"},
	} {
		var out strings.Builder
		tm := &term{w: &out, errw: &out}
		tm.viewSwap(tc.views, tc.before, tc.old, front.Changes{}, 17*time.Millisecond)
		_, got, _ := strings.Cut(strings.TrimSpace(out.String()), " ")
		if got != tc.want {
			t.Errorf("%s: got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}
