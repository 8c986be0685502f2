package connector_test

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/mcpgen/mcpgen/connector"
	"github.com/mcpgen/mcpgen/internal/authgate"
	"github.com/mcpgen/mcpgen/internal/devlink"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// authIssuer is a minimal authorization server on loopback: RFC 8414
// metadata and a key set with one key generated for the test.
type authIssuer struct {
	*httptest.Server
	key *ecdsa.PrivateKey
}

func newAuthIssuer(t testing.TB) *authIssuer {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	is := &authIssuer{key: key}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"issuer": is.URL, "jwks_uri": is.URL + "/jwks"})
	})
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "k1", Algorithm: "ES256", Use: "sig"}}})
	})
	is.Server = httptest.NewServer(mux)
	t.Cleanup(is.Close)
	return is
}

func (is *authIssuer) token(t testing.TB, sub, aud, scope string, exp time.Time) string {
	t.Helper()
	sg, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: is.key, KeyID: "k1"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]any{"iss": is.URL, "sub": sub, "aud": aud, "scope": scope, "exp": exp.Unix(), "email": sub + "@example.com"})
	obj, err := sg.Sign(b)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := obj.CompactSerialize()
	return s
}

func authApp() *connector.App {
	text := func(f func(ctx context.Context) string) connector.ToolHandler {
		return func(ctx context.Context, _ json.RawMessage) (any, error) { return f(ctx), nil }
	}
	return &connector.App{
		Name: "notes",
		Tools: []connector.Tool{
			{Name: "whoami", Description: "Who is calling.", InputSchema: emptyInput, Result: connector.ResultText,
				Annotations: connector.Annotations{ReadOnly: true},
				Handler: text(func(ctx context.Context) string {
					id := connector.IdentityFrom(ctx)
					if id == nil {
						return "anonymous"
					}
					return fmt.Sprintf("%s %s %v", id.Subject, strings.Join(id.Scopes, ","), id.Claims["email"])
				})},
			{Name: "add_note", Description: "Adds a note.", InputSchema: emptyInput, Result: connector.ResultText,
				Scopes: []string{"notes:write"}, RateLimit: connector.Rate{N: 2, Per: time.Hour},
				Handler: text(func(ctx context.Context) string { return "added" })},
		},
		Resources: []connector.Resource{
			{URI: "notes://secret", Name: "secret", Description: "A secret.", MIMEType: "text/plain", Result: connector.ResultText,
				Scopes:  []string{"notes:admin"},
				Handler: func(context.Context, string, map[string]string) (any, error) { return "s3cret", nil }},
		},
	}
}

// serveAuth serves app with auth on a loopback port and returns its base
// URL and the log.
func serveAuth(t testing.TB, app *connector.App, a authgate.Auth, opts ...connector.Option) (string, *syncBuffer) {
	t.Helper()
	_, base, log := serveAuthServer(t, app, a, opts...)
	return base, log
}

// serveAuthServer is serveAuth, also returning the server.
func serveAuthServer(t testing.TB, app *connector.App, a authgate.Auth, opts ...connector.Option) (*connector.Server, string, *syncBuffer) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	log := &syncBuffer{}
	opts = append([]connector.Option{connector.WithLogger(quietLogger(log)), connector.WithPublicURL(base), connector.WithAuth(a)}, opts...)
	s, err := connector.NewServer(app, opts...)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	s.MountAuth(mux)
	mux.Handle("/mcp", s.Handler())
	ts := &httptest.Server{Listener: ln, Config: &http.Server{Handler: mux}}
	ts.Start()
	t.Cleanup(ts.Close)
	return s, base, log
}

// bearer adds a (changeable) access token to every request.
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

