package viewtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generator/diag"
	"github.com/mcpgen/mcpgen/internal/testenv"
)

const mainGo = `package main

import (
	"os"

	"github.com/mcpgen/mcpgen"
)

func main() { os.Exit(mcpgen.Main(mcpgenApp())) }
`

const toolsGo = `package main

import "context"

// GreetInput names who to greet.
type GreetInput struct {
	Name string ` + "`json:\"name\"`" + `
}

// Greeting is what greet answers.
type Greeting struct {
	Message string ` + "`json:\"message\"`" + `
}

// Greet greets someone.
//
//mcpgen:tool readonly ui=greeting
func Greet(ctx context.Context, in GreetInput) (Greeting, error) {
	return Greeting{Message: "Hello, " + in.Name + "!"}, nil
}
`

// The view misbehaves on request: a message "throw" makes it throw while
// rendering, "fetch" makes it reach the network its CSP forbids, "log" makes
// it log an error.
const viewTSX = `import { useToolData } from "mcpgen/ui";

export default function GreetingView() {
  const data = useToolData<GreetOutput>();
  if (!data) return <p>Loading…</p>;
  if (data.message === "throw") throw new Error("the greeting view broke");
  if (data.message === "fetch") void fetch("http://127.0.0.1:9/forbidden").catch(() => {});
  if (data.message === "log") console.error("the greeting view logged an error");
  return <h1 style={{ margin: 0, padding: 24, fontFamily: "sans-serif" }}>{data.message}</h1>;
}
`

// project returns a connector with one view, its node_modules linked to the
// test environment's, holding exactly the given fixtures. The tests share
// one project (go mod tidy and the first build are what cost), so they run
// one after the other and each sets its own fixtures.
func project(t *testing.T, fixtures map[string]string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a connector and runs a browser")
	}
	testenv.Chromium(t)
	nm := testenv.NodeModules(t, "react", "react-dom", "typescript", "@types/react", "@types/react-dom")
	t.Setenv("MCPGEN_NODE", testenv.Node(t))
	shared.once.Do(func() { shared.dir, shared.err = newProject(nm) })
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	dir := shared.dir
	if err := os.RemoveAll(filepath.Join(dir, "fixtures")); err != nil {
		t.Fatal(err)
	}
	for name, src := range fixtures {
		write(t, filepath.Join(dir, "fixtures", "greet", name+".json"), []byte(src))
	}
	return dir
}

var shared struct {
	once sync.Once
	dir  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

func newProject(nodeModules string) (string, error) {
	dir, err := os.MkdirTemp("", "mcpgen-viewtest-")
	if err != nil {
		return "", err
	}
	files := map[string]string{
		"go.mod":          "module example.com/greeter\n\ngo 1.26.0\n\nrequire github.com/mcpgen/mcpgen v0.0.0-00010101000000-000000000000\n\nreplace github.com/mcpgen/mcpgen => " + testenv.Root() + "\n",
		"main.go":         mainGo,
		"tools.go":        toolsGo,
		"ui/greeting.tsx": viewTSX,
		"tsconfig.json": `{"compilerOptions":{"target":"ES2020","lib":["ES2020","DOM"],"module":"ESNext",
			"moduleResolution":"Bundler","jsx":"react-jsx","strict":true,"noEmit":true,"skipLibCheck":true},"include":["ui"]}`,
	}
	for name, src := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return dir, err
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			return dir, err
		}
	}
	if err := os.Symlink(nodeModules, filepath.Join(dir, "node_modules")); err != nil {
		return dir, err
	}
	cmd := exec.Command("go", "mod", "tidy")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return dir, fmt.Errorf("go mod tidy: %v\n%s", err, out)
	}
	return dir, nil
}

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func fixtureOf(message string) string {
	return `{"input": {"name": "Ada"}, "result": {"message": "` + message + `"}}`
}

