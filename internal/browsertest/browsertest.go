// Package browsertest renders MCP Apps views the way a chat host does and
// reports what happened: headless Chromium (driven by internal/browser, as
// `mcpgen test` drives it) loads a host page built on the official host-side
// bridge (AppBridge from @modelcontextprotocol/ext-apps) and the official
// TypeScript MCP client; the page connects to a real MCP server over
// Streamable HTTP, reads the view linked to a tool, shows it in an iframe
// with sandbox="allow-scripts", calls the tool and passes its input and
// result to the view. Every step the host sees (handshake, size changes,
// display-mode requests, links, messages) comes back to the test as an
// event.
package browsertest

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evanw/esbuild/pkg/api"

	"github.com/mcpgen/mcpgen/internal/browser"
	"github.com/mcpgen/mcpgen/internal/browserbundle"
	"github.com/mcpgen/mcpgen/internal/testenv"
)

//go:embed host.ts
var hostSource string

var (
	pageOnce sync.Once
	page     []byte
	pageErr  error
)

// HostPage returns the test host page: one HTML document with the bundled
// host script inline.
func HostPage(t testing.TB) []byte {
	t.Helper()
	nm := testenv.NodeModules(t, "@modelcontextprotocol/ext-apps", "@modelcontextprotocol/client", "zod")
	pageOnce.Do(func() { page, pageErr = buildHostPage(nm) })
	if pageErr != nil {
		t.Fatal(pageErr)
	}
	return page
}

func buildHostPage(nodeModules string) ([]byte, error) {
	o := browserbundle.Options()
	o.Stdin = &api.StdinOptions{
		Contents:   hostSource,
		Sourcefile: "host.ts",
		Loader:     api.LoaderTS,
		// host.ts imports the inspector's ViewHost and host presets by
		// relative path.
		ResolveDir: filepath.Join(testenv.Root(), "internal", "browsertest"),
	}
	o.Format = api.FormatESModule
	o.Target = api.ES2022
	o.NodePaths = []string{nodeModules}
	res := api.Build(o)
	if err := browserbundle.Error("browsertest: bundling the host page", res.Errors); err != nil {
		return nil, err
	}
	js := strings.ReplaceAll(string(res.OutputFiles[0].Contents), "</script", `<\/script`)
	return []byte(`<!doctype html>
<html><head><meta charset="utf-8"><title>mcpgen test host</title>
<style>body{margin:0;padding:16px;background:#e9e8e3;font-family:sans-serif}
#frame{width:max-content}
iframe{display:block;width:560px;height:120px;border:0;border-radius:12px;background:#fff}
iframe.offstage{display:none}</style>
</head><body><div id="frame" data-app-status="loading"></div>
<script type="module">` + js + `</script></body></html>
`), nil
}

// Serve starts an HTTP server on 127.0.0.1 with the host page at / and mcp
// (a Streamable HTTP MCP handler) at /mcp, on one origin.
func Serve(t testing.TB, mcp http.Handler) *httptest.Server {
	t.Helper()
	pg := HostPage(t)
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp)
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(pg)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// ServeURL is Serve for an MCP server running elsewhere (a built connector
// binary): the host page's /mcp is proxied to mcpURL, such as
// http://127.0.0.1:8080/mcp.
func ServeURL(t testing.TB, mcpURL string) *httptest.Server {
	t.Helper()
	target, err := url.Parse(mcpURL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.Out.URL.Scheme, r.Out.URL.Host, r.Out.URL.Path, r.Out.URL.RawPath = target.Scheme, target.Host, target.Path, ""
			r.Out.Host = target.Host
		},
		FlushInterval: -1, // server-sent events pass through at once
	}
	return Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The request body is read in full before it is forwarded: streamed
		// from the browser's connection, an occasional POST hung and the
		// event stream beside it broke ("use of closed network connection").
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		proxy.ServeHTTP(w, r)
	}))
}

// Scenario is one visit of the host page.
type Scenario struct {
	Tool  string         // the tool to call; its _meta.ui.resourceUri names the view
	Args  map[string]any // its arguments
	Theme string         // "light" (default) or "dark"
	// Host is the host preset whose theme variables, fonts and
	// capabilities the view gets: "claude" (default) or "chatgpt", as in
	// the inspector.
	Host string
	// PartialArgs, when set, are sent first as ui/notifications/tool-input-partial.
	PartialArgs map[string]any
	// CancelReason, when set, makes the host send
	// ui/notifications/tool-cancelled with it as the reason instead of
	// calling the tool.
	CancelReason string
	Steps        []Step
	// Timeout bounds each step (default 15s).
	Timeout time.Duration
}

