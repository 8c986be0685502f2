package inspector_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mcpgen/mcpgen/connector"
	"github.com/mcpgen/mcpgen/internal/inspector"
	"github.com/mcpgen/mcpgen/internal/testenv"
)

// syncLog is a log the server writes while the test reads it.
type syncLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}
func (l *syncLog) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.buf.String() }

// TestInspectorOAuthSignIn serves the inspector on the origin of a
// connector that is its own authorization server (WithAuthUpstream, as
// `mcpgen dev --auth-upstream` is) in front of a GitHub stand-in, and
// signs in by OAuth in headless Chromium: Sign in with OAuth registers the
// inspector, goes through the connector's consent and the upstream's
// sign-in page, and comes back signed in; a tool needing the token
// answers for the upstream user; a token the server refuses is refreshed;
// Sign out forgets the tokens.
func TestInspectorOAuthSignIn(t *testing.T) {
	app := &connector.App{Name: "notes", Tools: []connector.Tool{
		{Name: "whoami", Description: "Who is calling.", Result: connector.ResultText,
			InputSchema: `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":false}`,
			Handler: func(ctx context.Context, _ json.RawMessage) (any, error) {
				return "signed in as " + connector.IdentityFrom(ctx).Name, nil
			}},
	}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	logs := &syncLog{}
	s, err := connector.NewServer(app, connector.WithLogger(slog.New(slog.NewTextHandler(logs, nil))), connector.WithPublicURL(base),
		connector.WithAuthUpstream(connector.AuthUpstream{Provider: testenv.GitHubStandIn(t, true), ClientID: "gh", ClientSecret: "s"}))
	if err != nil {
		t.Fatal(err)
	}
	insp, err := inspector.New(inspector.Options{MCP: s.Handler(), ProjectDir: t.TempDir(), Log: log.New(io.Discard, "", 0)})
	if err != nil {
		t.Fatal(err)
	}
	defer insp.Close()
	mux := http.NewServeMux()
	s.MountAuth(mux)
	mux.Handle("/", insp)
	ts := &httptest.Server{Listener: ln, Config: &http.Server{Handler: mux}}
	ts.Start()
	defer ts.Close()

	b := startBrowser(t)
	defer b.try("goto", map[string]any{"url": "about:blank"})
	defer func() {
		if t.Failed() {
			t.Logf("connector log:\n%s", logs)
		}
	}()
	b.do("clearConsole", nil)
	b.do("goto", map[string]any{"url": base + "/"})
	b.do("waitText", map[string]any{"text": "The server requires a bearer token"})
	b.do("click", map[string]any{"name": "Sign in with OAuth"})
	// The connector's consent page, then the upstream's sign-in page.
	b.do("click", map[string]any{"name": "Allow"})
	b.do("click", map[string]any{"name": "Sign in as octocat"})
	b.do("waitText", map[string]any{"text": "connected", "exact": true})
	first := b.str("eval", map[string]any{"expr": `sessionStorage.getItem("mcpgen.inspector.token")`})
	if first == "" || first == "gho_real" {
		t.Fatalf("sessionStorage holds %q; want the connector's access token", first)
	}
	if got := b.str("eval", map[string]any{"expr": `location.pathname`}); got != "/" {
		t.Errorf("after signing in the app is at %q; want /", got)
	}
	b.do("click", map[string]any{"name": "whoami"})
	b.do("click", map[string]any{"name": "Call"})
	b.do("waitText", map[string]any{"text": "signed in as The Octocat"})

	// A token the server refuses (as an expired one) is refreshed once,
	// and the call goes through.
	b.do("eval", map[string]any{"expr": `sessionStorage.setItem("mcpgen.inspector.token", "expired"), location.reload()`})
	b.do("waitText", map[string]any{"text": "connected", "exact": true})
	second := b.str("eval", map[string]any{"expr": `sessionStorage.getItem("mcpgen.inspector.token")`})
	if second == "expired" || second == first || second == "" {
		t.Errorf("after a refused token sessionStorage holds %q; want a refreshed one", second)
	}
	b.do("click", map[string]any{"name": "whoami"})
	b.do("click", map[string]any{"name": "Call"})
	b.do("waitText", map[string]any{"text": "signed in as The Octocat"})

	b.do("click", map[string]any{"name": "Sign out"})
	b.do("waitText", map[string]any{"text": "The server requires a bearer token"})
	if got := b.str("eval", map[string]any{"expr": `JSON.stringify([sessionStorage.getItem("mcpgen.inspector.token"), sessionStorage.getItem("mcpgen.inspector.oauth")])`}); got != "[null,null]" {
		t.Errorf("after Sign out sessionStorage holds %s; want no tokens", got)
	}
	if !strings.Contains(logs.String(), "auth: client registered") {
		t.Errorf("the connector's log does not record the inspector's registration")
	}
}
