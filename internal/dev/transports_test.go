package dev_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// wsTransport is an mcp.Transport over a WebSocket (subprotocol mcp, one
// message per text frame), for the Go SDK's client.
type wsTransport struct{ url string }

func (w *wsTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, _, err := websocket.Dial(ctx, w.url, &websocket.DialOptions{Subprotocols: []string{"mcp"}})
	if err != nil {
		return nil, err
	}
	c.SetReadLimit(64 << 20)
	return &wsConn{c: c}, nil
}

type wsConn struct{ c *websocket.Conn }

func (w *wsConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	_, data, err := w.c.Read(ctx)
	if err != nil {
		return nil, err
	}
	return jsonrpc.DecodeMessage(data)
}

func (w *wsConn) Write(ctx context.Context, m jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(m)
	if err != nil {
		return err
	}
	return w.c.Write(ctx, websocket.MessageText, data)
}

func (w *wsConn) Close() error      { return w.c.Close(websocket.StatusNormalClosure, "") }
func (w *wsConn) SessionID() string { return "" }

// A host configured with "sse" or "ws" keeps its session across a Go
// rebuild in mcpgen dev, as one configured with "http" does: it is told
// the tools changed and calls the new build; the connector's questions
// (sampling, elicitation) and progress reach it.
func TestSSEAndWebSocketSessionsSurviveRebuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a connector")
	}
	dir := copyDir(t, "testdata/plain")
	ds := startDev(t, dir, nil)
	base := strings.TrimSuffix(ds.url, "/mcp")
	transports := map[string]mcp.Transport{
		"sse": &mcp.SSEClientTransport{Endpoint: base + "/sse", HTTPClient: http.DefaultClient},
		"ws":  &wsTransport{url: "ws" + strings.TrimPrefix(base, "http") + "/ws"},
	}
	sessions, notes := map[string]*mcp.ClientSession{}, map[string]*notes{}
	for kind, tr := range transports {
		n := newNotes()
		cs := connectWith(t, tr, n)
		sessions[kind], notes[kind] = cs, n
		if got := callText(t, cs, "greet", map[string]any{"name": "ada"}); got != "hello ada v1" {
			t.Fatalf("%s: greet = %q", kind, got)
		}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "work", Arguments: map[string]any{}, Meta: mcp.Meta{"progressToken": "p1"}})
		if err != nil || res.IsError || len(res.Content) < 2 {
			t.Fatalf("%s: work: %v %+v", kind, err, res)
		}
		if tc, _ := res.Content[0].(*mcp.TextContent); tc == nil || tc.Text != "sampled by the host" {
			t.Errorf("%s: work returned %+v, want the host's sampling answer", kind, res.Content[0])
		}
		if tc, _ := res.Content[1].(*mcp.TextContent); tc == nil || tc.Text != "accept ada" {
			t.Errorf("%s: work returned %+v, want the host's elicitation answer", kind, res.Content[1])
		}
		if p := expect(t, n.progress, kind+" progress"); p != 1 {
			t.Errorf("%s: progress = %v", kind, p)
		}
		n.drain()
	}

	edit(t, dir, "main.go", "Name string `json:\"name\"`", "Name string `json:\"name\"`\n\tLoud bool `json:\"loud,omitempty\"`")
	edit(t, dir, "main.go", `const version = "v1"`, `const version = "v2"`)
	if e := ds.wait(t, "go"); !e.OK {
		t.Fatalf("go rebuild failed:\n%s", ds.out.String())
	}
	for kind, cs := range sessions {
		expect(t, notes[kind].tools, kind+": tools/list_changed after a Go edit")
		if got := callText(t, cs, "greet", map[string]any{"name": "ada", "loud": true}); got != "hello ada v2" {
			t.Errorf("%s: greet after the rebuild = %q", kind, got)
		}
	}
}
