package inspector_test

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/chromium"
	"github.com/mcpgen/mcpgen/internal/dev"
	"github.com/mcpgen/mcpgen/internal/testenv"
	"github.com/mcpgen/mcpgen/templates"
)

//go:embed testdata/driver.cjs
var driverSource string

// browser is one headless Chromium page driven by testdata/driver.cjs
// (playwright-core): each call sends one command and waits for its answer.
type browser struct {
	t    testing.TB
	in   io.WriteCloser
	out  *bufio.Scanner
	cmd  *exec.Cmd
	next int
}

// shared is the one browser the tests of this package share.
var shared struct {
	b    *browser
	err  error
	stop func()
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.stop != nil {
		shared.stop()
	}
	os.Exit(code)
}

// startBrowser returns the package's browser, starting it on first use.
func startBrowser(t testing.TB) *browser {
	t.Helper()
	node := testenv.Node(t)
	chrome := testenv.Chromium(t)
	nm := testenv.NodeModules(t, "playwright-core")
	if shared.b == nil && shared.err == nil {
		shared.b, shared.err = launch(node, chrome, nm)
	}
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	shared.b.t = t
	return shared.b
}

func launch(node, chrome, nm string) (*browser, error) {
	tmp, err := os.MkdirTemp("", "mcpgen-inspector-test-")
	if err != nil {
		return nil, err
	}
	script := filepath.Join(tmp, "driver.cjs")
	if err := os.WriteFile(script, []byte(driverSource), 0o644); err != nil {
		return nil, err
	}
	cfg, _ := json.Marshal(map[string]any{"chromium": chrome, "flags": chromium.Flags(), "timeoutMs": 20000})
	cmd := exec.Command(node, script, string(cfg))
	cmd.Env = append(os.Environ(), "MCPGEN_NODE_MODULES="+nm)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(outPipe)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	b := &browser{in: in, out: sc, cmd: cmd}
	shared.stop = func() {
		in.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		os.RemoveAll(tmp)
	}
	return b, nil
}

// do runs one driver command and returns its value; a failed command fails
// the test with the browser console attached.
func (b *browser) do(op string, args map[string]any) json.RawMessage {
	b.t.Helper()
	v, err := b.try(op, args)
	if err != nil {
		cons, _ := b.try("console", nil)
		b.t.Fatalf("browser %s %v: %v\nconsole:\n%s", op, args, err, consoleText(cons))
	}
	return v
}

func (b *browser) try(op string, args map[string]any) (json.RawMessage, error) {
	start := time.Now()
	defer func() {
		if d := time.Since(start); d > time.Second && os.Getenv("MCPGEN_BROWSER_DEBUG") != "" {
			fmt.Fprintf(os.Stderr, "browser %s %v took %s\n", op, args, d.Round(time.Millisecond))
		}
	}()
	b.next++
	cmd := map[string]any{"id": b.next, "op": op}
	for k, v := range args {
		cmd[k] = v
	}
	line, _ := json.Marshal(cmd)
	if _, err := b.in.Write(append(line, '\n')); err != nil {
		return nil, err
	}
	if !b.out.Scan() {
		return nil, fmt.Errorf("the driver exited: %v", b.out.Err())
	}
	var res struct {
		ID    int             `json:"id"`
		OK    bool            `json:"ok"`
		Value json.RawMessage `json:"value"`
		Error string          `json:"error"`
	}
	if err := json.Unmarshal(b.out.Bytes(), &res); err != nil {
		return nil, fmt.Errorf("driver answer %q: %v", b.out.Text(), err)
	}
	if !res.OK {
		return nil, fmt.Errorf("%s", res.Error)
	}
	return res.Value, nil
}

func (b *browser) str(op string, args map[string]any) string {
	b.t.Helper()
	var s string
	json.Unmarshal(b.do(op, args), &s)
	return s
}

// ready waits until the view holder reports status ready.
func (b *browser) ready() {
	b.t.Helper()
	b.do("waitAttr", map[string]any{"selector": "#view", "attr": "data-app-status", "value": "ready", "timeoutMs": 30000})
}

// viewVar reads a CSS variable the view's document got from its host.
func (b *browser) viewVar(name string) string {
	b.t.Helper()
	return strings.TrimSpace(b.str("frameEval", map[string]any{
		"expr": fmt.Sprintf("getComputedStyle(document.documentElement).getPropertyValue(%q)", name),
	}))
}

// consoleProblems lists console lines that show a broken page: uncaught
// errors, console errors, CSP violations.
func (b *browser) consoleProblems() []string {
	var lines []string
	json.Unmarshal(b.do("console", nil), &lines)
	var bad []string
	for _, l := range lines {
		if strings.HasPrefix(l, "pageerror:") || strings.HasPrefix(l, "error:") || strings.Contains(l, "Content Security Policy") {
			bad = append(bad, l)
		}
	}
	return bad
}

