package install

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestTransportURL(t *testing.T) {
	for _, tc := range []struct {
		url  string
		t    Transport
		want string
	}{
		{"http://127.0.0.1:8080/mcp", HTTP, "http://127.0.0.1:8080/mcp"},
		{"http://127.0.0.1:8080/mcp", SSE, "http://127.0.0.1:8080/sse"},
		{"http://127.0.0.1:8080/mcp", WebSocket, "ws://127.0.0.1:8080/ws"},
		{"https://acme.example.com", WebSocket, "wss://acme.example.com/ws"},
		{"https://acme.example.com/", SSE, "https://acme.example.com/sse"},
		{"ws://127.0.0.1:8080/ws", HTTP, "http://127.0.0.1:8080/mcp"},
		{"wss://acme.example.com/sse?x=1", HTTP, "https://acme.example.com/mcp?x=1"},
		// A proxy's own path is kept; only the scheme follows the transport.
		{"https://gw.example.com/connectors/acme", WebSocket, "wss://gw.example.com/connectors/acme"},
		{"http://[::1]:8080/mcp", SSE, "http://[::1]:8080/sse"},
	} {
		got, err := TransportURL(tc.url, tc.t)
		if err != nil || got != tc.want {
			t.Errorf("TransportURL(%q, %s) = %q, %v; want %q", tc.url, tc.t, got, err, tc.want)
		}
	}
	for _, bad := range []string{"localhost:8080", "ftp://x/mcp", "http:///mcp", "://"} {
		if got, err := TransportURL(bad, SSE); err == nil {
			t.Errorf("TransportURL(%q) = %q, want an error", bad, got)
		}
	}
}

func TestRenderTransport(t *testing.T) {
	code := Lookup("claude-code")
	for _, tc := range []struct {
		client *Client
		e      Entry
		want   string // JSON, or "error: ..." for a substring of the error
	}{
		{code, Entry{URL: "http://127.0.0.1:8080/mcp"}, `{"type":"http","url":"http://127.0.0.1:8080/mcp"}`},
		{code, Entry{URL: "http://127.0.0.1:8080/custom"}, `{"type":"http","url":"http://127.0.0.1:8080/custom"}`},
		{code, Entry{URL: "http://127.0.0.1:8080/mcp", Transport: HTTP}, `{"type":"http","url":"http://127.0.0.1:8080/mcp"}`},
		{code, Entry{URL: "http://127.0.0.1:8080", Transport: HTTP}, `{"type":"http","url":"http://127.0.0.1:8080/mcp"}`},
		{code, Entry{URL: "http://127.0.0.1:8080/mcp", Transport: SSE}, `{"type":"sse","url":"http://127.0.0.1:8080/sse"}`},
		{code, Entry{URL: "https://acme.example.com/mcp", Transport: WebSocket}, `{"type":"ws","url":"wss://acme.example.com/ws"}`},
		{code, Entry{URL: "http://x/mcp", Transport: "grpc"}, `error: Claude Code reaches a server by URL over http, sse or ws, not "grpc"`},
		{code, Entry{Command: "/bin/acme", Transport: SSE}, "error: --transport applies to a server reached by --url"},
		{Lookup("cursor"), Entry{URL: "http://x/mcp", Transport: SSE}, `error: Cursor reaches a server by URL over http, not "sse"`},
		{Lookup("vscode"), Entry{URL: "http://x/mcp", Transport: HTTP}, `{"type":"http","url":"http://x/mcp"}`},
	} {
		v, err := tc.client.Render(tc.e)
		if want, ok := strings.CutPrefix(tc.want, "error: "); ok {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s %+v: %v, want an error with %q", tc.client.Target, tc.e, err, want)
			}
			continue
		}
		b, _ := json.Marshal(v)
		if err != nil || string(b) != tc.want {
			t.Errorf("%s %+v = %s, %v; want %s", tc.client.Target, tc.e, b, err, tc.want)
		}
	}
}