// Step is one action on the rendered view; the fields set are done in the
// order Click, Theme, Teardown, WaitText, WaitEvent, Screenshot.
type Step struct {
	Theme      string `json:"theme,omitempty"`      // the host switches its theme (ui/notifications/host-context-changed)
	Teardown   bool   `json:"teardown,omitempty"`   // the host sends ui/resource-teardown and logs the answer as "teardown"
	WaitText   string `json:"waitText,omitempty"`   // wait until the view shows this text
	Click      string `json:"click,omitempty"`      // click the view's button with this accessible name
	WaitEvent  string `json:"waitEvent,omitempty"`  // wait until the host has logged Count events of this kind
	Count      int    `json:"count,omitempty"`      // for WaitEvent; default 1
	Screenshot string `json:"screenshot,omitempty"` // write a PNG of the view's iframe to this path
}

// Event is one thing the host saw: "client-connected", "resource",
// "initialized", "tool-result", "tool-cancelled", "size-changed",
// "request-display-mode", "open-link", "message", "update-model-context",
// "logging", "host-context-changed", "teardown", "error".
type Event struct {
	Kind string          `json:"kind"`
	Data json.RawMessage `json:"data,omitempty"`
	At   int             `json:"at"` // milliseconds since the page started
}

// Result is what a Run observed.
type Result struct {
	Events []Event `json:"events"`
	Text   string  `json:"text"` // the view's visible text at the end
	// Theme is the view document's data-theme attribute at the end, and
	// Background the --color-background-primary it set from the host's styles.
	Theme      string `json:"theme"`
	Background string `json:"themeVars"`
	// Console are the errors the browser console reported, host page and
	// view: "pageerror: " for an uncaught exception, "error: " for the rest.
	Console []string `json:"console"`
	Error   string   `json:"error"` // the step that failed, if any
}

