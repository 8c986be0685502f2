package authserver_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/connector/authserver"
	"github.com/mcpgen/mcpgen/connector/oauth"
	"github.com/mcpgen/mcpgen/connector/store"
)

// gitHub is a local stand-in for GitHub's OAuth app endpoints, with the
// same paths and answer shapes: /login/oauth/authorize signs the user in
// at once and returns the browser, /login/oauth/access_token checks the
// client, the code and its PKCE verifier, /user answers for the token.
type gitHub struct {
	srv       *httptest.Server
	mu        sync.Mutex
	codes     map[string]string // code -> code_challenge
	tokens    map[string]bool
	refuse    atomic.Bool // the user declines at the upstream
	badToken  atomic.Bool // the token endpoint refuses every code
	expiring  atomic.Bool // tokens expire within seconds and come with a refresh token
	refreshed atomic.Int64
	refreshes map[string]bool
	issued    atomic.Int64
}

func newGitHub(t testing.TB) *gitHub {
	g := &gitHub{codes: map[string]string{}, tokens: map[string]bool{}, refreshes: map[string]bool{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /login/oauth/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("client_id") != "gh-client" || q.Get("code_challenge_method") != "S256" || q.Get("state") == "" {
			http.Error(w, "bad authorize request", http.StatusBadRequest)
			return
		}
		back, _ := url.Parse(q.Get("redirect_uri"))
		v := url.Values{"state": {q.Get("state")}}
		if g.refuse.Load() {
			v.Set("error", "access_denied")
		} else {
			code := fmt.Sprintf("ghcode-%d", g.issued.Add(1))
			g.mu.Lock()
			g.codes[code] = q.Get("code_challenge")
			g.mu.Unlock()
			v.Set("code", code)
		}
		back.RawQuery = v.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
	})
	mux.HandleFunc("POST /login/oauth/access_token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		id, secret, ok := r.BasicAuth()
		if !ok {
			id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
		}
		if r.PostForm.Get("grant_type") == "refresh_token" {
			g.mu.Lock()
			known := g.refreshes[r.PostForm.Get("refresh_token")]
			delete(g.refreshes, r.PostForm.Get("refresh_token"))
			g.mu.Unlock()
			if !known || id != "gh-client" || secret != "gh-secret" {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				io.WriteString(w, `{"error":"bad_refresh_token"}`)
				return
			}
			g.refreshed.Add(1)
			g.grant(w)
			return
		}
		g.mu.Lock()
		challenge, known := g.codes[r.PostForm.Get("code")]
		delete(g.codes, r.PostForm.Get("code"))
		g.mu.Unlock()
		sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		w.Header().Set("Content-Type", "application/json")
		if id != "gh-client" || secret != "gh-secret" || !known || g.badToken.Load() ||
			base64.RawURLEncoding.EncodeToString(sum[:]) != challenge {
			json.NewEncoder(w).Encode(map[string]string{"error": "bad_verification_code"})
			return
		}
		g.grant(w)
	})
	mux.HandleFunc("GET /user", func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		ok := g.tokens[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
		g.mu.Unlock()
		if !ok {
			http.Error(w, `{"message":"Bad credentials"}`, http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"login":"octocat","id":583231,"name":"The Octocat","email":"octo@example.com"}`)
	})
	g.srv = httptest.NewServer(mux)
	t.Cleanup(g.srv.Close)
	return g
}

// grant answers a token request with a new token.
func (g *gitHub) grant(w http.ResponseWriter) {
	tok := fmt.Sprintf("gho_%d", g.issued.Add(1))
	out := map[string]any{"access_token": tok, "token_type": "bearer", "scope": "read:user"}
	g.mu.Lock()
	g.tokens[tok] = true
	if g.expiring.Load() {
		rt := fmt.Sprintf("ghr_%d", g.issued.Add(1))
		g.refreshes[rt] = true
		out["refresh_token"], out["expires_in"] = rt, 5
	}
	g.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(out)
}

func (g *gitHub) upstream() authserver.Upstream {
	return authserver.Upstream{Name: "github", AuthURL: g.srv.URL + "/login/oauth/authorize",
		TokenURL: g.srv.URL + "/login/oauth/access_token", UserURL: g.srv.URL + "/user", Scopes: []string{"read:user"}}
}

// logs collects what the server logs, to check refusals say why.
type logs struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logs) Write(p []byte) (int, error) { l.mu.Lock(); defer l.mu.Unlock(); return l.buf.Write(p) }
func (l *logs) String() string              { l.mu.Lock(); defer l.mu.Unlock(); return l.buf.String() }

type rig struct {
	t    testing.TB
	as   *authserver.Server
	url  string
	gh   *gitHub
	logs *logs
	st   store.Store
}

func newRig(t *testing.T, up func(*gitHub) authserver.Upstream) *rig {
	return newReplicas(t, up, 1)
}

// newReplicas is newRig with n servers sharing one store behind one
// public URL, each request going to the next one in turn, as a load
// balancer would send the legs of one sign-in to different replicas.
func newReplicas(t testing.TB, up func(*gitHub) authserver.Upstream, n int, opts ...func(*authserver.Config)) *rig {
	if pt, ok := t.(*testing.T); ok {
		pt.Parallel()
	}
	gh := newGitHub(t)
	var muxes []*http.ServeMux
	var turn atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(turn.Add(1)) % len(muxes)
		w.Header().Set("X-Replica", fmt.Sprint(i))
		muxes[i].ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	l := &logs{}
	st := store.NewMemory(store.MemoryOptions{})
	if up == nil {
		up = (*gitHub).upstream
	}
	var as *authserver.Server
	for range n {
		cfg := authserver.Config{PublicURL: srv.URL, Upstream: up(gh), ClientID: "gh-client", ClientSecret: "gh-secret",
			Scopes: []string{"notes:read"}, Store: st, Name: "Notes", Logger: slog.New(slog.NewTextHandler(l, nil))}
		for _, o := range opts {
			o(&cfg)
		}
		a, err := authserver.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		mux := http.NewServeMux()
		a.Mount(mux)
		muxes = append(muxes, mux)
		as = a
	}
	return &rig{t: t, as: as, url: srv.URL, gh: gh, logs: l, st: st}
}

const redirectURI = "http://127.0.0.1:33418/callback"

// register registers a public client.
func (r *rig) register(redirects ...string) string {
	r.t.Helper()
	if len(redirects) == 0 {
		redirects = []string{redirectURI}
	}
	body, _ := json.Marshal(map[string]any{"redirect_uris": redirects, "client_name": "Test Client", "token_endpoint_auth_method": "none"})
	resp, err := http.Post(r.url+"/register", "application/json", bytes.NewReader(body))
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	if resp.StatusCode != http.StatusCreated || out["client_id"] == nil {
		r.t.Fatalf("register: %s %v", resp.Status, out)
	}
	return out["client_id"].(string)
}

// browser is an HTTP client that keeps cookies and stops at redirects
// to the MCP client's redirect URI.
func browser() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if strings.HasPrefix(req.URL.String(), "http://127.0.0.1:33418/") {
			return http.ErrUseLastResponse
		}
		return nil
	}}
}

func pkce() (verifier, challenge string) {
	verifier = strings.Repeat("v", 20) + fmt.Sprint(time.Now().UnixNano()) + strings.Repeat("x", 10)
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

func (r *rig) authorizeURL(client, redirect, challenge string) string {
	q := url.Values{"client_id": {client}, "redirect_uri": {redirect}, "response_type": {"code"},
		"code_challenge": {challenge}, "code_challenge_method": {"S256"}, "state": {"st-1"}, "scope": {"notes:read"},
		"resource": {r.url + "/mcp"}}
	return r.url + "/authorize?" + q.Encode()
}

var formField = regexp.MustCompile(`name="(pending|csrf)" value="([^"]*)"`)

// consentForm opens /authorize and returns the consent page's fields.
func (r *rig) consentForm(b *http.Client, authURL string) (url.Values, string) {
	r.t.Helper()
	resp, err := b.Get(authURL)
	if err != nil {
		r.t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		r.t.Fatalf("authorize: %s %s", resp.Status, page)
	}
	form := url.Values{}
	for _, m := range formField.FindAllStringSubmatch(string(page), -1) {
		form.Set(m[1], m[2])
	}
	return form, string(page)
}

// signIn runs the browser leg and returns the MCP client's redirect.
func (r *rig) signIn(client, challenge string) *url.URL {
	r.t.Helper()
	b := browser()
	form, page := r.consentForm(b, r.authorizeURL(client, redirectURI, challenge))
	if !strings.Contains(page, "<strong>"+map[bool]string{true: "Doc Client", false: "Test Client"}[strings.HasPrefix(client, "https://")]+"</strong>") ||
		!strings.Contains(page, client) || !strings.Contains(page, "127.0.0.1:33418") {
		r.t.Fatalf("the consent page does not name the client and where it returns:\n%s", page)
	}
	form.Set("action", "allow")
	resp, err := b.PostForm(r.url+"/authorize", form)
	if err != nil {
		r.t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		r.t.Fatalf("sign-in ended with %s, not a redirect to the client", resp.Status)
	}
	u, _ := url.Parse(resp.Header.Get("Location"))
	return u
}

// tokens posts to /token.
func (r *rig) tokens(form url.Values) (int, map[string]any) {
	r.t.Helper()
	resp, err := http.PostForm(r.url+"/token", form)
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

func (r *rig) redeem(client, code, verifier string) (int, map[string]any) {
	return r.tokens(url.Values{"grant_type": {"authorization_code"}, "client_id": {client}, "code": {code},
		"redirect_uri": {redirectURI}, "code_verifier": {verifier}})
}

func (r *rig) refresh(client, rt string) (int, map[string]any) {
	return r.tokens(url.Values{"grant_type": {"refresh_token"}, "client_id": {client}, "refresh_token": {rt}})
}

func (r *rig) verify(tok any) (*authserver.Grant, error) {
	s, _ := tok.(string)
	return r.as.Verify(context.Background(), s)
}

// flow runs a whole sign-in and returns the token response.
func (r *rig) flow() (client string, out map[string]any) {
	r.t.Helper()
	client = r.register()
	verifier, challenge := pkce()
	back := r.signIn(client, challenge)
	if back.Query().Get("state") != "st-1" || back.Query().Get("iss") != r.url {
		r.t.Fatalf("redirect to the client %s lacks the state or iss", back)
	}
	status, out := r.redeem(client, back.Query().Get("code"), verifier)
	if status != http.StatusOK {
		r.t.Fatalf("token: %d %v\nlog:\n%s", status, out, r.logs)
	}
	return client, out
}

func (r *rig) wantLog(what string) {
	r.t.Helper()
	if !strings.Contains(r.logs.String(), what) {
		r.t.Errorf("the log does not say %q:\n%s", what, r.logs)
	}
}

func TestGitHubFlow(t *testing.T) {
	r := newRig(t, nil)
	client, out := r.flow()
	g, err := r.verify(out["access_token"])
	if err != nil {
		t.Fatalf("Verify of the issued token: %v", err)
	}
	if g.Subject != "583231" || g.Email != "octo@example.com" || g.Name != "The Octocat" || g.ClientID != client ||
		len(g.Scopes) != 1 || g.Scopes[0] != "notes:read" {
		t.Errorf("grant = %+v; want GitHub user 583231 with scope notes:read", g)
	}
	up, err := r.as.UpstreamToken(context.Background(), g.ID)
	if err != nil || !strings.HasPrefix(up, "gho_") {
		t.Errorf("UpstreamToken = %q, %v; want the GitHub token", up, err)
	}
	// The upstream's token is not one of the connector's.
	if _, err := r.as.Verify(context.Background(), up); !errors.Is(err, oauth.ErrInvalidToken) {
		t.Errorf("Verify of the upstream token: %v; want ErrInvalidToken", err)
	}
}

func TestMetadata(t *testing.T) {
	r := newRig(t, nil)
	resp, err := http.Get(r.url + "/.well-known/oauth-authorization-server")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var md map[string]any
	json.NewDecoder(resp.Body).Decode(&md)
	if md["issuer"] != r.url || md["registration_endpoint"] != r.url+"/register" || md["token_endpoint"] != r.url+"/token" ||
		fmt.Sprint(md["code_challenge_methods_supported"]) != "[S256]" || fmt.Sprint(md["scopes_supported"]) != "[notes:read]" {
		t.Errorf("metadata = %v", md)
	}
}

func TestRefreshRotationAndReuse(t *testing.T) {
	r := newRig(t, nil)
	client, out := r.flow()
	first := out["refresh_token"].(string)
	status, out2 := r.refresh(client, first)
	if status != http.StatusOK || out2["refresh_token"] == first {
		t.Fatalf("refresh: %d %v; want a new refresh token", status, out2)
	}
	if _, err := r.verify(out2["access_token"]); err != nil {
		t.Fatalf("the refreshed access token: %v", err)
	}
	// The rotated-out token again: refused, and the family is revoked.
	if status, _ := r.refresh(client, first); status != http.StatusBadRequest {
		t.Fatalf("reuse of a rotated refresh token: %d; want 400", status)
	}
	r.wantLog("a refresh token was used after it was rotated")
	if status, _ := r.refresh(client, out2["refresh_token"].(string)); status != http.StatusBadRequest {
		t.Errorf("the newest refresh token of a revoked family still works: %d", status)
	}
	if _, err := r.verify(out2["access_token"]); !errors.Is(err, oauth.ErrInvalidToken) {
		t.Errorf("an access token of a revoked family still verifies: %v", err)
	}
}

func TestReplayedCodeRevokes(t *testing.T) {
	r := newRig(t, nil)
	client := r.register()
	verifier, challenge := pkce()
	code := r.signIn(client, challenge).Query().Get("code")
	status, out := r.redeem(client, code, verifier)
	if status != http.StatusOK {
		t.Fatalf("first redemption: %d %v", status, out)
	}
	if status, _ := r.redeem(client, code, verifier); status != http.StatusBadRequest {
		t.Fatalf("replayed code: %d; want 400", status)
	}
	r.wantLog("an authorization code was redeemed twice")
	if _, err := r.verify(out["access_token"]); !errors.Is(err, oauth.ErrInvalidToken) {
		t.Errorf("what a replayed code issued still verifies: %v", err)
	}
}

func TestTokenRefusals(t *testing.T) {
	r := newRig(t, nil)
	client := r.register()
	other := r.register()
	for _, c := range []struct {
		name  string
		form  func(code, verifier string) url.Values
		error string
		log   string
	}{
		{"missing verifier", func(code, _ string) url.Values {
			return url.Values{"grant_type": {"authorization_code"}, "client_id": {client}, "code": {code}, "redirect_uri": {redirectURI}}
		}, "invalid_grant", "PKCE"},
		{"wrong verifier", func(code, v string) url.Values {
			return url.Values{"grant_type": {"authorization_code"}, "client_id": {client}, "code": {code}, "redirect_uri": {redirectURI},
				"code_verifier": {v[:len(v)-1] + "Z"}}
		}, "invalid_grant", "PKCE"},
		{"wrong redirect URI", func(code, v string) url.Values {
			return url.Values{"grant_type": {"authorization_code"}, "client_id": {client}, "code": {code},
				"redirect_uri": {"http://127.0.0.1:33418/other"}, "code_verifier": {v}}
		}, "invalid_grant", "redirect_uri differs"},
		{"another client", func(code, v string) url.Values {
			return url.Values{"grant_type": {"authorization_code"}, "client_id": {other}, "code": {code},
				"redirect_uri": {redirectURI}, "code_verifier": {v}}
		}, "invalid_grant", "another client"},
		{"unknown client", func(code, v string) url.Values {
			return url.Values{"grant_type": {"authorization_code"}, "client_id": {"nobody"}, "code": {code},
				"redirect_uri": {redirectURI}, "code_verifier": {v}}
		}, "invalid_client", "unknown client"},
		{"unknown grant type", func(code, v string) url.Values {
			return url.Values{"grant_type": {"password"}, "client_id": {client}}
		}, "unsupported_grant_type", "grant_type must be"},
	} {
		t.Run(c.name, func(t *testing.T) {
			verifier, challenge := pkce()
			code := r.signIn(client, challenge).Query().Get("code")
			status, out := r.tokens(c.form(code, verifier))
			if status < 400 || out["error"] != c.error {
				t.Fatalf("%d %v; want error %s", status, out, c.error)
			}
			r.wantLog(c.log)
			// The code was spent by the refused attempt: one use only.
			if status, _ := r.redeem(client, code, verifier); status == http.StatusOK && c.error != "invalid_client" && c.error != "unsupported_grant_type" {
				t.Error("the code still works after a refused redemption")
			}
		})
	}
}

// authorizeRefusal opens an /authorize URL and returns the status and,
// for a redirect, where to.
func authorizeRefusal(t *testing.T, u string) (int, string, string) {
	t.Helper()
	resp, err := browser().Get(u)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Location"), string(body)
}

func TestAuthorizeRefusals(t *testing.T) {
	r := newRig(t, nil)
	client := r.register()
	_, challenge := pkce()
	good := r.authorizeURL(client, redirectURI, challenge)
	edit := func(k, v string) string {
		u, _ := url.Parse(good)
		q := u.Query()
		if v == "" {
			q.Del(k)
		} else {
			q.Set(k, v)
		}
		u.RawQuery = q.Encode()
		return u.String()
	}
	// Before the redirect URI is known good: a page, never a redirect.
	for name, u := range map[string]string{
		"unknown client":     edit("client_id", "nobody"),
		"wrong redirect URI": edit("redirect_uri", "https://evil.example/cb"),
		"near redirect URI":  edit("redirect_uri", redirectURI+"/"),
		"repeated parameter": good + "&redirect_uri=https://evil.example/cb",
		"missing client":     edit("client_id", ""),
	} {
		status, loc, body := authorizeRefusal(t, u)
		if status != http.StatusBadRequest || loc != "" || !strings.Contains(body, "Sign-in failed") {
			t.Errorf("%s: %d to %q; want a 400 page", name, status, loc)
		}
	}
	// After: back to the client with the error.
	for name, c := range map[string]struct{ url, error string }{
		"no PKCE":        {edit("code_challenge", ""), "invalid_request"},
		"plain PKCE":     {edit("code_challenge_method", "plain"), "invalid_request"},
		"token flow":     {edit("response_type", "token"), "unsupported_response_type"},
		"other resource": {edit("resource", "https://other.example/mcp"), "invalid_target"},
		"unknown scope":  {edit("scope", "admin"), "invalid_scope"},
	} {
		status, loc, _ := authorizeRefusal(t, c.url)
		u, _ := url.Parse(loc)
		if status != http.StatusFound || !strings.HasPrefix(loc, redirectURI+"?") || u.Query().Get("error") != c.error || u.Query().Get("state") != "st-1" {
			t.Errorf("%s: %d to %q; want a redirect to the client with error=%s", name, status, loc, c.error)
		}
	}
	r.wantLog("redirect_uri is not registered")
}

func TestConsent(t *testing.T) {
	r := newRig(t, nil)
	client := r.register()
	_, challenge := pkce()
	t.Run("deny", func(t *testing.T) {
		b := browser()
		form, _ := r.consentForm(b, r.authorizeURL(client, redirectURI, challenge))
		form.Set("action", "deny")
		resp, err := b.PostForm(r.url+"/authorize", form)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		u, _ := url.Parse(resp.Header.Get("Location"))
		if !strings.HasPrefix(u.String(), redirectURI) || u.Query().Get("error") != "access_denied" {
			t.Errorf("deny went to %s; want the client with access_denied", u)
		}
	})
	t.Run("another browser", func(t *testing.T) {
		form, _ := r.consentForm(browser(), r.authorizeURL(client, redirectURI, challenge))
		form.Set("action", "allow")
		resp, err := browser().PostForm(r.url+"/authorize", form) // no consent cookie
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("consent from a browser without the cookie: %s; want 403", resp.Status)
		}
	})
	t.Run("forged token", func(t *testing.T) {
		b := browser()
		form, _ := r.consentForm(b, r.authorizeURL(client, redirectURI, challenge))
		form.Set("action", "allow")
		form.Set("csrf", "forged")
		resp, err := b.PostForm(r.url+"/authorize", form)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("consent with a forged form token: %s; want 403", resp.Status)
		}
	})
	r.wantLog("the form token is missing or wrong")
	r.wantLog("no consent cookie")
}

