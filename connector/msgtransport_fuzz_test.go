package connector

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/authgate"
)

// FuzzStreamMessage sends any frame to a WebSocket or HTTP+SSE session of
// a caller without the scope a tool needs: the protected tool never runs,
// and the session goes on answering.
func FuzzStreamMessage(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"secret","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"open","name":"secret","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"Name":"secret","name":"open"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"secret"}} {"x":1}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","METHOD":"ping","params":{"name":"secret","_meta":{"progressToken":1}}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"secret"}}]`,
		`{"jsonrpc":"2.0","id":9007199254740993123,"method":"tools/call","params":{"name":"secret"}}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"secret"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{}`, `not json`, ``,
	} {
		f.Add([]byte(s))
	}
	var ran atomic.Int64
	app := &App{Name: "fuzz", Tools: []Tool{
		{Name: "secret", Description: "Needs s:admin.", InputSchema: `{"type":"object"}`, Result: ResultText, Scopes: []string{"s:admin"},
			Handler: func(context.Context, json.RawMessage) (any, error) { ran.Add(1); return "ran", nil }},
		{Name: "open", Description: "Needs nothing.", InputSchema: `{"type":"object"}`, Result: ResultText,
			Handler: func(context.Context, json.RawMessage) (any, error) { return "open", nil }},
	}}
	verify := func(context.Context, string, *http.Request) (*Identity, error) {
		return &Identity{Subject: "ann", Scopes: []string{"s:read"}}, nil
	}
	s, err := NewServer(app, WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))), WithPublicURL("http://127.0.0.1:1"),
		WithAuth(Auth{Issuer: "https://as.example.com", Verifier: verify}))
	if err != nil {
		f.Fatal(err)
	}
	tr := s.streams()
	ti := authgate.TokenInfo(&Identity{Subject: "ann", Scopes: []string{"s:read"}})
	f.Fuzz(func(t *testing.T, frame []byte) {
		out := make(chan []byte, 64)
		ctx := context.Background()
		send := func(_ context.Context, data []byte) error {
			select {
			case out <- append([]byte(nil), data...):
			default:
			}
			return nil
		}
		frameTo, end := tr.Loopback(ctx, send)
		defer end()
		deliver := func(m string) { frameTo([]byte(m), ti, http.Header{}) }
		deliver(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}`)
		deliver(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		before := ran.Load()
		frameTo(frame, ti, http.Header{})
		deliver(`{"jsonrpc":"2.0","id":"after","method":"tools/call","params":{"name":"open","arguments":{}}}`)
		timeout := time.After(10 * time.Second)
		for {
			select {
			case m := <-out:
				if strings.Contains(string(m), `"id":"after"`) {
					if ran.Load() != before {
						t.Fatalf("the tool needing s:admin ran for a caller without it, after %q", frame)
					}
					return
				}
			case <-timeout:
				t.Fatalf("the session stopped answering after %q", frame)
			}
		}
	})
}
