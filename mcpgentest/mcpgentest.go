// Package mcpgentest tests an mcpgen connector from its own `go test`: it
// serves the generated App in memory and connects a real MCP client (the Go
// SDK's) to it, and it renders the connector's views in headless Chromium
// through the mcpgen inspector — the official MCP Apps host bridge, with the
// Claude or ChatGPT preset, light or dark — from a fixture
// (fixtures/TOOL/NAME.json) or from a live call, so a test can assert on
// what a view shows:
//
//	func TestStatsView(t *testing.T) {
//		c := mcpgentest.New(t, mcpgenApp())
//		res := c.CallTool("text_stats", map[string]any{"text": "One. Two."})
//		if res.IsError { t.Fatal(mcpgentest.Text(res)) }
//
//		v := c.RenderFixture("text_stats", "default", mcpgentest.Theme("dark"))
//		if !strings.Contains(v.Text(), "Sentences") { t.Errorf("view shows %q", v.Text()) }
//		v.Screenshot() // PNG of the view as the host shows it
//	}
//
// A task tool (//mcpgen:tool task) runs as a task with CallTask, whose
// Task is polled, waited for, answered or cancelled as a host does.
//
// A view that throws, logs an error, breaks its Content-Security-Policy or
// never becomes ready fails the test. Rendering needs Chromium (chromium,
// chromium-browser or google-chrome on PATH, or $MCPGEN_CHROME): without
// it the test is skipped, or fails when the environment variable CI is set.
package mcpgentest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpgen/mcpgen/connector"
	"github.com/mcpgen/mcpgen/internal/browser"
	"github.com/mcpgen/mcpgen/internal/fixture"
	"github.com/mcpgen/mcpgen/internal/inspector"
)

// Connector is a connector under test: the server of its App, a client
// session to it, and (once a view is rendered) a browser.
type Connector struct {
	t       testing.TB
	srv     *connector.Server
	session *mcp.ClientSession
	dir     string
	timeout time.Duration

	once    sync.Once
	browser *browser.Browser
	base    string // the inspector's origin
	err     error
	skip    string
	closeFn func()

	// The HTTP endpoint tasks are called on (task.go).
	httpOnce sync.Once
	mcpURL   string
	nextID   atomic.Int64
}

// Option configures New.
type Option func(*Connector)

// Dir sets the connector's module root, where fixtures/ is (default: the
// test's working directory, which for package main is the module root).
func Dir(dir string) Option { return func(c *Connector) { c.dir = dir } }

// Timeout bounds the wait for a view to become ready, and for a task to
// end or reach the status Task.WaitFor waits for (default 20s).
func Timeout(d time.Duration) Option { return func(c *Connector) { c.timeout = d } }

// New serves app (the generated mcpgenApp()) in memory and connects a
// client to it; everything is closed when the test ends.
func New(t testing.TB, app *connector.App, opts ...Option) *Connector {
	t.Helper()
	c := &Connector{t: t, dir: ".", timeout: 20 * time.Second}
	for _, o := range opts {
		o(c)
	}
	srv, err := connector.NewServer(app, connector.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatalf("mcpgentest: %v", err)
	}
	c.srv = srv
	ctx := context.Background()
	clientT, serverT := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, serverT, nil)
	if err != nil {
		t.Fatalf("mcpgentest: connecting the server: %v", err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "mcpgentest", Version: "v1"}, nil).Connect(ctx, clientT, nil)
	if err != nil {
		t.Fatalf("mcpgentest: connecting the client: %v", err)
	}
	c.session = cs
	t.Cleanup(func() { cs.Close() })
	t.Cleanup(c.close)
	return c
}

// Session is the MCP client session, for anything beyond CallTool.
func (c *Connector) Session() *mcp.ClientSession { return c.session }

// Server is the connector's server.
func (c *Connector) Server() *connector.Server { return c.srv }

// CallTool calls a tool as a host does (arguments validated against its
// schema). A protocol error fails the test; a tool error is a result with
// IsError set.
func (c *Connector) CallTool(name string, args any) *mcp.CallToolResult {
	c.t.Helper()
	res, err := c.session.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		c.t.Fatalf("mcpgentest: calling %s: %v", name, err)
	}
	return res
}