func run(t *testing.T, dir string, opts Options) (*Report, string) {
	t.Helper()
	var out bytes.Buffer
	opts.Dir, opts.Stdout, opts.Stderr = dir, &out, &out
	opts.Chrome = testenv.Chromium(t)
	opts.TypeCheck = true
	if opts.Hosts == nil {
		opts.Hosts, opts.Themes = []string{"claude"}, []string{"light"}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	rep, err := Run(ctx, opts)
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, out.String())
	}
	return rep, out.String()
}

func cases(rep *Report) map[string]*Case {
	m := map[string]*Case{}
	for i := range rep.Cases {
		m[rep.Cases[i].Name()] = &rep.Cases[i]
	}
	return m
}

// TestFixtures runs a good fixture and three that make the view misbehave:
// each bad one fails, named, with what went wrong.
func TestFixtures(t *testing.T) {
	dir := project(t, map[string]string{
		"hello":  fixtureOf("Hello, Ada!"),
		"throws": fixtureOf("throw"),
		"fetch":  fixtureOf("fetch"),
		"logs":   fixtureOf("log"),
	})
	rep, out := run(t, dir, Options{})
	got := cases(rep)
	if len(got) != 4 {
		t.Fatalf("%d cases, want 4:\n%s", len(got), out)
	}
	if c := got["greet/hello claude light"]; len(c.Failures) > 0 || c.Screenshot == "" {
		t.Errorf("hello failed: %v\n%s", c.Failures, out)
	} else if st, err := os.Stat(c.Screenshot); err != nil || st.Size() < 1000 {
		t.Errorf("screenshot %s: %v", c.Screenshot, err)
	}
	for name, want := range map[string]string{
		"greet/throws claude light": "the greeting view broke",
		"greet/fetch claude light":  "csp: ",
		"greet/logs claude light":   "console: the greeting view logged an error",
		// At their place in the view's source, through its source map.
		"greet/throws claude light ": "(at ui/greeting.tsx:6:",
		"greet/logs claude light ":   "(at ui/greeting.tsx:8:",
	} {
		name = strings.TrimSpace(name)
		c := got[name]
		if c == nil || !strings.Contains(strings.Join(c.Failures, "\n"), want) {
			t.Errorf("%s: failures %v, want one with %q\n%s", name, c.Failures, want, out)
		}
	}
	if !strings.Contains(out, "FAIL  greet/throws claude light (fixtures/greet/throws.json)") ||
		!strings.Contains(out, "the greeting view broke") {
		t.Errorf("the output does not name the failing fixture and its error:\n%s", out)
	}
	if !strings.Contains(out, "ok    greet/hello claude light") {
		t.Errorf("the output does not list the passing case:\n%s", out)
	}
}

// TestGoldens keeps screenshots with Update, matches them on the next run,
// and reports a changed view with a diff image.
func TestGoldens(t *testing.T) {
	dir := project(t, map[string]string{"hello": fixtureOf("Hello, Ada!")})
	opts := Options{Hosts: []string{"claude"}, Themes: []string{"light", "dark"}}
	opts.Update = true
	rep, out := run(t, dir, opts)
	if rep.Failed() > 0 || len(rep.Cases) != 2 {
		t.Fatalf("update run: %d of %d failed:\n%s", rep.Failed(), len(rep.Cases), out)
	}
	for _, stem := range []string{"claude-light", "claude-dark"} {
		if _, err := os.Stat(filepath.Join(dir, "fixtures", "greet", "hello."+stem+".png")); err != nil {
			t.Errorf("golden %s: %v", stem, err)
		}
	}
	light, _ := os.ReadFile(filepath.Join(dir, "fixtures", "greet", "hello.claude-light.png"))
	dark, _ := os.ReadFile(filepath.Join(dir, "fixtures", "greet", "hello.claude-dark.png"))
	if bytes.Equal(light, dark) {
		t.Error("the light and dark screenshots are the same")
	}

	opts.Update = false
	opts.Hosts, opts.Themes = []string{"claude"}, []string{"light"}
	rep, out = run(t, dir, opts)
	if c := rep.Cases[0]; len(c.Failures) > 0 || !c.Compared {
		t.Fatalf("unchanged view: failures %v, compared %v\n%s", c.Failures, c.Compared, out)
	}

	write(t, filepath.Join(dir, "fixtures", "greet", "hello.json"), []byte(fixtureOf("A much longer and different greeting, Ada!")))
	rep, out = run(t, dir, opts)
	c := rep.Cases[0]
	if len(c.Failures) == 0 || !strings.Contains(c.Failures[0], "the screenshot differs from fixtures/greet/hello.claude-light.png") {
		t.Fatalf("changed view: failures %v\n%s", c.Failures, out)
	}
	if st, err := os.Stat(c.Diff); err != nil || st.Size() < 100 {
		t.Errorf("diff image %q: %v", c.Diff, err)
	}
}

