package authe2e_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// postInit sends an initialize request with token and returns the status
// and WWW-Authenticate header.
func postInit(t *testing.T, mcpURL, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, mcpURL, strings.NewReader(initialize))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("WWW-Authenticate")
}

// bearer adds a changeable access token to a client's requests.
type bearer struct {
	mu    sync.Mutex
	token string
}

func (b *bearer) set(tok string) { b.mu.Lock(); b.token = tok; b.mu.Unlock() }

func (b *bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	b.mu.Lock()
	tok := b.token
	b.mu.Unlock()
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+tok)
	return http.DefaultTransport.RoundTrip(r)
}

func connect(t *testing.T, mcpURL string, b *bearer) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "authe2e", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: mcpURL, HTTPClient: &http.Client{Transport: b}, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callText(t *testing.T, cs *mcp.ClientSession, name string) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

// TestTokenChecks: tokens the authorization server's own key signed but
// that are expired, for another resource or from another issuer, and a
// token signed by a key it never published, are all answered 401
// invalid_token, and the connector's log names the failed check; a session
// refuses another subject's token; rate limits are per caller; a rotated
// signing key is picked up without a restart.
func TestTokenChecks(t *testing.T) {
	base, p := serveJournal(t)
	mcpURL := base + "/mcp"
	meta := `resource_metadata="` + base + `/.well-known/oauth-protected-resource/mcp"`
	tok := func(kv ...string) string {
		q := url.Values{"aud": {mcpURL}, "scope": {"notes:read"}}
		for i := 0; i < len(kv); i += 2 {
			q.Set(kv[i], kv[i+1])
		}
		return mint(t, q)
	}

	if code, _ := postInit(t, mcpURL, tok()); code != http.StatusOK {
		t.Fatalf("a good token: %d", code)
	}
	for _, tc := range []struct{ name, token, check string }{
		{"expired", tok("exp", "-3600"), "check=exp"},
		{"wrong audience", tok("aud", "http://127.0.0.1:1/mcp"), "check=aud"},
		{"wrong issuer", tok("iss", "http://127.0.0.1:1"), "check=iss"},
		{"unpublished key", tok("key", "stranger"), "check=kid"},
		{"tampered", tok()[:40] + "x" + tok()[41:], "check="},
	} {
		code, challenge := postInit(t, mcpURL, tc.token)
		if code != http.StatusUnauthorized || !strings.Contains(challenge, `error="invalid_token"`) || !strings.Contains(challenge, meta) {
			t.Errorf("%s: %d %q; want 401 with invalid_token and the metadata URL", tc.name, code, challenge)
		}
		if !p.waitLog(tc.check) {
			t.Errorf("%s: the connector's log does not say %q", tc.name, tc.check)
		}
	}

	t.Run("another subject on a session", func(t *testing.T) {
		b := &bearer{token: tok("sub", "alice")}
		cs := connect(t, mcpURL, b)
		if got, _ := callText(t, cs, "whoami"); got != "alice" {
			t.Fatalf("whoami = %q", got)
		}
		b.set(tok("sub", "mallory"))
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "whoami", Arguments: map[string]any{}}); err == nil {
			t.Errorf("mallory's token was accepted on alice's session")
		}
	})

	t.Run("rate limit", func(t *testing.T) {
		alice := connect(t, mcpURL, &bearer{token: tok("sub", "rl-alice")})
		bob := connect(t, mcpURL, &bearer{token: tok("sub", "rl-bob")})
		for i := range 2 {
			if got, isErr := callText(t, alice, "ping"); isErr || got != "pong" {
				t.Fatalf("ping %d = %q, %v", i+1, got, isErr)
			}
		}
		got, isErr := callText(t, alice, "ping")
		if !isErr || !strings.Contains(got, "Retry in") {
			t.Errorf("third ping = %q, %v; want an isError result saying when to retry", got, isErr)
		}
		if got, isErr := callText(t, bob, "ping"); isErr || got != "pong" {
			t.Errorf("another caller was limited: %q", got)
		}
	})

	t.Run("key rotation", func(t *testing.T) {
		before := tok()
		kid := rotate(t)
		after := tok()
		// The connector refetches the key set for the unknown key id, at
		// most once every few seconds: within a bounded wait the new key
		// verifies, with no restart.
		deadline := time.Now().Add(20 * time.Second)
		for {
			code, _ := postInit(t, mcpURL, after)
			if code == http.StatusOK {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("a token signed with the new key %s is still refused: %d", kid, code)
			}
			time.Sleep(250 * time.Millisecond)
		}
		if code, _ := postInit(t, mcpURL, before); code != http.StatusOK {
			t.Errorf("a token of the previous key (still published) = %d", code)
		}
	})
}
