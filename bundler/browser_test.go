package bundler

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpgen/mcpgen/connector"
	"github.com/mcpgen/mcpgen/internal/browsertest"
	"github.com/mcpgen/mcpgen/internal/testenv"
)

var update = flag.Bool("update", false, "write the views' screenshots into docs/screenshots (also: MCPGEN_UPDATE_SCREENSHOTS=1)")

// greetServer is a real mcpgen runtime server with one tool, greet, linked
// to the card view; it counts its calls.
func greetServer(t *testing.T, view string, views []connector.View, calls *atomic.Int64) *connector.Server {
	t.Helper()
	app := &connector.App{
		Name:    "card-test",
		Version: "1.0.0",
		Tools: []connector.Tool{{
			Name:         "greet",
			Title:        "Greet",
			Description:  "Greet someone by name.",
			InputSchema:  `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"],"additionalProperties":false}`,
			OutputSchema: `{"type":"object","properties":{"message":{"type":"string"},"count":{"type":"integer"}},"required":["message","count"]}`,
			Annotations:  connector.Annotations{ReadOnly: true, Idempotent: true},
			UI:           view,
			Result:       connector.ResultStruct,
			Handler: func(ctx context.Context, args json.RawMessage) (any, error) {
				var in struct{ Name string }
				if err := json.Unmarshal(args, &in); err != nil {
					return nil, err
				}
				n := calls.Add(1)
				return struct {
					Message string `json:"message"`
					Count   int64  `json:"count"`
				}{fmt.Sprintf("Hello, %s!", in.Name), n}, nil
			},
		}},
		Views: views,
	}
	srv, err := connector.NewServer(app)
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// TestCardInBrowser renders the card view in headless Chromium under the
// official AppBridge, talking to a real mcpgen server: the handshake, the
// tool result through useToolData, a callTool round trip to the server, a
// display-mode request and size-changed notifications.
func TestCardInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	testenv.Chromium(t)
	views := runtimeViews(t, "testdata/card")
	var calls atomic.Int64
	srv := browsertest.Serve(t, greetServer(t, "card", views, &calls).Handler())

	shot := screenshotPath(t, "card")
	res := browsertest.Run(t, srv, browsertest.Scenario{
		Tool: "greet",
		Args: map[string]any{"name": "Ada"},
		Steps: []browsertest.Step{
			{WaitText: "Hello, Ada!", WaitEvent: "size-changed"},
			{Screenshot: shot},
			{Click: "Greet again", WaitText: "Again: Hello, Ada! (#2)"},
			{Click: "Full screen", WaitEvent: "request-display-mode", WaitText: "Display mode: fullscreen"},
		},
	})
	if res.Error != "" {
		t.Fatalf("browser run failed:\n%s", res.Report())
	}
	fail := func(format string, args ...any) {
		t.Helper()
		t.Errorf(format+"\n%s", append(args, res.Report())...)
	}

	if r := res.Of("resource"); len(r) != 1 || !strings.Contains(string(r[0].Data), `"mimeType":"text/html;profile=mcp-app"`) ||
		!strings.Contains(string(r[0].Data), `"prefersBorder":true`) || !strings.Contains(string(r[0].Data), views[0].URI) {
		fail("resource event: %v", r)
	}
	if in := res.Of("initialized"); len(in) != 1 || !strings.Contains(string(in[0].Data), `"name":"card"`) {
		fail("handshake: initialized events %v", in)
	}
	if n := calls.Load(); n != 2 {
		fail("greet called %d times on the server, want 2 (host + view's callTool)", n)
	}
	var sized bool
	for _, e := range res.Of("size-changed") {
		var p struct{ Width, Height int }
		if json.Unmarshal(e.Data, &p) == nil && p.Height > 40 && p.Width > 0 {
			sized = true
		}
	}
	if !sized {
		fail("no size-changed with a plausible height")
	}
	if d := res.Of("request-display-mode"); len(d) != 1 || string(d[0].Data) != `{"mode":"fullscreen"}` {
		fail("display mode requests: %v", d)
	}
	for _, want := range []string{"Hello, Ada!", "Greeted 1 time(s)", "Again: Hello, Ada! (#2)", "Display mode: fullscreen", "Exit full screen"} {
		if !strings.Contains(res.Text, want) {
			fail("view text lacks %q", want)
		}
	}
	if res.Theme != "light" || res.Background != "#ffffff" {
		fail("host context not applied: data-theme %q, --color-background-primary %q", res.Theme, res.Background)
	}
	if st, err := os.Stat(shot); err != nil || st.Size() < 1000 {
		fail("screenshot %s: %v", shot, err)
	}
}

