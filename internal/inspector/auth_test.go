package inspector_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpgen/mcpgen/internal/authgate"
	"github.com/mcpgen/mcpgen/internal/inspector"
)

// TestInspectorSignIn serves the inspector around a server behind mcpgen's
// auth gate (as `mcpgen dev --auth-issuer` does) and signs in in headless
// Chromium: without a token the app asks for one instead of failing with
// "Unauthorized"; a refused token says so; a good one is kept in the tab's
// sessionStorage and sent with every request; a tool needing a scope the
// token lacks names the scope problem.
func TestInspectorSignIn(t *testing.T) {
	srv := echoServer(t)
	tokens := map[string][]string{"tok-read": {"read"}}
	gate, err := authgate.New(authgate.Config{
		Auth: authgate.Auth{Issuer: "https://issuer.example.test", Verifier: func(_ context.Context, token string, _ *http.Request) (*authgate.Identity, error) {
			scopes, ok := tokens[token]
			if !ok {
				return nil, fmt.Errorf("%w: unknown token", auth.ErrInvalidToken)
			}
			return &authgate.Identity{Subject: "ada", Scopes: scopes}, nil
		}},
		PublicURL: "http://127.0.0.1",
		Logger:    slog.New(slog.NewTextHandler(io.Discard, nil)),
		ScopesFor: func(method, name, uri string) []string {
			if method == "tools/call" && name == "big" {
				return []string{"admin"}
			}
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	handler := gate.Wrap(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	insp, err := inspector.New(inspector.Options{MCP: handler, ProjectDir: t.TempDir(), Log: log.New(io.Discard, "", 0)})
	if err != nil {
		t.Fatal(err)
	}
	defer insp.Close()
	ts := httptest.NewServer(insp)
	defer ts.Close()

	b := startBrowser(t)
	defer b.try("goto", map[string]any{"url": "about:blank"})
	b.do("clearConsole", nil)
	b.do("goto", map[string]any{"url": ts.URL + "/"})
	b.do("waitText", map[string]any{"text": "The server requires a bearer token"})

	b.do("fill", map[string]any{"label": "bearer token", "value": "tok-wrong"})
	b.do("click", map[string]any{"name": "Sign in"})
	b.do("waitText", map[string]any{"text": "The server refused the token (401)"})

	b.do("fill", map[string]any{"label": "bearer token", "value": "tok-read"})
	b.do("click", map[string]any{"name": "Sign in"})
	b.do("waitText", map[string]any{"text": "connected", "exact": true})
	if got := b.str("eval", map[string]any{"expr": `sessionStorage.getItem("mcpgen.inspector.token")`}); got != "tok-read" {
		t.Errorf("sessionStorage holds %q, want the pasted token", got)
	}
	b.do("click", map[string]any{"name": "lost_view"})
	b.do("click", map[string]any{"name": "Call"})
	b.do("waitText", map[string]any{"text": "done", "exact": true})

	b.do("click", map[string]any{"name": "big"})
	b.do("click", map[string]any{"name": "Call"})
	b.do("waitText", map[string]any{"text": "The server refused this request (403, insufficient scope)"})

	b.do("click", map[string]any{"name": "Sign out"})
	b.do("waitText", map[string]any{"text": "The server requires a bearer token"})
}
