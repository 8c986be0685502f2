package dev_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/pipeline"
	"github.com/mcpgen/mcpgen/internal/testenv"
	"github.com/mcpgen/mcpgen/templates"
)

// helloGo is the tool a user adds to a fresh project, linked to a view.
const helloGo = `package main

import "context"

// HelloInput says whom to greet.
type HelloInput struct {
	// Name is who to greet.
	Name string ` + "`json:\"name\"`" + `
}

// Hello greets someone and shows the greeting card.
//
//mcpgen:tool readonly closedworld ui=card
func Hello(ctx context.Context, in HelloInput) (string, error) {
	return "hello " + in.Name + " v1", nil
}
`

const cardTSX = `import { useToolData } from "mcpgen/ui";

export default function Card() {
  const data = useToolData<unknown>();
  return <div className="card">card v1 {data ? "with data" : "waiting"}</div>;
}
`

// scaffold writes what `mcpgen new` writes, plus a tool with a view, and
// resolves its modules.
func scaffold(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "devdemo")
	if _, err := templates.Write(dir, templates.Data{
		Name: "devdemo", Module: "example.com/devdemo", GoVersion: "1.26.0",
		MCPGenVersion: "v0.0.0-00010101000000-000000000000", MCPGenReplace: testenv.Root(),
		View: true,
	}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hello.go"), []byte(helloGo), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "ui"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ui", "card.tsx"), []byte(cardTSX), 0o644); err != nil {
		t.Fatal(err)
	}
	// What `npm install` would put there: React for the views.
	nm := testenv.NodeModules(t, "react", "react-dom")
	if err := os.Symlink(nm, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	tidy := exec.Command("go", "mod", "tidy")
	tidy.Dir = dir
	if out, err := tidy.CombinedOutput(); err != nil {
		t.Fatalf("go mod tidy: %v\n%s", err, out)
	}
	return dir
}