// Text joins the text content of a result.
func Text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// Decode decodes a result's structuredContent into v (a pointer); a result
// without one fails the test.
func Decode(t testing.TB, res *mcp.CallToolResult, v any) {
	t.Helper()
	if res.StructuredContent == nil {
		t.Fatalf("mcpgentest: the result has no structuredContent: %s", Text(res))
	}
	b, err := json.Marshal(res.StructuredContent)
	if err == nil {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		t.Fatalf("mcpgentest: decoding structuredContent: %v", err)
	}
}

// ViewOption chooses how a view is shown.
type ViewOption func(*url.Values)

// Host chooses the host preset: "claude" (default) or "chatgpt".
func Host(name string) ViewOption { return func(q *url.Values) { q.Set("host", name) } }

// Theme chooses "light" (default) or "dark".
func Theme(name string) ViewOption { return func(q *url.Values) { q.Set("theme", name) } }

// DisplayMode chooses "inline" (default), "fullscreen" or "pip".
func DisplayMode(mode string) ViewOption { return func(q *url.Values) { q.Set("mode", mode) } }

// Width chooses the host's container width: "desktop" (default),
// "tablet" or "mobile", as in the inspector.
func Width(name string) ViewOption { return func(q *url.Values) { q.Set("width", name) } }

// RenderFixture shows fixtures/TOOL/NAME.json: the fixture's input and
// result go to the tool's view without calling the handler.
func (c *Connector) RenderFixture(tool, name string, opts ...ViewOption) *View {
	c.t.Helper()
	fxs, diags := fixture.Load(c.dir)
	if diags.HasErrors() {
		c.t.Fatalf("mcpgentest: fixtures:\n%s", diags.Render(c.absDir()))
	}
	found := false
	for _, fx := range fxs {
		found = found || (fx.Tool == tool && fx.Name == name)
	}
	if !found {
		c.t.Fatalf("mcpgentest: no fixture %s in %s", filepath.Join(fixture.Dir, tool, name+".json"), c.absDir())
	}
	q := url.Values{"tool": {tool}, "fixture": {name}}
	return c.render(q, tool+"/"+name, opts)
}

// Render calls the tool with args and shows its view with the result.
func (c *Connector) Render(tool string, args any, opts ...ViewOption) *View {
	c.t.Helper()
	in, err := json.Marshal(args)
	if err != nil {
		c.t.Fatalf("mcpgentest: arguments of %s: %v", tool, err)
	}
	q := url.Values{"tool": {tool}, "input": {string(in)}, "call": {"1"}}
	return c.render(q, tool, opts)
}

func (c *Connector) render(q url.Values, what string, opts []ViewOption) *View {
	c.t.Helper()
	q.Set("host", "claude")
	q.Set("theme", "light")
	for _, o := range opts {
		o(&q)
	}
	c.once.Do(c.start)
	if c.skip != "" {
		if os.Getenv("CI") != "" {
			c.t.Fatalf("mcpgentest: %s", c.skip)
		}
		c.t.Skipf("mcpgentest: %s", c.skip)
	}
	if c.err != nil {
		c.t.Fatalf("mcpgentest: %v", c.err)
	}
	ctx := context.Background()
	bv, err := c.browser.Open(ctx, c.base+"/?"+q.Encode(), c.timeout)
	if err != nil {
		c.t.Fatalf("mcpgentest: rendering %s: %v", what, err)
	}
	c.t.Cleanup(bv.Close)
	v := &View{t: c.t, v: bv, timeout: c.timeout}
	switch bv.Status {
	case browser.StatusTimeout:
		c.t.Fatalf("mcpgentest: the view of %s never became ready within %s%s", what, c.timeout, problems(bv))
	case browser.StatusError:
		c.t.Fatalf("mcpgentest: the view of %s failed to load: %s%s", what, bv.Error, problems(bv))
	}
	if p := problems(bv); p != "" {
		c.t.Errorf("mcpgentest: the view of %s went wrong:%s", what, p)
	}
	return v
}