// screenshotPath is where a view's screenshot goes: docs/screenshots/NAME.png
// under -update (or MCPGEN_UPDATE_SCREENSHOTS=1), else a temporary file.
func screenshotPath(t *testing.T, name string) string {
	if !*update && os.Getenv("MCPGEN_UPDATE_SCREENSHOTS") == "" {
		return filepath.Join(t.TempDir(), name+".png")
	}
	dir := filepath.Join(testenv.Root(), "docs", "screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, name+".png")
}

// runtimeViews bundles the views of the project at dir for the runtime.
func runtimeViews(t *testing.T, dir string) []connector.View {
	t.Helper()
	var views []connector.View
	for _, v := range build(t, newBundler(t, dir, true)) {
		views = append(views, connector.View{Name: v.Name, URI: v.URI, HTML: v.HTML, Meta: connector.ViewMeta{
			ConnectDomains: v.Meta.ConnectDomains, ResourceDomains: v.Meta.ResourceDomains,
			FrameDomains: v.Meta.FrameDomains, BaseURIDomains: v.Meta.BaseURIDomains,
			Permissions: v.Meta.Permissions, Domain: v.Meta.Domain, PrefersBorder: v.Meta.PrefersBorder,
			Title: v.Meta.Title, Description: v.Meta.Description,
		}})
	}
	return views
}

// TestBridgeInBrowser drives every action of mcpgen/ui against the official
// AppBridge, with a dark host theme.
func TestBridgeInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	testenv.Chromium(t)
	var calls atomic.Int64
	srv := browsertest.Serve(t, greetServer(t, "probe", runtimeViews(t, "testdata/probe"), &calls).Handler())
	res := browsertest.Run(t, srv, browsertest.Scenario{
		Tool:  "greet",
		Args:  map[string]any{"name": "Grace"},
		Theme: "dark",
		Steps: []browsertest.Step{
			{WaitText: `result text: {"message":"Hello, Grace!","count":1}`},
			{Click: "Open link", WaitText: "link opened", WaitEvent: "open-link"},
			{Click: "Send message", WaitText: "message sent", WaitEvent: "message"},
			{Click: "Update context", WaitText: "context updated", WaitEvent: "update-model-context"},
			{Click: "Read resource", WaitText: "read text/html;profile=mcp-app big"},
			{Click: "Call missing", WaitText: "missing: "},
			{Click: "Log", WaitEvent: "logging", Screenshot: screenshotPath(t, "probe")},
		},
	})
	if res.Error != "" {
		t.Fatalf("browser run failed:\n%s", res.Report())
	}
	fail := func(format string, args ...any) {
		t.Helper()
		t.Errorf(format+"\n%s", append(args, res.Report())...)
	}
	for _, want := range []string{"connected: true", "theme: dark", "locale: en-US", "input: Grace"} {
		if !strings.Contains(res.Text, want) {
			fail("view text lacks %q", want)
		}
	}
	if res.Theme != "dark" || res.Background != "#262624" {
		fail("host context not applied: data-theme %q, --color-background-primary %q", res.Theme, res.Background)
	}
	check := func(kind, want string) {
		t.Helper()
		ev := res.Of(kind)
		if len(ev) != 1 || !strings.Contains(string(ev[0].Data), want) {
			fail("%s events %v, want one containing %s", kind, ev, want)
		}
	}
	check("open-link", `{"url":"https://example.com/docs"}`)
	check("message", `{"role":"user","content":[{"type":"text","text":"Show more orders"}]}`)
	check("update-model-context", `"text":"The user picked order 7"`)
	check("logging", `"data":{"probe":true}`)
	check("resource", `"connectDomains":["https://api.example.com"]`)
	check("resource", `"prefersBorder":false`)
	if n := calls.Load(); n != 1 {
		fail("greet called %d times, want 1", n)
	}
}

// TestLifecycleInBrowser: partial input, cancellation, a live theme change
// and teardown, sent by the official AppBridge to the probe view.
func TestLifecycleInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	testenv.Chromium(t)
	var calls atomic.Int64
	srv := browsertest.Serve(t, greetServer(t, "probe", runtimeViews(t, "testdata/probe"), &calls).Handler())
	res := browsertest.Run(t, srv, browsertest.Scenario{
		Tool:         "greet",
		Args:         map[string]any{"name": "Grace"},
		PartialArgs:  map[string]any{"name": "Gra"},
		CancelReason: "user stopped",
		Steps: []browsertest.Step{
			{WaitText: "partial: Gra"},
			{WaitText: "cancelled: user stopped", WaitEvent: "tool-cancelled"},
			{Theme: "dark", WaitText: "theme: dark"},
			{Teardown: true, WaitEvent: "teardown"},
			{WaitEvent: "logging"},
		},
	})
	if res.Error != "" {
		t.Fatalf("browser run failed:\n%s", res.Report())
	}
	if res.Theme != "dark" {
		t.Errorf("data-theme after the change = %q, want dark\n%s", res.Theme, res.Report())
	}
	if ev := res.Of("logging"); len(ev) != 1 || !strings.Contains(string(ev[0].Data), `"torn down"`) {
		t.Errorf("teardown callback did not run: %v\n%s", ev, res.Report())
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("greet called %d times after a cancellation, want 0", n)
	}
	if strings.Contains(res.Text, "input: Gra") {
		t.Errorf("partial arguments shown as final input:\n%s", res.Text)
	}
}

// TestExtAppsCardInBrowser plays the card scenario against the card built
// on the official client SDK (the size benchmark's comparison point), so the
// two bundles compared do the same thing.
func TestExtAppsCardInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	testenv.Chromium(t)
	html := extAppsCardHTML(t)
	views := []connector.View{{Name: "card", URI: "ui://card/extapps", HTML: html}}
	var calls atomic.Int64
	// The MCP server on its own origin, as a connector binary would be.
	mcpSrv := httptest.NewServer(greetServer(t, "card", views, &calls).Handler())
	t.Cleanup(mcpSrv.Close)
	srv := browsertest.ServeURL(t, mcpSrv.URL+"/mcp")
	res := browsertest.Run(t, srv, browsertest.Scenario{
		Tool: "greet",
		Args: map[string]any{"name": "Ada"},
		Steps: []browsertest.Step{
			{WaitText: "Hello, Ada!", WaitEvent: "size-changed"},
			{Click: "Greet again", WaitText: "Again: Hello, Ada! (#2)"},
			{Click: "Full screen", WaitEvent: "request-display-mode", WaitText: "Display mode: fullscreen"},
		},
	})
	if res.Error != "" {
		t.Fatalf("browser run failed:\n%s", res.Report())
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("greet called %d times, want 2\n%s", n, res.Report())
	}
}