func TestCallbackRefusals(t *testing.T) {
	t.Run("expired state", func(t *testing.T) {
		r := newRig(t, nil)
		status, loc, _ := authorizeRefusal(t, r.url+"/oauth/callback?state=forged&code=x")
		if status != http.StatusBadRequest || loc != "" {
			t.Errorf("unknown state: %d to %q; want a 400 page", status, loc)
		}
		r.wantLog("the state is unknown, expired or already used")
	})
	t.Run("upstream refusal", func(t *testing.T) {
		r := newRig(t, nil)
		r.gh.refuse.Store(true)
		_, challenge := pkce()
		back := r.signIn(r.register(), challenge)
		if back.Query().Get("error") != "access_denied" || back.Query().Get("state") != "st-1" {
			t.Errorf("the client got %s; want access_denied", back)
		}
		r.wantLog("the upstream refused the sign-in")
	})
	t.Run("upstream error", func(t *testing.T) {
		r := newRig(t, nil)
		r.gh.badToken.Store(true)
		_, challenge := pkce()
		back := r.signIn(r.register(), challenge)
		if back.Query().Get("error") != "access_denied" {
			t.Errorf("the client got %s; want access_denied", back)
		}
		r.wantLog("the upstream code exchange failed")
	})
	t.Run("upstream unreachable", func(t *testing.T) {
		r := newRig(t, func(g *gitHub) authserver.Upstream {
			u := g.upstream()
			u.TokenURL = "http://127.0.0.1:1/login/oauth/access_token"
			return u
		})
		_, challenge := pkce()
		back := r.signIn(r.register(), challenge)
		if back.Query().Get("error") != "temporarily_unavailable" {
			t.Errorf("the client got %s; want temporarily_unavailable", back)
		}
		r.wantLog("the upstream code exchange failed")
	})
}