func problems(v *browser.View) string {
	var b strings.Builder
	for _, p := range v.Problems() {
		b.WriteString("\n\t" + p.String())
	}
	return b.String()
}

func (c *Connector) absDir() string {
	abs, err := filepath.Abs(c.dir)
	if err != nil {
		return c.dir
	}
	return abs
}

// start serves the inspector around the connector's HTTP handler and
// launches the browser, once per Connector.
func (c *Connector) start() {
	exe, err := browser.Find()
	if err != nil {
		c.skip = err.Error()
		return
	}
	insp, err := inspector.New(inspector.Options{MCP: c.srv.Handler(), ProjectDir: c.absDir(), Log: log.New(io.Discard, "", 0)})
	if err != nil {
		c.err = fmt.Errorf("starting the inspector: %w", err)
		return
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		insp.Close()
		c.err = err
		return
	}
	hs := &http.Server{Handler: insp, ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	c.base = "http://" + ln.Addr().String()
	b, err := browser.Launch(context.Background(), browser.Options{Exec: exe})
	if err != nil {
		hs.Close()
		insp.Close()
		c.err = err
		return
	}
	c.browser = b
	prev := c.closeFn
	c.closeFn = func() {
		b.Close()
		hs.Close()
		insp.Close()
		if prev != nil {
			prev()
		}
	}
}

func (c *Connector) close() {
	if c.closeFn != nil {
		c.closeFn()
	}
}

// View is a rendered view.
type View struct {
	t       testing.TB
	v       *browser.View
	timeout time.Duration
}

// Click clicks the first element of the view that matches the CSS
// selector; none fails the test.
func (v *View) Click(selector string) {
	v.t.Helper()
	sel, _ := json.Marshal(selector)
	if got := v.Eval(`(() => { const e = document.querySelector(` + string(sel) + `); if (!e) return "none"; e.click(); return "ok"; })()`); got != "ok" {
		v.t.Fatalf("mcpgentest: no element of the view matches %s", selector)
	}
}

// WaitText waits until the view's text contains text (at most the
// connector's Timeout); otherwise the test fails, showing the text.
func (v *View) WaitText(text string) {
	v.t.Helper()
	deadline := time.Now().Add(v.timeout)
	for {
		got, err := v.v.Text(context.Background())
		if err == nil && strings.Contains(got, text) {
			return
		}
		if time.Now().After(deadline) {
			v.t.Fatalf("mcpgentest: the view never showed %q; it shows:\n%s%s", text, got, problems(v.v))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Text is the view's visible text.
func (v *View) Text() string {
	v.t.Helper()
	s, err := v.v.Text(context.Background())
	if err != nil {
		v.t.Fatalf("mcpgentest: reading the view's text: %v", err)
	}
	return s
}

// Query returns the text of every element of the view matching the CSS
// selector.
func (v *View) Query(selector string) []string {
	v.t.Helper()
	s, err := v.v.Query(context.Background(), selector)
	if err != nil {
		v.t.Fatalf("mcpgentest: query %s: %v", selector, err)
	}
	return s
}

// Eval evaluates a JavaScript expression in the view's document and
// returns its value as a string.
func (v *View) Eval(expr string) string {
	v.t.Helper()
	s, err := v.v.Eval(context.Background(), expr)
	if err != nil {
		v.t.Fatalf("mcpgentest: eval: %v", err)
	}
	return s
}

// Close closes the view's browser tab; views still open are closed when
// the test ends. A browser keeps only a few connections to one server,
// and each open view holds some, so a test that renders many views
// closes those it is done with.
func (v *View) Close() { v.v.Close() }

// Screenshot is a PNG of the view as the host shows it.
func (v *View) Screenshot() []byte {
	v.t.Helper()
	b, err := v.v.Screenshot(context.Background())
	if err != nil {
		v.t.Fatalf("mcpgentest: screenshot: %v", err)
	}
	return b
}

// Problems lists what went wrong in the view so far (exceptions, console
// errors, CSP violations), one line each.
func (v *View) Problems() []string {
	var out []string
	for _, p := range v.v.Problems() {
		out = append(out, p.String())
	}
	return out
}