// TestBadFixtures stops before the browser with diagnostics at the file.
func TestBadFixtures(t *testing.T) {
	dir := project(t, map[string]string{"typo": `{"input": {"name": "Ada"}, "reslt": {}}`})
	write(t, filepath.Join(dir, "fixtures", "gret", "x.json"), []byte(fixtureOf("x")))
	_, err := Run(context.Background(), Options{Dir: dir, Chrome: testenv.Chromium(t)})
	var le *diag.ListError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), `fixtures/greet/typo.json:1:28: unknown fixture key "reslt"`) {
		t.Fatalf("Run = %v; want the fixture's diagnostic", err)
	}
	os.Remove(filepath.Join(dir, "fixtures", "greet", "typo.json"))
	_, err = Run(context.Background(), Options{Dir: dir, Chrome: testenv.Chromium(t)})
	if !errors.As(err, &le) || !strings.Contains(err.Error(), `fixtures/gret/x.json:1:1: fixture for tool "gret", which the connector does not have`) {
		t.Fatalf("Run = %v; want the unknown tool's diagnostic", err)
	}
}

// TestExamples runs the fixtures of every example that has some, in every
// host preset and theme, as `mcpgen test` does.
func TestExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("builds connectors and runs a browser")
	}
	testenv.Chromium(t)
	// Every example with views has fixtures.
	uis, _ := filepath.Glob(filepath.Join(testenv.Root(), "examples", "*", "ui"))
	for _, ui := range uis {
		if _, err := os.Stat(filepath.Join(filepath.Dir(ui), "fixtures")); err != nil {
			t.Errorf("examples/%s has views but no fixtures/: add fixtures/TOOL/NAME.json and run mcpgen test --update there", filepath.Base(filepath.Dir(ui)))
		}
	}
	dirs, _ := filepath.Glob(filepath.Join(testenv.Root(), "examples", "*", "fixtures"))
	if len(dirs) == 0 {
		t.Fatal("no example has fixtures")
	}
	for _, fx := range dirs {
		src := filepath.Dir(fx)
		t.Run(filepath.Base(src), func(t *testing.T) {
			dir := t.TempDir()
			if err := testenv.CopyExample(src, dir); err != nil {
				t.Fatal(err)
			}
			// A node_modules that is itself a link is not copied.
			if _, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil {
				if err := os.Symlink(filepath.Join(src, "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
					t.Fatal(err)
				}
			}
			rep, out := run(t, dir, Options{Hosts: Hosts, Themes: Themes})
			if rep.Failed() > 0 || len(rep.Cases) == 0 {
				t.Fatalf("%d of %d cases failed:\n%s", rep.Failed(), len(rep.Cases), out)
			}
			for _, c := range rep.Cases {
				if !c.Compared {
					t.Errorf("%s has no golden screenshot: run mcpgen test --update %s", c.Name(), src)
				}
			}
		})
	}
}