func TestRegisterRefusals(t *testing.T) {
	r := newRig(t, nil)
	for name, body := range map[string]string{
		"no redirect":    `{"client_name":"x"}`,
		"http remote":    `{"redirect_uris":["http://evil.example/cb"]}`,
		"javascript":     `{"redirect_uris":["javascript:alert(1)"]}`,
		"fragment":       `{"redirect_uris":["https://a.example/cb#x"]}`,
		"relative":       `{"redirect_uris":["/cb"]}`,
		"implicit":       `{"redirect_uris":["https://a.example/cb"],"grant_types":["implicit"]}`,
		"not json":       `redirect_uris=x`,
		"unknown method": `{"redirect_uris":["https://a.example/cb"],"token_endpoint_auth_method":"private_key_jwt"}`,
	} {
		resp, err := http.Post(r.url+"/register", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: %s; want 400", name, resp.Status)
		}
	}
}

func TestConfidentialClient(t *testing.T) {
	r := newRig(t, nil)
	resp, err := http.Post(r.url+"/register", "application/json", strings.NewReader(`{"redirect_uris":["`+redirectURI+`"],"client_name":"Test Client"}`))
	if err != nil {
		t.Fatal(err)
	}
	var reg map[string]any
	json.NewDecoder(resp.Body).Decode(&reg)
	resp.Body.Close()
	client, secret := reg["client_id"].(string), reg["client_secret"].(string)
	verifier, challenge := pkce()
	code := r.signIn(client, challenge).Query().Get("code")
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirectURI}, "code_verifier": {verifier}}
	req, _ := http.NewRequest(http.MethodPost, r.url+"/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(client, secret+"x")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a wrong client secret: %s; want 401", resp.Status)
	}
	req, _ = http.NewRequest(http.MethodPost, r.url+"/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(client, secret)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("the right client secret: %s; want 200", resp.Status)
	}
}