// authClient connects with a session (MCP 2025-11-25), which the server
// binds to the token's subject.
func authClient(t *testing.T, url string, b *bearer) (*mcp.ClientSession, error) {
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "auth-client", Version: "1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: b}}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

const authInitBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

func authPost(t *testing.T, url, token, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

func TestAuthChallenge(t *testing.T) {
	is := newAuthIssuer(t)
	base, log := serveAuth(t, authApp(), authgate.Auth{Issuer: is.URL})
	url := base + "/mcp"
	meta := base + "/.well-known/oauth-protected-resource/mcp"

	resp := authPost(t, url, "", authInitBody)
	if resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") != fmt.Sprintf("Bearer resource_metadata=%q", meta) {
		t.Errorf("no token: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	for _, tc := range []struct{ name, token, check string }{
		{"garbage", "not-a-token", "check=format"},
		{"wrong audience", is.token(t, "ann", "https://other.example.com/mcp", "", time.Now().Add(time.Hour)), "check=aud"},
		{"expired", is.token(t, "ann", url, "", time.Now().Add(-time.Hour)), "check=exp"},
	} {
		resp := authPost(t, url, tc.token, authInitBody)
		want := fmt.Sprintf(`Bearer error="invalid_token", resource_metadata=%q`, meta)
		if resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") != want {
			t.Errorf("%s: %d %q; want 401 %q", tc.name, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), want)
		}
		if !strings.Contains(log.String(), tc.check) {
			t.Errorf("%s: the log does not say %q:\n%s", tc.name, tc.check, log.String())
		}
	}

	// RFC 9728 metadata, at both paths, readable cross-origin.
	for _, u := range []string{base + "/.well-known/oauth-protected-resource", meta} {
		req, _ := http.NewRequest("GET", u, nil)
		req.Header.Set("Origin", "https://claude.ai")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		json.NewDecoder(resp.Body).Decode(&m)
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "*" || m["resource"] != url ||
			fmt.Sprint(m["authorization_servers"]) != "["+is.URL+"]" || fmt.Sprint(m["scopes_supported"]) != "[notes:admin notes:write]" ||
			fmt.Sprint(m["bearer_methods_supported"]) != "[header]" {
			t.Errorf("metadata at %s: %d %v", u, resp.StatusCode, m)
		}
	}
}

func TestAuthIdentityScopesSessions(t *testing.T) {
	is := newAuthIssuer(t)
	base, _ := serveAuth(t, authApp(), authgate.Auth{Issuer: is.URL})
	url := base + "/mcp"
	exp := time.Now().Add(time.Hour)

	ann := &bearer{token: is.token(t, "ann", url+"/", "notes:read", exp)}
	cs, err := authClient(t, url, ann)
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, call(t, cs, "whoami", nil)); got != "ann notes:read ann@example.com" {
		t.Errorf("whoami = %q", got)
	}

	// A tool declaring a scope the token lacks: 403 naming the scopes to
	// ask for (those granted plus those needed).
	resp := authPost(t, url, ann.token, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add_note","arguments":{}}}`)
	want := fmt.Sprintf(`Bearer error="insufficient_scope", scope="notes:read notes:write", resource_metadata=%q`, base+"/.well-known/oauth-protected-resource/mcp")
	if resp.StatusCode != 403 || resp.Header.Get("WWW-Authenticate") != want {
		t.Errorf("add_note without notes:write: %d %q; want 403 %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), want)
	}
	resp = authPost(t, url, ann.token, `{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"notes://secret"}}`)
	if resp.StatusCode != 403 || !strings.Contains(resp.Header.Get("WWW-Authenticate"), `scope="notes:admin notes:read"`) {
		t.Errorf("resources/read without notes:admin: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	// tools/list is not filtered: the client sees what it may step up to.
	lt, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(lt.Tools) != 2 {
		t.Errorf("tools/list = %v, %v", lt, err)
	}

	// With the scope (the client re-authorized), the same session goes on.
	ann.set(is.token(t, "ann", url, "notes:read notes:write", exp))
	if got := textOf(t, call(t, cs, "add_note", nil)); got != "added" {
		t.Errorf("add_note with notes:write = %q", got)
	}

	// Another subject's token on ann's session is refused.
	ann.set(is.token(t, "bob", url, "notes:read notes:write", exp))
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "whoami"}); err == nil {
		t.Errorf("bob's token was accepted on ann's session")
	}
}

func TestRateLimitPerCaller(t *testing.T) {
	is := newAuthIssuer(t)
	base, _ := serveAuth(t, authApp(), authgate.Auth{Issuer: is.URL})
	url := base + "/mcp"
	exp := time.Now().Add(time.Hour)
	ann, err := authClient(t, url, &bearer{token: is.token(t, "ann", url, "notes:write", exp)})
	if err != nil {
		t.Fatal(err)
	}
	bob, err := authClient(t, url, &bearer{token: is.token(t, "bob", url, "notes:write", exp)})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if res := call(t, ann, "add_note", nil); res.IsError {
			t.Fatalf("call %d: %s", i+1, textOf(t, res))
		}
	}
	res := call(t, ann, "add_note", nil)
	if !res.IsError || !strings.Contains(textOf(t, res), "Retry in") || !strings.Contains(textOf(t, res), "at most 2 calls to add_note per 1h") {
		t.Errorf("third call = %v %q; want an isError result with a retry time", res.IsError, textOf(t, res))
	}
	if res := call(t, bob, "add_note", nil); res.IsError {
		t.Errorf("bob was limited by ann's calls: %s", textOf(t, res))
	}
	// whoami has no limit of its own.
	if res := call(t, ann, "whoami", nil); res.IsError {
		t.Errorf("whoami: %s", textOf(t, res))
	}
}

