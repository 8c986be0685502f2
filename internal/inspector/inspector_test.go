package inspector

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generator/diag"
	"github.com/mcpgen/mcpgen/internal/inspector/appbundle"
)

// TestBundleFresh fails when index.html is not what `go generate
// ./internal/inspector` makes of app/: the committed bundle is stale.
func TestBundleFresh(t *testing.T) {
	doc, err := appbundle.Build(appbundle.AppDir())
	var nm *appbundle.ErrNoModules
	if errors.As(err, &nm) {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(doc, indexHTML) {
		t.Fatalf("internal/inspector/index.html is stale (%d bytes; app/ bundles to %d): run go generate ./internal/inspector and commit it", len(indexHTML), len(doc))
	}
}

func newServer(t *testing.T, opts Options) (*Server, *httptest.Server) {
	t.Helper()
	if opts.Log == nil {
		opts.Log = log.New(io.Discard, "", 0)
	}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return s, ts
}

func TestHeadersAndRoutes(t *testing.T) {
	mcp := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "mcp here") })
	_, ts := newServer(t, Options{MCP: mcp})
	for _, path := range []string{"/", "/anything?tool=x", "/_mcpgen/config", "/_mcpgen/status"} {
		res, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Errorf("GET %s: %s", path, res.Status)
		}
		for h, want := range map[string]string{
			"Cache-Control":   "no-store",
			"X-Frame-Options": "DENY",
		} {
			if got := res.Header.Get(h); got != want {
				t.Errorf("GET %s: %s = %q, want %q", path, h, got, want)
			}
		}
		csp := res.Header.Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'none'", "script-src 'sha256-", "connect-src 'self'", "frame-ancestors 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("GET %s: CSP %q lacks %q", path, csp, want)
			}
		}
	}
	res, err := http.Get(ts.URL + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if string(body) != "mcp here" {
		t.Errorf("/mcp = %q, want the MCP handler's answer", body)
	}
	res, err = http.Get(ts.URL + "/_mcpgen/nope")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 404 {
		t.Errorf("unknown /_mcpgen/ route: %s, want 404", res.Status)
	}
}

// TestIndexCSPCoversBundle checks that the app's CSP admits exactly the
// embedded document's inline script and style (by hash).
func TestIndexCSPCoversBundle(t *testing.T) {
	csp := appCSP(indexHTML, "1234")
	if strings.Contains(csp, "'none'; style-src 'none'") || strings.Contains(csp, "script-src 'none'") {
		t.Fatalf("the bundle has no inline script or style: %s", csp)
	}
	if !strings.Contains(csp, "frame-src http://*:1234;") {
		t.Errorf("frames are not limited to the sandbox port: %s", csp)
	}
}

func TestHostAndOriginChecks(t *testing.T) {
	_, ts := newServer(t, Options{AllowHosts: []string{"tunnel.example.com"}})
	cases := []struct {
		name, method, path, host, origin string
		want                             int
	}{
		{"loopback", "GET", "/", "", "", 200},
		{"foreign host", "GET", "/", "evil.example.com", "", 403},
		{"foreign host on status", "GET", "/_mcpgen/status", "evil.example.com", "", 403},
		{"allowed tunnel host", "GET", "/", "tunnel.example.com", "", 200},
		{"foreign origin", "GET", "/_mcpgen/fixtures", "", "http://evil.example.com", 403},
		{"a sandboxed view (opaque origin)", "GET", "/_mcpgen/status", "", "null", 403},
		{"a sandboxed view storing a view", "POST", "/_mcpgen/views", "", "null", 403},
		{"post without origin", "POST", "/_mcpgen/views", "", "", 403},
		{"post from another loopback port", "POST", "/_mcpgen/views", "", "http://127.0.0.1:1", 403},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest(c.method, ts.URL+c.path, strings.NewReader(`{"html":"<p>hi</p>"}`))
			if c.host != "" {
				req.Host = c.host
			}
			if c.origin != "" {
				req.Header.Set("Origin", c.origin)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != c.want {
				t.Errorf("%s %s (Host %q, Origin %q): %s, want %d", c.method, c.path, c.host, c.origin, res.Status, c.want)
			}
		})
	}
}