func consoleText(raw json.RawMessage) string {
	var lines []string
	json.Unmarshal(raw, &lines)
	var b strings.Builder
	for _, l := range lines {
		if strings.HasPrefix(l, "debug:") {
			continue
		}
		b.WriteString("  " + l + "\n")
	}
	return b.String()
}

// scaffold writes what `mcpgen new` writes (a tool, text_stats, with its
// view) plus a fixture, and resolves its modules.
func scaffold(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "acme")
	if _, err := templates.Write(dir, templates.Data{
		Name: "acme", Module: "example.com/acme", GoVersion: "1.26.0",
		MCPGenVersion: "v0.0.0-00010101000000-000000000000", MCPGenReplace: testenv.Root(),
		View: true,
	}); err != nil {
		t.Fatal(err)
	}
	nm := testenv.NodeModules(t, "react", "react-dom")
	if err := os.Symlink(nm, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	fixture := `{
  "input": {"text": "a fixture text", "rank": "word"},
  "result": {"characters": 14, "letters": 12, "words": 3, "sentences": 1, "paragraphs": 1,
             "averageWordLength": 4, "readingTimeSeconds": 1,
             "top": [{"unit": "fixtureword", "count": 7}]},
  "calls": {
    "text_stats": {"characters": 14, "letters": 12, "words": 3, "sentences": 1, "paragraphs": 1,
                   "averageWordLength": 4, "readingTimeSeconds": 1,
                   "top": [{"unit": "cannedletter", "count": 5}]}
  }
}
`
	if err := os.MkdirAll(filepath.Join(dir, "fixtures", "text_stats"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "fixtures", "text_stats", "sample.json"), []byte(fixture), 0o644); err != nil {
		t.Fatal(err)
	}
	tidy := exec.Command("go", "mod", "tidy")
	tidy.Dir = dir
	if out, err := tidy.CombinedOutput(); err != nil {
		t.Fatalf("go mod tidy: %v\n%s", err, out)
	}
	return dir
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startDev runs mcpgen dev on dir in-process and returns the inspector's
// URL and the rebuild events.
func startDev(t testing.TB, dir string) (string, chan dev.Event) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{}
	events := make(chan dev.Event, 64)
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- dev.Run(ctx, dev.Options{
			Dir: dir, Addr: "127.0.0.1:0", Stdout: out, Stderr: out,
			Ready:  func(u string) { ready <- u },
			Events: func(e dev.Event) { events <- e },
		})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Errorf("mcpgen dev did not stop")
		}
		if t.Failed() {
			t.Logf("mcpgen dev output:\n%s", out.String())
		}
	})
	select {
	case u := <-ready:
		return strings.TrimSuffix(u, "mcp"), events
	case err := <-done:
		t.Fatalf("dev.Run: %v", err)
	case <-time.After(4 * time.Minute): // a cold build cache compiles the go-sdk first
		t.Fatalf("mcpgen dev did not get ready:\n%s", out.String())
	}
	return "", nil
}

func waitEvent(t testing.TB, events chan dev.Event, kind string, ok bool) {
	t.Helper()
	timeout := time.After(3 * time.Minute)
	for {
		select {
		case e := <-events:
			if e.Kind == kind {
				if e.OK != ok {
					t.Fatalf("%s rebuild: ok = %v, want %v", kind, e.OK, ok)
				}
				return
			}
		case <-timeout:
			t.Fatalf("no %s rebuild", kind)
		}
	}
}