func TestCustomVerifier(t *testing.T) {
	verify := func(_ context.Context, token string, _ *http.Request) (*authgate.Identity, error) {
		if token != "let-me-in" {
			return nil, fmt.Errorf("unknown key: %w", runtimeInvalid)
		}
		return &authgate.Identity{Subject: "custom", Expiry: time.Now().Add(time.Minute)}, nil
	}
	base, _ := serveAuth(t, authApp(), authgate.Auth{Issuer: "https://as.example.com", Verifier: verify})
	cs, err := authClient(t, base+"/mcp", &bearer{token: "let-me-in"})
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, call(t, cs, "whoami", nil)); !strings.HasPrefix(got, "custom") {
		t.Errorf("whoami = %q", got)
	}
	// The newest protocol version (no sessions) carries the identity per
	// request.
	cs2, err := mcp.NewClient(&mcp.Implementation{Name: "auth-client", Version: "1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: &bearer{token: "let-me-in"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs2.Close()
	if got := textOf(t, call(t, cs2, "whoami", nil)); !strings.HasPrefix(got, "custom") {
		t.Errorf("whoami (%s) = %q", cs2.InitializeResult().ProtocolVersion, got)
	}
	if resp := authPost(t, base+"/mcp", "wrong", authInitBody); resp.StatusCode != 401 {
		t.Errorf("wrong token: %d", resp.StatusCode)
	}
}

func TestAuthNeedsPublicURL(t *testing.T) {
	_, err := connector.NewServer(authApp(), connector.WithAuth(authgate.Auth{Issuer: "https://as.example.com"}))
	if err == nil || !strings.Contains(err.Error(), "--public-url") {
		t.Errorf("NewServer without a public URL = %v", err)
	}
	_, err = connector.NewServer(authApp(), connector.WithPublicURL("https://mcp.example.com"), connector.WithAuth(authgate.Auth{}))
	if err == nil || !strings.Contains(err.Error(), "--auth-issuer") {
		t.Errorf("NewServer without an issuer = %v", err)
	}
}

var runtimeInvalid = oauthInvalid()

func TestAuthFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--auth-audience", "api://x"}, nil, "--auth-audience needs --auth-issuer"},
		{nil, map[string]string{"MCPGEN_AUTH_SCOPES": "a"}, "--auth-scopes needs --auth-issuer"},
		{[]string{"--rate-limit", "ten/1m"}, nil, "invalid --rate-limit"},
		{nil, map[string]string{"MCPGEN_RATE_LIMIT": "10/never"}, "invalid --rate-limit"},
		{[]string{"--auth-issuer", "http://as.example.com", "--public-url", "https://mcp.example.com"}, nil, "https://"},
		{[]string{"--auth-issuer", "https://as.example.com"}, nil, "--public-url"},
		{[]string{"--auth-issuer", "https://as.example.com", "--public-url", "https://mcp.example.com", "--auth-introspection", "https://as.example.com/i"}, nil, "MCPGEN_AUTH_CLIENT_ID"},
		{[]string{"--auth-issuer", "as.example.com", "--public-url", "https://mcp.example.com"}, nil, "absolute URL"},
		{[]string{"--auth-issuer", "https://as.example.com", "--public-url", "https://mcp.example.com", "--auth-introspection", "http://as.example.com/i"}, nil, "--auth-introspection"},
		{[]string{"--auth-introspection-limit", "10/1m"}, nil, "--auth-introspection-limit needs --auth-issuer"},
		{[]string{"--auth-issuer", "https://as.example.com", "--public-url", "https://mcp.example.com", "--auth-introspection-caller-limit", "10/1m"}, nil, "needs --auth-introspection"},
		{[]string{"--auth-issuer", "https://as.example.com", "--public-url", "https://mcp.example.com", "--auth-introspection", "https://as.example.com/i", "--auth-introspection-limit", "lots"},
			map[string]string{"MCPGEN_AUTH_CLIENT_ID": "rs"}, "invalid --auth-introspection-limit"},
		{[]string{"--auth-issuer", "https://as.example.com", "--public-url", "https://mcp.example.com", "--auth-introspection", "https://as.example.com/i"},
			map[string]string{"MCPGEN_AUTH_CLIENT_ID": "rs", "MCPGEN_AUTH_INTROSPECTION_CALLER_LIMIT": "0/1m"}, "invalid --auth-introspection-caller-limit"},
		{[]string{"--auth-upstream", "github", "--auth-issuer", "https://as.example.com", "--public-url", "https://mcp.example.com"}, nil, "exclude each other"},
		{[]string{"--auth-upstream", "gitlab", "--public-url", "https://mcp.example.com"}, nil, "want github, google, entra:TENANT"},
		{[]string{"--auth-upstream", "entra:", "--public-url", "https://mcp.example.com"}, nil, "tenant"},
		{[]string{"--auth-upstream", "github", "--auth-client-id", "x", "--auth-client-secret", "y"}, nil, "--auth-upstream needs --public-url"},
		{[]string{"--auth-upstream", "google", "--public-url", "https://mcp.example.com", "--auth-client-secret", "y"}, nil, "needs --auth-client-id"},
		{nil, map[string]string{"MCPGEN_AUTH_UPSTREAM": "google", "MCPGEN_PUBLIC_URL": "https://mcp.example.com", "MCPGEN_AUTH_CLIENT_ID": "x"}, "needs --auth-client-secret"},
		{[]string{"--auth-upstream", "github", "--public-url", "https://mcp.example.com", "--auth-client-id", "x", "--auth-client-secret", "@/nonexistent/secret"}, nil, "--auth-client-secret: open /nonexistent/secret"},
		{[]string{"--auth-upstream", "github", "--public-url", "https://mcp.example.com", "--auth-client-id", "x", "--auth-client-secret", "y", "--auth-audience", "a"}, nil, "--auth-audience applies to --auth-issuer"},
		{[]string{"--auth-upstream-scopes", "repo"}, nil, "--auth-upstream-scopes needs --auth-upstream"},
	} {
		var stderr strings.Builder
		lookup := func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok }
		code := connector.Run(context.Background(), authApp(), tc.args, strings.NewReader(""), io.Discard, &stderr, connector.WithEnv(lookup))
		// A flag mistake is a usage error: exit 2, named by the binary.
		if code != 2 || !strings.Contains(stderr.String(), tc.want) || !strings.HasPrefix(stderr.String(), "notes: ") {
			t.Errorf("Run %q %v = %d, %q; want exit 2 naming %q", tc.args, tc.env, code, stderr.String(), tc.want)
		}
	}
}

