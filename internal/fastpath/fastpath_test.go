package fastpath

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The connector's tests (connector/fastpath_test.go, the wire transcripts)
// compare the fast path with the go-sdk through a real server. These test
// the package's side of the Dispatcher contract with a fake server: what
// it declines reaches next as it came, and what it answers runs through
// the Dispatcher's handlers, middleware and context.

type fakeDispatcher struct {
	disabled bool
	tools    map[string]mcp.MethodHandler // all NeverAsks
	count    int                          // ToolCount; 0: len(tools)
	wrapped  atomic.Int32                 // requests Wrap's middleware ran for
	ids      chan string                  // ids Context saw
}

func (d *fakeDispatcher) Enabled() bool { return !d.disabled }

func (d *fakeDispatcher) Tool(name string) (mcp.MethodHandler, bool, bool) {
	h, ok := d.tools[name]
	if !ok {
		return nil, false, false
	}
	return d.Wrap(h), true, true
}

func (d *fakeDispatcher) Resource(string) (mcp.MethodHandler, bool) { return nil, false }

func (d *fakeDispatcher) ToolCount() int {
	if d.count > 0 {
		return d.count
	}
	return len(d.tools)
}

func (d *fakeDispatcher) Tools() []*mcp.Tool {
	var ts []*mcp.Tool
	for name := range d.tools {
		ts = append(ts, &mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}})
	}
	return ts
}

func (d *fakeDispatcher) Wrap(h mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		d.wrapped.Add(1)
		return h(ctx, method, req)
	}
}

type sinkKey struct{}

func (d *fakeDispatcher) Context(ctx context.Context, id json.RawMessage, sink func(*mcp.LoggingMessageParams) error) context.Context {
	if d.ids != nil {
		d.ids <- string(id)
	}
	if sink != nil {
		ctx = context.WithValue(ctx, sinkKey{}, sink)
	}
	return ctx
}

func (d *fakeDispatcher) SessionClosed(string) {}

func newFake() *fakeDispatcher {
	return &fakeDispatcher{tools: map[string]mcp.MethodHandler{
		"hello": func(context.Context, string, mcp.Request) (mcp.Result, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hi"}}}, nil
		},
		"chatty": func(ctx context.Context, _ string, _ mcp.Request) (mcp.Result, error) {
			sink := ctx.Value(sinkKey{}).(func(*mcp.LoggingMessageParams) error)
			sink(&mcp.LoggingMessageParams{Level: "debug", Data: "dropped"})
			sink(&mcp.LoggingMessageParams{Level: "info", Data: "sent"})
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		},
	}}
}

// next records what the fast path declined.
type next struct{ bodies []string }

func (n *next) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	n.bodies = append(n.bodies, string(b))
	w.WriteHeader(http.StatusTeapot)
}

func serve(t *testing.T, h http.Handler, body string, header map[string]string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func newHandler(d Dispatcher, cfg Config) (*Handler, *next) {
	if cfg.MaxBody == 0 {
		cfg.MaxBody = 1 << 20
	}
	if cfg.Impl == nil {
		cfg.Impl = &mcp.Implementation{Name: "srv", Version: "1"}
	}
	h := New(cfg, d)
	n := &next{}
	h.SetNext(n)
	return h, n
}

var v2025 = map[string]string{"Mcp-Protocol-Version": "2025-11-25"}

// TestAnswers checks the answers of a request without a session: the
// bytes, the Dispatcher's middleware and context.
func TestAnswers(t *testing.T) {
	d := newFake()
	d.ids = make(chan string, 1)
	h, n := newHandler(d, Config{})
	w := serve(t, h, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"hello","arguments":{}}}`, v2025)
	if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("%d %q: %s", w.Code, w.Header().Get("Content-Type"), w.Body)
	}
	if got, want := w.Body.String(), `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hi"}]}}`; got != want {
		t.Errorf("answer\n got %s\nwant %s", got, want)
	}
	if d.wrapped.Load() != 1 {
		t.Errorf("the middleware ran %d times, want once", d.wrapped.Load())
	}
	if id := <-d.ids; id != "7" {
		t.Errorf("Context got id %s, want 7", id)
	}
	if len(n.bodies) != 0 {
		t.Errorf("declined: %q", n.bodies)
	}
}

// TestLogStream checks that the log messages of a request without a
// session turn its answer into an event stream, info and above only.
func TestLogStream(t *testing.T) {
	h, _ := newHandler(newFake(), Config{})
	w := serve(t, h, `{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"chatty"}}`, v2025)
	if ct := w.Header().Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q, want an event stream", ct)
	}
	want := "event: message\ndata: " + `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"sent","level":"info"}}` + "\n\n" +
		"event: message\ndata: " + `{"jsonrpc":"2.0","id":"c","result":{"content":[{"type":"text","text":"done"}]}}` + "\n\n"
	if got := w.Body.String(); got != want {
		t.Errorf("answer\n got %q\nwant %q", got, want)
	}
}

// TestStatelessList checks tools/list under 2026-07-28: one page sorted by
// name with the server's identity, or declined when the tools might need
// pages.
func TestStatelessList(t *testing.T) {
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	hdr := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}
	h, _ := newHandler(newFake(), Config{})
	w := serve(t, h, body, hdr)
	want := `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"srv","version":"1"}},` +
		`"ttlMs":0,"cacheScope":"public","tools":[{"inputSchema":{"type":"object"},"name":"chatty"},{"inputSchema":{"type":"object"},"name":"hello"}]}}`
	if got := w.Body.String(); w.Code != http.StatusOK || got != want {
		t.Errorf("%d\n got %s\nwant %s", w.Code, got, want)
	}

	d := newFake()
	d.count = 3
	h, n := newHandler(d, Config{PageSize: 2})
	if w := serve(t, h, body, hdr); w.Code != http.StatusTeapot || len(n.bodies) != 1 || n.bodies[0] != body {
		t.Errorf("more tools than a page: %d, next got %q; want it declined as it came", w.Code, n.bodies)
	}
}

// TestDeclines checks that what the fast path does not fully handle
// reaches next with its body as it came, and nothing written.
func TestDeclines(t *testing.T) {
	for _, c := range []struct {
		name string
		d    func(*fakeDispatcher)
		body string
		hdr  map[string]string
	}{
		{"disabled", func(d *fakeDispatcher) { d.disabled = true },
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hello"}}`, v2025},
		{"unknown tool", nil,
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope"}}`, v2025},
		{"progress token", nil,
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hello","_meta":{"progressToken":1}}}`, v2025},
		{"another method", nil,
			`{"jsonrpc":"2.0","id":1,"method":"prompts/list"}`, v2025},
		{"unknown session", nil,
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hello"}}`,
			map[string]string{"Mcp-Protocol-Version": "2025-11-25", "Mcp-Session-Id": "S1"}},
		{"unsupported version", nil,
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hello"}}`,
			map[string]string{"Mcp-Protocol-Version": "1999-01-01"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := newFake()
			if c.d != nil {
				c.d(d)
			}
			h, n := newHandler(d, Config{})
			w := serve(t, h, c.body, c.hdr)
			if w.Code != http.StatusTeapot || len(n.bodies) != 1 || n.bodies[0] != c.body {
				t.Errorf("%d %s, next got %q; want it declined as it came", w.Code, w.Body, n.bodies)
			}
			if d.wrapped.Load() != 0 {
				t.Errorf("a declined request ran the middleware")
			}
		})
	}
}