// TestScaffoldSessionSurvivesEdits runs mcpgen dev on a scaffolded
// connector (generator, runtime and bundler all real) while one client
// session edits through a view change, a handler change, a generator
// diagnostic, a compile error and their fixes.
func TestScaffoldSessionSurvivesEdits(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a connector")
	}
	dir := scaffold(t)
	ds := startDev(t, dir, nil)
	n := newNotes()
	cs := connect(t, ds.url, n)
	sid := cs.ID()
	ctx := context.Background()

	hello := tool(t, cs, "hello")
	uri1 := viewURI(t, hello)
	if !strings.HasPrefix(uri1, "ui://card/") {
		t.Fatalf("hello links %q", uri1)
	}
	if got := readText(t, cs, uri1); !strings.Contains(got, "card v1") {
		t.Fatalf("view lacks card v1")
	}
	if got := callText(t, cs, "hello", map[string]any{"name": "ada"}); got != "hello ada v1" {
		t.Fatalf("hello = %q", got)
	}
	// Lint findings are warnings in dev's output (hello's doc comment opens
	// with its Go name); they do not stop the build.
	if out := ds.out.String(); !strings.Contains(out, "hello.go:11:4: warning: the description of tool hello opens with the Go name Hello") || !strings.Contains(out, "[DESC005 description-go-identifier]") {
		t.Errorf("dev does not show the lint finding:\n%s", out)
	}
	// The input schema keeps the order the fields are declared in (text,
	// rank, top, filter), which hosts and the inspector's form show.
	if keys := propertyOrder(t, ds.url, "text_stats"); strings.Join(keys, " ") != "text rank top filter" {
		t.Errorf("text_stats's input properties come in the order %v, want text rank top filter", keys)
	}
	// The scaffold's own tool and view are served too.
	if u := viewURI(t, tool(t, cs, "text_stats")); !strings.HasPrefix(u, "ui://stats/") {
		t.Fatalf("text_stats links %q", u)
	}

	// View edit: swapped in the front, no rebuild of the connector.
	n.drain()
	edit(t, dir, "ui/card.tsx", "card v1", "card v2")
	if e := ds.wait(t, "views"); !e.OK {
		t.Fatalf("view rebuild failed")
	}
	expect(t, n.resources, "resources/list_changed after a view edit")
	expect(t, n.tools, "tools/list_changed after a view edit")
	uri2 := viewURI(t, tool(t, cs, "hello"))
	if uri2 == uri1 {
		t.Fatalf("the view URI did not change")
	}
	if got := readText(t, cs, uri2); !strings.Contains(got, "card v2") {
		t.Fatalf("new view lacks card v2")
	}

	// Handler edit: a new input field and a new result.
	n.drain()
	edit(t, dir, "hello.go", "Name string `json:\"name\"`",
		"Name string `json:\"name\"`\n\t// Loud shouts the greeting.\n\tLoud bool `json:\"loud,omitempty\"`")
	edit(t, dir, "hello.go", `" v1"`, `" v2"`)
	if e := ds.wait(t, "go"); !e.OK {
		t.Fatalf("rebuild failed")
	}
	expect(t, n.tools, "tools/list_changed after a handler edit")
	// The lint findings did not change, so they are not printed again.
	if out := ds.out.String(); strings.Count(out, "opens with the Go name Hello") != 1 || !strings.Contains(out, "lint warnings as before") {
		t.Errorf("dev printed unchanged lint findings again, or did not say they are as before:\n%s", out)
	}
	if _, ok := schemaProps(t, tool(t, cs, "hello"))["loud"]; !ok {
		t.Fatalf("hello's schema has no loud")
	}
	if got := callText(t, cs, "hello", map[string]any{"name": "ada", "loud": true}); got != "hello ada v2" {
		t.Fatalf("hello = %q", got)
	}
	if got := viewURI(t, tool(t, cs, "hello")); got != uri2 {
		t.Fatalf("view link after a Go edit = %q, want %q", got, uri2)
	}

	// A generator diagnostic: a misspelt option, reported at its position.
	edit(t, dir, "hello.go", "//mcpgen:tool readonly closedworld", "//mcpgen:tool readonyl closedworld")
	if e := ds.wait(t, "go"); e.OK {
		t.Fatal("a misspelt option built")
	}
	if out := ds.out.String(); !strings.Contains(out, "hello.go:") || !strings.Contains(out, "readonyl") {
		t.Fatalf("the diagnostic is missing:\n%s", out)
	}
	edit(t, dir, "hello.go", "readonyl", "readonly")
	if e := ds.wait(t, "go"); !e.OK {
		t.Fatal("the fix did not build")
	}

	// A compile error, then its fix; the last good build serves meanwhile.
	edit(t, dir, "hello.go", `" v2"`, `" v2" + undefinedThing`)
	if e := ds.wait(t, "go"); e.OK {
		t.Fatal("a compile error built")
	}
	if out := ds.out.String(); !strings.Contains(out, "hello.go:") || !strings.Contains(out, "undefinedThing") {
		t.Fatalf("the compile error is missing:\n%s", out)
	}
	if got := callText(t, cs, "hello", map[string]any{"name": "bob"}); got != "hello bob v2" {
		t.Fatalf("hello while broken = %q", got)
	}
	edit(t, dir, "hello.go", `" v2" + undefinedThing`, `" v3"`)
	if e := ds.wait(t, "go"); !e.OK {
		t.Fatal("the fix did not build")
	}
	if got := callText(t, cs, "hello", map[string]any{"name": "cy"}); got != "hello cy v3" {
		t.Fatalf("hello after the fix = %q", got)
	}
	if cs.ID() != sid {
		t.Fatalf("session id changed")
	}
	if err := cs.Ping(ctx, nil); err != nil {
		t.Fatalf("session lost: %v", err)
	}
	// The connector's request log shows the host's calls, not the
	// front's own requests (its lists and the set-up of its sessions),
	// which would add lines on every rebuild.
	out := ds.out.String()
	if !strings.Contains(out, "msg=request method=tools/call tool=hello") {
		t.Errorf("the output lacks the request log line of the host's call:\n%s", out)
	}
	for _, m := range []string{"initialize", "tools/list", "resources/list", "resources/templates/list", "prompts/list", "logging/setLevel"} {
		if strings.Contains(out, "msg=request method="+m+" ") {
			t.Errorf("the output logs the front's own %s requests:\n%s", m, out)
			break
		}
	}

	// A last edit to a view only: swapped in the front, and the generated
	// views file on disk follows.
	edit(t, dir, "ui/card.tsx", "card v2", "card v4")
	if e := ds.wait(t, "views"); !e.OK {
		t.Fatalf("view rebuild failed")
	}

	// A dev session leaves the generated files mcpgen generate would write.
	rep, err := pipeline.Generate(ctx, pipeline.Options{Dir: dir, Minify: true}, pipeline.GenerateOptions{Check: true})
	if err != nil {
		t.Fatalf("generate --check after the dev session: %v", err)
	}
	if len(rep.Changed) > 0 {
		t.Fatalf("after the dev session, mcpgen generate --check reports stale files: %v", rep.Changed)
	}
}