// TestAuthFlagsStdio: over stdio there are no tokens; the auth flags are
// dropped with a notice, and the server-wide rate limit applies.
func TestAuthFlagsStdio(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- connector.Run(context.Background(), authApp(), []string{"--stdio", "--auth-issuer", "https://as.example.com", "--rate-limit", "1/1h"}, inR, outW, &stderr)
		outW.Close()
	}()
	go func() {
		io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"whoami","arguments":{}}}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"whoami","arguments":{}}}
`)
	}()
	sc := bufio.NewScanner(outR)
	var lines []string
	for len(lines) < 3 && sc.Scan() {
		lines = append(lines, sc.Text())
	}
	inW.Close()
	if code := <-done; code != 0 || !strings.Contains(stderr.String(), "ignored with --stdio") {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	all := strings.Join(lines, "\n")
	if !strings.Contains(all, "anonymous") || !strings.Contains(all, "Rate limit reached (at most 1 tool calls per 1h for each caller)") {
		t.Errorf("stdout = %s", all)
	}
}

// TestDevFront: behind mcpgen dev, the connector answers only requests
// carrying the run's key, and takes the caller from the front's header.
func TestDevFront(t *testing.T) {
	s, err := connector.NewServer(authApp(), connector.WithLogger(quietLogger(nil)), connector.WithDevFront("run-key"))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	post := func(key, identity string) int {
		req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(authInitBody))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if key != "" {
			req.Header.Set(devlink.KeyHeader, key)
		}
		if identity != "" {
			req.Header.Set(devlink.IdentityHeader, identity)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post("", ""); code != http.StatusForbidden {
		t.Errorf("no key: %d, want 403", code)
	}
	if code := post("wrong-key", devlink.EncodeIdentity(&authgate.Identity{Subject: "mallory"})); code != http.StatusForbidden {
		t.Errorf("wrong key: %d, want 403", code)
	}
	if code := post("run-key", "not base64!"); code != http.StatusBadRequest {
		t.Errorf("malformed identity: %d, want 400", code)
	}

	rt := &devFrontTransport{key: "run-key", id: devlink.EncodeIdentity(&authgate.Identity{Subject: "alice", Scopes: []string{"a"}, Claims: map[string]any{"email": "alice@example.com"}})}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "front", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: &http.Client{Transport: rt}}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if got := textOf(t, call(t, cs, "whoami", nil)); got != "alice a alice@example.com" {
		t.Errorf("whoami = %q", got)
	}
}

type devFrontTransport struct{ key, id string }

func (d *devFrontTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(devlink.KeyHeader, d.key)
	r.Header.Set(devlink.IdentityHeader, d.id)
	return http.DefaultTransport.RoundTrip(r)
}
