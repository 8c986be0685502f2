package cli_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// legacyThroughProxy has an HTTP+SSE client and a WebSocket client call
// the connector through the reverse proxy on port under the public name,
// from the browser app's origin, and checks that a foreign origin is
// refused on both.
func legacyThroughProxy(t *testing.T, public, app string, port int) {
	t.Helper()
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	hostHeader := fmt.Sprintf("%s:%d", public, port)
	browser := &http.Client{Transport: browserTransport{hostHeader, app}}
	ctx := context.Background()

	sse, err := mcp.NewClient(&mcp.Implementation{Name: "sse-app", Version: "1"}, nil).
		Connect(ctx, &mcp.SSEClientTransport{Endpoint: base + "/sse", HTTPClient: browser}, nil)
	if err != nil {
		t.Fatalf("connect over HTTP+SSE through the proxy: %v", err)
	}
	if res := call(t, sse, "text_stats", map[string]any{"text": "a b c d"}); res.IsError || !strings.Contains(text(res), `"words":4`) {
		t.Errorf("text_stats over HTTP+SSE through the proxy: %s", text(res))
	}
	sse.Close()

	dial := func(origin string) (*websocket.Conn, *http.Response, error) {
		dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		return websocket.Dial(dctx, "ws"+strings.TrimPrefix(base, "http")+"/ws", &websocket.DialOptions{
			Subprotocols: []string{"mcp"}, Host: hostHeader, HTTPHeader: http.Header{"Origin": {origin}}})
	}
	ws, _, err := dial(app)
	if err != nil {
		t.Fatalf("open a WebSocket through the proxy: %v", err)
	}
	defer ws.CloseNow()
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for _, m := range []struct{ send, want string }{
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"ws-app","version":"1"}}}`, `"version":"v1.2.3"`},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, ""},
		{`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"text_stats","arguments":{"text":"a b c"}}}`, `\"words\":3`},
	} {
		if err := ws.Write(rctx, websocket.MessageText, []byte(m.send)); err != nil {
			t.Fatalf("WebSocket write through the proxy: %v", err)
		}
		if m.want == "" {
			continue
		}
		_, data, err := ws.Read(rctx)
		if err != nil || !strings.Contains(string(data), m.want) {
			t.Errorf("WebSocket answer to %s through the proxy: %v %s", m.send, err, data)
		}
	}
	ws.Close(websocket.StatusNormalClosure, "")

	if c, resp, err := dial("https://evil.example.test"); err == nil {
		c.CloseNow()
		t.Error("a WebSocket from a foreign origin was accepted through the proxy")
	} else if resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("a WebSocket from a foreign origin through the proxy: %v, want 403", err)
	}
	foreign := &http.Client{Transport: browserTransport{hostHeader, "https://evil.example.test"}}
	if code := statusOf(t, foreign, "GET", base+"/sse", ""); code != http.StatusForbidden {
		t.Errorf("GET /sse from a foreign origin through the proxy: %d, want 403", code)
	}
}