// Of returns the events of one kind.
func (r Result) Of(kind string) []Event {
	var out []Event
	for _, e := range r.Events {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

// Run opens the host page of srv in headless Chromium, plays the scenario and
// returns what the host saw. A failed step is reported in Result.Error (the
// test decides), with the console attached.
func Run(t testing.TB, srv *httptest.Server, sc Scenario) Result {
	t.Helper()
	chrome := testenv.Chromium(t)
	args, err := json.Marshal(sc.Args)
	if err != nil {
		t.Fatal(err)
	}
	q := url.Values{"tool": {sc.Tool}, "args": {string(args)}}
	if sc.Theme != "" {
		q.Set("theme", sc.Theme)
	}
	if sc.Host != "" {
		q.Set("host", sc.Host)
	}
	if sc.PartialArgs != nil {
		p, err := json.Marshal(sc.PartialArgs)
		if err != nil {
			t.Fatal(err)
		}
		q.Set("partial", string(p))
	}
	if sc.CancelReason != "" {
		q.Set("cancel", sc.CancelReason)
	}
	timeout := sc.Timeout
	if timeout == 0 {
		timeout = 15 * time.Second
	}

	ctx := context.Background()
	b, err := browser.Launch(ctx, browser.Options{Exec: chrome, Width: 640, Height: 900})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	v, err := b.Open(ctx, srv.URL+"/?"+q.Encode(), timeout)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()

	var res Result
	for i, st := range sc.Steps {
		if err := play(ctx, v, st, timeout); err != nil {
			res.Error = fmt.Sprintf("step %d %+v: %v", i+1, st, err)
			break
		}
	}
	res.observe(ctx, v)
	return res
}

// play does one step's actions, in the order Step documents.
func play(ctx context.Context, v *browser.View, st Step, timeout time.Duration) error {
	if st.Click != "" {
		if err := v.Wait(ctx, clickJS(st.Click), timeout); err != nil {
			return fmt.Errorf("clicking the button %q: %w", st.Click, err)
		}
	}
	if st.Theme != "" {
		if _, err := v.HostEval(ctx, "window.__mcpgenHostActions.theme("+quote(st.Theme)+")"); err != nil {
			return fmt.Errorf("switching the theme: %w", err)
		}
	}
	if st.Teardown {
		if _, err := v.HostEval(ctx, "window.__mcpgenHostActions.teardown()"); err != nil {
			return fmt.Errorf("tearing the view down: %w", err)
		}
	}
	if st.WaitText != "" {
		if err := v.Wait(ctx, textJS(st.WaitText), timeout); err != nil {
			return fmt.Errorf("waiting for the text %q: %w", st.WaitText, err)
		}
	}
	if st.WaitEvent != "" {
		n := max(st.Count, 1)
		js := fmt.Sprintf("(window.__mcpgenHost?.events ?? []).filter((e) => e.kind === %s).length >= %d", quote(st.WaitEvent), n)
		if err := v.HostWait(ctx, js, timeout); err != nil {
			return fmt.Errorf("waiting for %d %s event(s): %w", n, st.WaitEvent, err)
		}
	}
	if st.Screenshot != "" {
		time.Sleep(100 * time.Millisecond) // let the last resize settle
		png, err := v.Screenshot(ctx)
		if err != nil {
			return fmt.Errorf("screenshot: %w", err)
		}
		if err := os.WriteFile(st.Screenshot, png, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// clickJS clicks the first enabled button of the view whose accessible
// name (aria-label, else its text) contains name, ignoring case and runs of
// spaces as a test user would read it; it is false while there is none.
func clickJS(name string) string {
	return `(() => {
  const norm = (s) => (s ?? "").replace(/\s+/g, " ").trim().toLowerCase();
  const want = norm(` + quote(name) + `);
  const b = Array.from(document.querySelectorAll("button, [role=button]"))
    .find((e) => !e.disabled && norm(e.getAttribute("aria-label") ?? e.innerText).includes(want));
  if (!b) return false;
  b.click();
  return true;
})()`
}

// textJS is true once the view shows text, compared as clickJS compares
// names.
func textJS(text string) string {
	return `(() => {
  const norm = (s) => (s ?? "").replace(/\s+/g, " ").trim().toLowerCase();
  return !!document.body && norm(document.body.innerText).includes(norm(` + quote(text) + `));
})()`
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// observe reads what the host logged, the view's text and theme, and the
// problems the browser console reported.
func (r *Result) observe(ctx context.Context, v *browser.View) {
	var host struct {
		Events []Event `json:"events"`
		Error  string  `json:"error"`
	}
	raw, err := v.HostEval(ctx, `window.__mcpgenHost || { events: [], error: "host page did not start" }`)
	if err == nil {
		err = json.Unmarshal(raw, &host)
	}
	r.Events = host.Events
	if host.Error != "" && r.Error == "" {
		r.Error = "host: " + host.Error
	}
	if err == nil && v.Status != browser.StatusTimeout {
		r.Text, err = v.Text(ctx)
	}
	if err == nil && v.Status != browser.StatusTimeout {
		r.Theme, err = v.Eval(ctx, `document.documentElement.getAttribute("data-theme") ?? ""`)
	}
	if err == nil && v.Status != browser.StatusTimeout {
		r.Background, err = v.Eval(ctx, `document.documentElement.style.getPropertyValue("--color-background-primary")`)
	}
	if err != nil && r.Error == "" {
		r.Error = err.Error()
	}
	for _, p := range v.Problems() {
		r.Console = append(r.Console, consoleLine(p))
	}
}

// consoleLine renders a problem the way the console reported it: an
// uncaught exception as "pageerror: ", anything else logged as an error as
// "error: ".
func consoleLine(p browser.Problem) string {
	prefix := "error: "
	if p.Kind == "exception" {
		prefix = "pageerror: "
	}
	s := prefix + p.Text
	if p.URL != "" && p.Line > 0 {
		s += fmt.Sprintf(" (at %s:%d:%d)", p.URL, p.Line, p.Column)
	}
	return s
}

// Report renders a Result for a failure message.
func (r Result) Report() string {
	var b strings.Builder
	if r.Error != "" {
		fmt.Fprintf(&b, "error: %s\n", r.Error)
	}
	b.WriteString("host events:\n")
	for _, e := range r.Events {
		d := string(e.Data)
		if len(d) > 300 {
			d = d[:300] + "…"
		}
		fmt.Fprintf(&b, "  %5dms %s %s\n", e.At, e.Kind, d)
	}
	b.WriteString("console:\n")
	for _, c := range r.Console {
		fmt.Fprintf(&b, "  %s\n", c)
	}
	fmt.Fprintf(&b, "view text:\n%s\n", r.Text)
	return b.String()
}
