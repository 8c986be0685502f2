package bundler

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpgen/mcpgen/internal/browsertest"
	"github.com/mcpgen/mcpgen/internal/testenv"
	"github.com/mcpgen/mcpgen/runtime"
)

var update = flag.Bool("update", false, "write the views' screenshots into docs/screenshots (also: MCPGEN_UPDATE_SCREENSHOTS=1)")

// greetServer is a real mcpgen runtime server with one tool, greet, linked
// to the card view; it counts its calls.
func greetServer(t *testing.T, views []runtime.View, calls *atomic.Int64) *runtime.Server {
	t.Helper()
	app := &runtime.App{
		Name:    "card-test",
		Version: "1.0.0",
		Tools: []runtime.Tool{{
			Name:         "greet",
			Title:        "Greet",
			Description:  "Greet someone by name.",
			InputSchema:  `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"],"additionalProperties":false}`,
			OutputSchema: `{"type":"object","properties":{"message":{"type":"string"},"count":{"type":"integer"}},"required":["message","count"]}`,
			Annotations:  runtime.Annotations{ReadOnly: true, Idempotent: true},
			UI:           "card",
			Result:       runtime.ResultStruct,
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
	srv, err := runtime.NewServer(app)
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
	b := newBundler(t, "testdata/card", true)
	built := build(t, b)
	var views []runtime.View
	for _, v := range built {
		views = append(views, runtime.View{Name: v.Name, URI: v.URI, HTML: v.HTML, Meta: runtime.ViewMeta{
			ConnectDomains: v.Meta.ConnectDomains, ResourceDomains: v.Meta.ResourceDomains,
			FrameDomains: v.Meta.FrameDomains, BaseURIDomains: v.Meta.BaseURIDomains,
			Permissions: v.Meta.Permissions, Domain: v.Meta.Domain, PrefersBorder: v.Meta.PrefersBorder,
			Title: v.Meta.Title, Description: v.Meta.Description,
		}})
	}
	var calls atomic.Int64
	srv := browsertest.Serve(t, greetServer(t, views, &calls).Handler())

	shot := filepath.Join(t.TempDir(), "card.png")
	if *update || os.Getenv("MCPGEN_UPDATE_SCREENSHOTS") != "" {
		shot = filepath.Join(testenv.Root(), "docs", "screenshots", "card.png")
		if err := os.MkdirAll(filepath.Dir(shot), 0o755); err != nil {
			t.Fatal(err)
		}
	}
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