func edit(t testing.TB, dir, file, old, new string) {
	t.Helper()
	p := filepath.Join(dir, file)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s does not contain %q", file, old)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestInspectorDrivesDevSession drives the inspector of a real mcpgen dev
// session on a scaffolded project in headless Chromium: choose a tool, fill
// its form, call it, see its view under each host preset, switch theme and
// display mode, render a fixture, edit the view on disk and see the open
// view re-render, see a build error overlay and its recovery.
func TestInspectorDrivesDevSession(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a connector and runs Chromium")
	}
	dir := scaffold(t)
	b := startBrowser(t)
	b.do("clearConsole", nil)
	base, events := startDev(t, dir)
	// Leave the page before mcpgen dev stops: its event streams would hold it.
	t.Cleanup(func() { b.try("goto", map[string]any{"url": "about:blank"}) })
	shots := os.Getenv("MCPGEN_INSPECTOR_SCREENSHOTS") // write the docs' screenshots there
	if shots != "" {
		b.do("viewport", map[string]any{"width": 1440, "height": 1280})
	}

	// Choose the tool, fill the form, call.
	b.do("goto", map[string]any{"url": base})
	b.do("click", map[string]any{"name": "text_stats"})
	b.do("fill", map[string]any{"label": "text", "value": "the cat saw the other cat and the dog"})
	// The form shows the fields in the order they are declared in Go.
	order := b.str("eval", map[string]any{"expr": `[...document.querySelectorAll("form .fname, .fname")].map((e) => e.textContent).filter((n, i, all) => all.indexOf(n) === i).join(" ")`})
	if order != "text rank top filter" {
		t.Errorf("the form lists text_stats's fields as %q, want the declaration order text rank top filter", order)
	}
	b.do("select", map[string]any{"label": "rank", "value": `"word"`})
	b.do("fill", map[string]any{"label": "top", "value": "3"})
	b.do("click", map[string]any{"name": "Call"})
	b.ready()
	text := b.str("frameText", nil)
	if !strings.Contains(text, "Top words") || !strings.Contains(text, "the") || strings.Contains(text, "dog") {
		t.Fatalf("the view shows (top 3 words of the text expected):\n%s", text)
	}
	if cls := b.str("attr", map[string]any{"selector": "#view", "attr": "class"}); !strings.Contains(cls, "bordered") {
		t.Errorf("the view declares prefersBorder (//mcpgen:view border) but its holder has class %q", cls)
	}
	loc := b.str("eval", map[string]any{"expr": "location.search"})
	q, _ := url.ParseQuery(strings.TrimPrefix(loc, "?"))
	if q.Get("tool") != "text_stats" || !strings.Contains(q.Get("input"), `"top":3`) {
		t.Errorf("the page's URL is not a deep link to the call: %s", loc)
	}

	// Host presets, live: the view gets each host's theme variables.
	radius := map[string]string{}
	for _, host := range []string{"chatgpt", "claude"} {
		b.do("select", map[string]any{"label": "Host", "value": host})
		for _, theme := range []string{"dark", "light"} {
			b.do("select", map[string]any{"label": "Theme", "value": theme})
			b.do("waitAttr", map[string]any{"selector": "#view", "attr": "data-theme", "value": theme})
			deadline := time.Now().Add(10 * time.Second)
			for b.str("frameEval", map[string]any{"expr": "document.documentElement.dataset.theme || ''"}) != theme {
				if time.Now().After(deadline) {
					t.Fatalf("%s: the view's theme did not become %s", host, theme)
				}
				time.Sleep(100 * time.Millisecond)
			}
			if shots != "" {
				b.do("screenshot", map[string]any{"path": filepath.Join(shots, fmt.Sprintf("inspector-%s-%s.png", host, theme))})
			}
		}
		radius[host] = b.viewVar("--border-radius-md")
	}
	if radius["claude"] == "" || radius["claude"] == radius["chatgpt"] {
		t.Errorf("the presets gave the view the same --border-radius-md: %v", radius)
	}

	// Display modes: the view learns of fullscreen, and asks for inline back.
	b.do("select", map[string]any{"label": "Display mode", "value": "fullscreen"})
	b.do("waitFrameText", map[string]any{"text": "Exit full screen"})
	b.do("click", map[string]any{"frame": true, "name": "Exit full screen"})
	b.do("waitAttr", map[string]any{"selector": "#view", "attr": "data-mode", "value": "inline"})
	b.do("waitFrameText", map[string]any{"text": "Full screen"})
	b.do("select", map[string]any{"label": "Display mode", "value": "pip"})
	b.do("waitAttr", map[string]any{"selector": "#view", "attr": "data-mode", "value": "pip"})
	b.do("select", map[string]any{"label": "Display mode", "value": "inline"})

	// Edit the view on disk: the open view re-renders with the same data.
	edit(t, dir, "ui/stats.tsx", "<h2>Top {ranks[rank]}</h2>", "<h2>Most frequent {ranks[rank]}</h2>")
	waitEvent(t, events, "views", true)
	b.do("waitFrameText", map[string]any{"text": "Most frequent words"})
	b.ready()
	if text := b.str("frameText", nil); !strings.Contains(text, "cat") {
		t.Errorf("the re-rendered view lost the call's data:\n%s", text)
	}

	// A bundle error: an overlay at file:line:col until it is fixed.
	edit(t, dir, "ui/stats.tsx", "<h2>Most frequent", "<h2>Most frequent {")
	waitEvent(t, events, "views", false)
	b.do("waitText", map[string]any{"text": "Build failed"})
	overlay := b.str("eval", map[string]any{"expr": "document.querySelector('.overlay').innerText"})
	if !strings.Contains(overlay, "ui/stats.tsx:") {
		t.Errorf("the overlay does not name the file:\n%s", overlay)
	}
	edit(t, dir, "ui/stats.tsx", "<h2>Most frequent {", "<h2>Most often seen")
	waitEvent(t, events, "views", true)
	b.do("waitGone", map[string]any{"selector": ".overlay"})
	b.do("waitFrameText", map[string]any{"text": "Most often seen words"})

	// A type error in the view: the view bundles and serves as it is, and
	// the overlay says so (not that the last good build serves).
	edit(t, dir, "ui/stats.tsx", "<h2>Most often seen", "<h2>{((n: string) => n)(7)}Typed")
	waitEvent(t, events, "views", true)
	b.do("waitFrameText", map[string]any{"text": "7Typed words"})
	b.do("waitText", map[string]any{"text": "Type errors in the views", "timeoutMs": 90000})
	overlay = b.str("eval", map[string]any{"expr": "document.querySelector('.overlay').innerText"})
	if !strings.Contains(overlay, "ui/stats.tsx:") || !strings.Contains(overlay, "still serve") || strings.Contains(overlay, "last good build") {
		t.Errorf("the overlay of a view's type error:\n%s", overlay)
	}
	edit(t, dir, "ui/stats.tsx", "<h2>{((n: string) => n)(7)}Typed", "<h2>Most often seen")
	waitEvent(t, events, "views", true)
	b.do("waitGone", map[string]any{"selector": ".overlay", "timeoutMs": 90000})

	// A compile error in Go: the same overlay, with the Go position.
	edit(t, dir, "textstats.go", "func TextStats(", "func TextStats(brokenParam undefinedType, ")
	waitEvent(t, events, "go", false)
	b.do("waitText", map[string]any{"text": "Build failed"})
	overlay = b.str("eval", map[string]any{"expr": "document.querySelector('.overlay').innerText"})
	if !strings.Contains(overlay, "last good build keeps serving") {
		t.Errorf("the overlay of a compile error does not say the last good build serves:\n%s", overlay)
	}
	if !strings.Contains(overlay, "textstats.go:") || !strings.Contains(overlay, "undefinedType") {
		t.Errorf("the overlay does not show the compile error:\n%s", overlay)
	}
	edit(t, dir, "textstats.go", "func TextStats(brokenParam undefinedType, ", "func TextStats(")
	waitEvent(t, events, "go", true)
	b.do("waitGone", map[string]any{"selector": ".overlay"})

	// A fixture: rendered without calling the handler; the view's own
	// calls get the fixture's canned answers.
	b.do("goto", map[string]any{"url": base + "?tool=text_stats&fixture=sample&host=chatgpt&theme=dark"})
	b.ready()
	b.do("waitFrameText", map[string]any{"text": "fixtureword"})
	b.do("click", map[string]any{"frame": true, "name": "letters"})
	b.do("waitFrameText", map[string]any{"text": "cannedletter"})

	// A deep link calls the tool by itself.
	in := url.QueryEscape(`{"text":"deep deep link"}`)
	b.do("goto", map[string]any{"url": base + "?tool=text_stats&input=" + in + "&call=1&host=claude&theme=light&mode=inline"})
	b.ready()
	b.do("waitFrameText", map[string]any{"text": "deep"})

	if bad := b.consoleProblems(); len(bad) > 0 {
		t.Errorf("the browser console reports problems:\n%s", strings.Join(bad, "\n"))
	}
	// The protocol panel saw both conversations.
	var n struct{ Server, View int }
	json.Unmarshal(b.do("eval", map[string]any{"expr": `(() => { const p = window.__mcpgenInspector.protocol; return {server: p.filter(e => e.channel === "server").length, view: p.filter(e => e.channel === "view").length}; })()`}), &n)
	if n.Server == 0 || n.View == 0 {
		t.Errorf("the protocol log has %d server and %d view messages", n.Server, n.View)
	}
}

// TestAppTypes type-checks the inspector's TypeScript source (esbuild, which
// bundles it, only strips the types).
func TestAppTypes(t *testing.T) {
	node := testenv.Node(t)
	dir := filepath.Join(testenv.Root(), "internal", "inspector", "app")
	tsc := filepath.Join(dir, "node_modules", "typescript", "bin", "tsc")
	if _, err := os.Stat(tsc); err != nil {
		msg := "internal/inspector/app/node_modules lacks typescript; run scripts/setup.sh"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	cmd := exec.Command(node, tsc, "-p", "tsconfig.json")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tsc: %v\n%s", err, out)
	}
}