func TestRevoke(t *testing.T) {
	r := newRig(t, nil)
	client, out := r.flow()
	resp, err := http.PostForm(r.url+"/revoke", url.Values{"client_id": {client}, "token": {out["refresh_token"].(string)}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("revoke: %s", resp.Status)
	}
	if _, err := r.verify(out["access_token"]); !errors.Is(err, oauth.ErrInvalidToken) {
		t.Errorf("an access token of a revoked grant still verifies: %v", err)
	}
}

func TestParseUpstream(t *testing.T) {
	for in, want := range map[string]string{
		"github": "",
		"google": "https://accounts.google.com",
		"entra:72f988bf-86f1-41af-91ab-2d7cd011db47": "https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47/v2.0",
		"https://example.okta.com":                   "https://example.okta.com",
	} {
		u, err := authserver.ParseUpstream(in)
		if err != nil || u.Issuer != want {
			t.Errorf("ParseUpstream(%q) = %+v, %v; want issuer %q", in, u, err, want)
		}
	}
	for _, bad := range []string{"", "gitlab", "entra:", "entra:a/b", "entra:contoso.onmicrosoft.com", "entra:common", "http://idp.example.com", "https://idp.example.com/?x=1"} {
		if _, err := authserver.ParseUpstream(bad); err == nil {
			t.Errorf("ParseUpstream(%q) is not an error", bad)
		}
	}
}

// TestUpstreamTokenRefresh: an expired upstream token is refreshed with
// the upstream's refresh token, and the new one is kept; once the upstream
// refuses, the user must sign in again.
func TestUpstreamTokenRefresh(t *testing.T) {
	r := newRig(t, nil)
	r.gh.expiring.Store(true)
	_, out := r.flow()
	g, err := r.verify(out["access_token"])
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	first, err := r.as.UpstreamToken(ctx, g.ID)
	if err != nil || r.gh.refreshed.Load() != 1 {
		t.Fatalf("UpstreamToken = %q, %v after %d refreshes; want one refresh", first, err, r.gh.refreshed.Load())
	}
	second, err := r.as.UpstreamToken(ctx, g.ID)
	if err != nil || second == first || r.gh.refreshed.Load() != 2 {
		t.Fatalf("UpstreamToken again = %q, %v; want a second refresh with the stored refresh token", second, err)
	}
	r.gh.mu.Lock()
	clear(r.gh.refreshes)
	r.gh.mu.Unlock()
	if _, err := r.as.UpstreamToken(ctx, g.ID); !errors.Is(err, authserver.ErrNoUpstreamToken) {
		t.Errorf("UpstreamToken with a refresh token the upstream refuses: %v; want ErrNoUpstreamToken", err)
	}
	r.wantLog("cannot refresh the upstream token")
}

// TestReplicas: three servers sharing one store, every request of the
// flow on another one than the last (registration, authorize, consent,
// callback, token, refresh), with tokens verified by each.
func TestReplicas(t *testing.T) {
	r := newReplicas(t, nil, 3)
	client, out := r.flow()
	status, out2 := r.refresh(client, out["refresh_token"].(string))
	if status != http.StatusOK {
		t.Fatalf("refresh on another replica: %d %v", status, out2)
	}
	if g, err := r.verify(out2["access_token"]); err != nil || g.Subject != "583231" {
		t.Fatalf("Verify on another replica: %+v, %v", g, err)
	}
}

// forgetful is a store whose secrets can be lost, as a Redis without
// persistence loses them when it restarts.
type forgetful struct {
	store.Store
	mu   sync.Mutex
	keys map[string][]byte
}

func (f *forgetful) Secrets() store.Secrets { return f }

func (f *forgetful) Key(_ context.Context, name string, size int) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if k, ok := f.keys[name]; ok {
		return k, nil
	}
	k := make([]byte, size)
	rand.Read(k)
	f.keys[name] = k
	return k, nil
}