// TestSandboxServesViewWithCSP stores a view through the app and reads it
// from the sandbox origin, with the CSP its resource declares.
func TestSandboxServesViewWithCSP(t *testing.T) {
	s, ts := newServer(t, Options{})
	body := `{"html":"<!doctype html><p>hello view</p>","csp":{"connectDomains":["https://api.example.com"],"resourceDomains":["https://cdn.example.com; script-src *"]}}`
	req, _ := http.NewRequest("POST", ts.URL+"/_mcpgen/views", strings.NewReader(body))
	req.Header.Set("Origin", ts.URL)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var stored struct{ Path string }
	json.NewDecoder(res.Body).Decode(&stored)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.HasPrefix(stored.Path, "/view/") {
		t.Fatalf("storing a view: %s %+v", res.Status, stored)
	}
	if strings.HasPrefix(s.SandboxURL(), ts.URL) {
		t.Fatalf("the sandbox %s shares the app's origin %s", s.SandboxURL(), ts.URL)
	}
	res, err = http.Get(s.SandboxURL() + stored.Path)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(page), "hello view") {
		t.Errorf("sandbox page = %q", page)
	}
	csp := res.Header.Get("Content-Security-Policy")
	for _, want := range []string{"connect-src https://api.example.com", "frame-ancestors " + ts.URL, "script-src 'unsafe-inline';"} {
		if !strings.Contains(csp, want) {
			t.Errorf("view CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "script-src *") {
		t.Errorf("a declared domain injected a directive: %q", csp)
	}
	res, err = http.Get(s.SandboxURL() + "/view/unknown")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 404 {
		t.Errorf("unknown view: %s", res.Status)
	}
	req, _ = http.NewRequest("GET", s.SandboxURL()+stored.Path, nil)
	req.Host = "evil.example.com"
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 403 {
		t.Errorf("sandbox with a foreign Host: %s, want 403", res.Status)
	}
}

func TestViewCSPDefault(t *testing.T) {
	got := ViewCSP{}.Policy("http://127.0.0.1:8080")
	for _, want := range []string{"default-src 'none'", "connect-src 'none'", "frame-src 'none'", "img-src data: blob:", "frame-ancestors http://127.0.0.1:8080"} {
		if !strings.Contains(got, want) {
			t.Errorf("default view CSP %q lacks %q", got, want)
		}
	}
}

func TestStatusEvents(t *testing.T) {
	s, ts := newServer(t, Options{})
	res, err := http.Get(ts.URL + "/_mcpgen/events")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	events := make(chan Status, 4)
	go func() {
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var st Status
				json.Unmarshal([]byte(data), &st)
				events <- st
			}
		}
		close(events)
	}()
	next := func() Status {
		select {
		case st, ok := <-events:
			if !ok {
				t.Fatal("event stream ended")
			}
			return st
		case <-time.After(10 * time.Second):
			t.Fatal("no status event")
		}
		return Status{}
	}
	if st := next(); !st.OK || len(st.Diagnostics) != 0 {
		t.Fatalf("initial status = %+v", st)
	}
	var l diag.List
	l.Errorf(diag.Pos{File: "/p/ui/card.tsx", Line: 3, Col: 7}, "bundle", "", "Expected \";\" but found \"}\"")
	s.SetStatus(Status{Build: 2, OK: false, Diagnostics: Diagnostics(l, "/p")})
	st := next()
	if st.OK || len(st.Diagnostics) != 1 {
		t.Fatalf("status after a failed build = %+v", st)
	}
	if d := st.Diagnostics[0]; d.File != "ui/card.tsx" || d.Line != 3 || d.Col != 7 || d.Severity != "error" {
		t.Errorf("diagnostic = %+v", d)
	}
	s.SetStatus(Status{Build: 3, OK: true})
	if st := next(); !st.OK || st.Build != 3 || st.Diagnostics == nil {
		t.Errorf("status after the fix = %+v", st)
	}
}