func (f *forgetful) forget() { f.mu.Lock(); clear(f.keys); f.mu.Unlock() }

// TestReplicaKeysAfterStoreLoss: when the shared store loses its secrets
// (a Redis restart without persistence), a replica that kept the old keys
// reads the new ones within KeyRecheck, so that the tokens it signs
// verify on a replica started after the loss, and the other way round:
// no replica goes on signing with a key of its own.
func TestReplicaKeysAfterStoreLoss(t *testing.T) {
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	fs := &forgetful{Store: store.NewMemory(store.MemoryOptions{Now: clock}), keys: map[string][]byte{}}
	r := newReplicas(t, nil, 1, func(c *authserver.Config) { c.Store, c.Now = fs, clock })
	if _, out := r.flow(); out["access_token"] == nil {
		t.Fatal("no access token")
	}
	fs.forget()
	// A replica started after the loss, with the same public URL.
	late, err := authserver.New(authserver.Config{PublicURL: r.url, Upstream: r.gh.upstream(), ClientID: "gh-client",
		ClientSecret: "gh-secret", Scopes: []string{"notes:read"}, Store: fs, Now: clock,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	now = now.Add(authserver.KeyRecheck + time.Second)
	mu.Unlock()
	_, out := r.flow()
	if _, err := late.Verify(context.Background(), out["access_token"].(string)); err != nil {
		t.Errorf("a token the first replica signed after the store lost its keys does not verify on a replica started since: %v", err)
	}
	if _, err := r.verify(out["access_token"]); err != nil {
		t.Errorf("nor on the replica that signed it: %v", err)
	}
	r.wantLog("the store's secret changed")
}

// TestExpiredState: a sign-in whose user comes back from the upstream
// after the pending authorization expired is refused with a page.
func TestExpiredState(t *testing.T) {
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	st := store.NewMemory(store.MemoryOptions{Now: clock})
	r := newReplicas(t, nil, 1, func(c *authserver.Config) { c.Store = st })
	client := r.register()
	_, challenge := pkce()
	b := browser()
	form, _ := r.consentForm(b, r.authorizeURL(client, redirectURI, challenge))
	form.Set("action", "allow")
	b.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if req.URL.Path == "/oauth/callback" {
			return http.ErrUseLastResponse
		}
		return nil
	}
	resp, err := b.PostForm(r.url+"/authorize", form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	callback := resp.Header.Get("Location")
	if !strings.Contains(callback, "/oauth/callback?") {
		t.Fatalf("the upstream returned to %q", callback)
	}
	mu.Lock()
	now = now.Add(11 * time.Minute)
	mu.Unlock()
	status, loc, body := authorizeRefusal(t, callback)
	if status != http.StatusBadRequest || loc != "" || !strings.Contains(body, "expired") {
		t.Errorf("a callback after the state expired: %d to %q; want a 400 page", status, loc)
	}
	r.wantLog("the state is unknown, expired or already used")
}

// TestRedirectURIOmitted: a client with one registered redirect URI may
// leave it out of the authorization request, and then out of the token
// request too (RFC 6749 4.1.3); it is still where the browser returns.
func TestRedirectURIOmitted(t *testing.T) {
	r := newRig(t, nil)
	client := r.register()
	verifier, challenge := pkce()
	b := browser()
	u, _ := url.Parse(r.authorizeURL(client, redirectURI, challenge))
	q := u.Query()
	q.Del("redirect_uri")
	u.RawQuery = q.Encode()
	form, _ := r.consentForm(b, u.String())
	form.Set("action", "allow")
	resp, err := b.PostForm(r.url+"/authorize", form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	back, _ := url.Parse(resp.Header.Get("Location"))
	if !strings.HasPrefix(back.String(), redirectURI+"?") {
		t.Fatalf("returned to %s; want the registered redirect URI", back)
	}
	status, out := r.tokens(url.Values{"grant_type": {"authorization_code"}, "client_id": {client}, "code": {back.Query().Get("code")},
		"code_verifier": {verifier}})
	if status != http.StatusOK {
		t.Fatalf("token without redirect_uri: %d %v", status, out)
	}
}

// TestRegisterLimit: one address registering past its bound gets 429,
// with Retry-After, and a log line.
func TestRegisterLimit(t *testing.T) {
	r := newReplicas(t, nil, 1, func(c *authserver.Config) { c.RegisterLimit = store.Bucket{Size: 3, Per: time.Hour} })
	for range 3 {
		r.register()
	}
	resp, err := http.Post(r.url+"/register", "application/json", strings.NewReader(`{"redirect_uris":["`+redirectURI+`"]}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Errorf("a fourth registration: %s, Retry-After %q; want 429 with Retry-After", resp.Status, resp.Header.Get("Retry-After"))
	}
	r.wantLog("too many requests from one address")
}