func TestLoadFixtures(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, s string) {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("fixtures/find_orders/two.json", `{"input": {"customer": "C-1"}, "result": {"orders": [1, 2]}}`)
	write("fixtures/find_orders/full.json", `{"input": {}, "result": {"content": [{"type": "text", "text": "x"}], "isError": true},
  "calls": {"cancel_order": {"ok": true}}}`)
	write("fixtures/find_orders/bad.json", "{\n  \"input\": {},\n  \"result\": {,}\n}")
	write("fixtures/find_orders/noresult.json", `{"input": {}}`)
	write("fixtures/find_orders/typo.json", `{"inptu": {}, "result": {}}`)
	write("fixtures/loose.json", `{}`)
	fx, diags := LoadFixtures(dir)
	if len(fx) != 2 || fx[0].Name != "full" || fx[1].Name != "two" || fx[0].Tool != "find_orders" {
		t.Fatalf("fixtures = %+v", fx)
	}
	if fx[1].File != "fixtures/find_orders/two.json" {
		t.Errorf("file = %q", fx[1].File)
	}
	var two map[string]any
	json.Unmarshal(fx[1].Result, &two)
	if sc, ok := two["structuredContent"].(map[string]any); !ok || sc["orders"] == nil {
		t.Errorf("bare structuredContent not wrapped: %s", fx[1].Result)
	}
	if c, _ := two["content"].([]any); len(c) != 1 {
		t.Errorf("wrapped result has no text content: %s", fx[1].Result)
	}
	var full map[string]any
	json.Unmarshal(fx[0].Result, &full)
	if full["isError"] != true || full["structuredContent"] != nil {
		t.Errorf("a CallToolResult was changed: %s", fx[0].Result)
	}
	var canned map[string]any
	json.Unmarshal(fx[0].Calls["cancel_order"], &canned)
	if canned["structuredContent"] == nil {
		t.Errorf("canned call not normalized: %s", fx[0].Calls["cancel_order"])
	}
	got := diags.Render(dir)
	for _, want := range []string{
		"fixtures/find_orders/bad.json:3:14: the fixture is not valid JSON",
		`fixtures/find_orders/noresult.json:1:1: the fixture has no "result"`,
		`fixtures/find_orders/typo.json:1:2: unknown fixture key "inptu"`,
		"fixtures/loose.json: a fixture must be in a directory named after its tool",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("diagnostics lack %q:\n%s", want, got)
		}
	}
	if fx, diags := LoadFixtures(t.TempDir()); fx != nil || len(diags) != 0 {
		t.Errorf("a project without fixtures: %v %v", fx, diags)
	}
}

// FuzzViewCSP checks that no declared domain can add a directive to a
// view's policy or widen another one.
func FuzzViewCSP(f *testing.F) {
	f.Add("https://api.example.com", "https://cdn.example.com", "http://127.0.0.1:8080")
	f.Add("https://a.example; script-src *", "'unsafe-eval'", "http://x, https://y")
	f.Add("*", "data:", "")
	f.Fuzz(func(t *testing.T, connect, resource, origin string) {
		c := ViewCSP{ConnectDomains: []string{connect}, ResourceDomains: []string{resource, connect}, FrameDomains: []string{resource}, BaseURIDomains: []string{origin}}
		p := c.Policy(origin)
		dirs := strings.Split(p, "; ")
		if len(dirs) != 12 {
			t.Fatalf("policy has %d directives, want 12: %q", len(dirs), p)
		}
		seen := map[string]bool{}
		for _, d := range dirs {
			name, _, _ := strings.Cut(d, " ")
			if seen[name] {
				t.Fatalf("directive %s twice: %q", name, p)
			}
			seen[name] = true
			if strings.ContainsAny(d, ",;\n\r") {
				t.Fatalf("directive %q holds a separator", d)
			}
			if strings.Count(d, "'") != 0 && !strings.Contains(d, "'unsafe-inline'") && !strings.Contains(d, "'none'") {
				t.Fatalf("directive %q gained a keyword source", d)
			}
		}
	})
}
