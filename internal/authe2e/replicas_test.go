package authe2e_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/mcpgen/mcpgen/internal/testenv"
)

// replicaFront is the connector's one public URL in front of its
// replicas, as a load balancer is; but rather than taking turns it sends
// each request to the replica the test chose for the step (to), so that
// every step of a flow lands on another replica than the one before. The
// answer names the replica in X-Replica, and the front keeps a line per
// request for the failure message.
type replicaFront struct {
	srv  *httptest.Server
	mu   sync.Mutex
	ups  []*url.URL
	to   atomic.Int32
	seen []string
}

func newReplicaFront(t *testing.T) *replicaFront {
	f := &replicaFront{}
	rp := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		f.mu.Lock()
		up := f.ups[f.to.Load()]
		f.mu.Unlock()
		r.SetURL(up)
		r.Out.Host = r.In.Host // the public host, as a load balancer passes it
	}}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := f.to.Load()
		name := string(rune('A' + i))
		w.Header().Set("X-Replica", name)
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		// Deferred: the proxy panics with http.ErrAbortHandler when the
		// client leaves before the answer's end.
		defer func() {
			f.mu.Lock()
			f.seen = append(f.seen, fmt.Sprintf("%s %s %s %d", name, r.Method, r.URL.Path, rec.status))
			f.mu.Unlock()
		}()
		rp.ServeHTTP(rec, r)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// on sends the next requests to replica i (0 is A, 1 is B).
func (f *replicaFront) on(i int) { f.to.Store(int32(i)) }

func (f *replicaFront) String() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.seen, "\n")
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) { s.status = code; s.ResponseWriter.WriteHeader(code) }
func (s *statusRecorder) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

var (
	formAction = regexp.MustCompile(`action="([^"]+)"`)
	formHidden = regexp.MustCompile(`name="(pending|csrf)" value="([^"]*)"`)
)

// TestReplicasRedisUpstream: two replicas of a built connector with
// --auth-upstream in front of oidc-provider (registration disabled) and
// one --store redis://… on a real redis-server, behind one public URL.
// Every leg of the flow lands on the other replica than the leg before:
// registration on A, the authorization request on B, the consent on A, the
// upstream's callback on B, the code redeemed on A, an MCP session opened
// on B and its calls on A (the upstream token sealed on B opened on A), a
// refresh on B; the rotated-out refresh token replayed on A revokes the
// family, which B then refuses; a second sign-in's access token revoked on
// A is refused on B at once. The flow's records and the signing key are
// in Redis, not in either process.
func TestReplicasRedisUpstream(t *testing.T) {
	redis := testenv.StartRedis(t)
	front := newReplicaFront(t)
	public := front.srv.URL
	up := startUpstream(t, public+"/oauth/callback")
	resp, err := http.Get(up + "/.well-known/openid-configuration")
	if err != nil {
		t.Fatal(err)
	}
	var md map[string]any
	json.NewDecoder(resp.Body).Decode(&md)
	resp.Body.Close()
	userinfo, _ := md["userinfo_endpoint"].(string)
	if md["registration_endpoint"] != nil || userinfo == "" {
		t.Fatalf("the upstream's metadata: %v; want no registration endpoint and a userinfo endpoint", md)
	}

	bin := journalBinary(t)
	var replicas []*proc
	for range 2 {
		addr := freeAddr(t)
		p := startEnv(t, "http://"+addr, "serving MCP",
			[]string{"MCPGEN_AUTH_CLIENT_SECRET=connector-secret", "UPSTREAM_USERINFO=" + userinfo, "MCPGEN_STORE=" + redis.URL()},
			bin, "--addr", addr, "--public-url", public, "--auth-upstream", up, "--auth-client-id", "mcpgen-connector",
			"--auth-upstream-scopes", "openid")
		u, _ := url.Parse("http://" + addr)
		front.mu.Lock()
		front.ups = append(front.ups, u)
		front.mu.Unlock()
		replicas = append(replicas, p)
	}
	const A, B = 0, 1
	name := []string{"A", "B"}
	defer func() {
		if t.Failed() {
			t.Logf("requests through the front:\n%s", front)
		}
	}()
	mcpURL := public + "/mcp"
	redirect := "http://127.0.0.1:9/callback" // never reached: the code is read from the redirect

	// Registration on A.
	front.on(A)
	body, _ := json.Marshal(map[string]any{"redirect_uris": []string{redirect}, "client_name": "Replica Client",
		"token_endpoint_auth_method": "none", "grant_types": []string{"authorization_code", "refresh_token"}})
	resp, err = http.Post(public+"/register", "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	var reg map[string]any
	json.NewDecoder(resp.Body).Decode(&reg)
	resp.Body.Close()
	clientID, _ := reg["client_id"].(string)
	if resp.StatusCode != http.StatusCreated || clientID == "" {
		t.Fatalf("registration on A: %s %v", resp.Status, reg)
	}

	// send posts a form through the front to replica i.
	send := func(i int, path string, form url.Values) (int, map[string]any) {
		t.Helper()
		front.on(i)
		resp, err := http.PostForm(public+path, form)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		json.NewDecoder(resp.Body).Decode(&out)
		if got := resp.Header.Get("X-Replica"); got != name[i] {
			t.Fatalf("%s went to replica %s, not %s", path, got, name[i])
		}
		return resp.StatusCode, out
	}
	refresh := func(i int, rt string) (int, map[string]any) {
		t.Helper()
		return send(i, "/token", url.Values{"grant_type": {"refresh_token"}, "client_id": {clientID}, "refresh_token": {rt}})
	}
	// mcpStatus is the status of an initialize with token on replica i.
	mcpStatus := func(i int, token string) (int, string) {
		t.Helper()
		front.on(i)
		return postInit(t, mcpURL, token)
	}

	// signIn runs the browser's legs and redeems the code: GET /authorize
	// on B, the consent on A, login and consent at the upstream, its
	// callback on B, the token request on A.
	signIn := func() (access, refreshToken string) {
		t.Helper()
		jar, _ := cookiejar.New(nil)
		browser := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		sum := sha256.Sum256([]byte(strings.Repeat("v", 43) + clientID))
		verifier := strings.Repeat("v", 43) + clientID
		challenge := base64.RawURLEncoding.EncodeToString(sum[:])
		q := url.Values{"client_id": {clientID}, "redirect_uri": {redirect}, "response_type": {"code"}, "state": {"st-replicas"},
			"code_challenge": {challenge}, "code_challenge_method": {"S256"}, "scope": {"notes:write"}, "resource": {mcpURL}}
		page := func(resp *http.Response) string {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			return string(b)
		}

		front.on(B)
		resp, err := browser.Get(public + "/authorize?" + q.Encode())
		if err != nil {
			t.Fatal(err)
		}
		consent := page(resp)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("X-Replica") != "B" || !strings.Contains(consent, "Replica Client") {
			t.Fatalf("GET /authorize on B: %s from %s\n%s", resp.Status, resp.Header.Get("X-Replica"), consent)
		}
		form := url.Values{"action": {"allow"}}
		for _, m := range formHidden.FindAllStringSubmatch(consent, -1) {
			form.Set(m[1], m[2])
		}

		// The consent, its form token and cookie made on B, on A.
		front.on(A)
		resp, err = browser.PostForm(public+"/authorize", form)
		if err != nil {
			t.Fatal(err)
		}
		text := page(resp)
		next := resp.Header.Get("Location")
		if resp.StatusCode != http.StatusFound || resp.Header.Get("X-Replica") != "A" || !strings.HasPrefix(next, up+"/") {
			t.Fatalf("the consent on A: %s to %q\n%s\nA's log:\n%s", resp.Status, next, text, replicas[A].log())
		}

		// At the upstream: its login and consent pages, until it sends the
		// browser back to the connector.
		var callback string
		for range 20 {
			resp, err := browser.Get(next)
			if err != nil {
				t.Fatal(err)
			}
			html := page(resp)
			if loc := resp.Header.Get("Location"); resp.StatusCode >= 300 && resp.StatusCode < 400 {
				u, _ := resp.Request.URL.Parse(loc)
				if strings.HasPrefix(u.String(), public+"/oauth/callback") {
					callback = u.String()
					break
				}
				next = u.String()
				continue
			}
			m := formAction.FindStringSubmatch(html)
			if resp.StatusCode != http.StatusOK || m == nil {
				t.Fatalf("the upstream at %s: %s\n%.400s", next, resp.Status, html)
			}
			var f url.Values
			switch {
			case strings.Contains(html, `name="prompt" value="login"`):
				f = url.Values{"prompt": {"login"}, "login": {"alice"}, "password": {"any"}}
			case strings.Contains(html, `name="prompt" value="consent"`):
				f = url.Values{"prompt": {"consent"}}
			default:
				t.Fatalf("an unexpected page at the upstream %s:\n%.400s", next, html)
			}
			action, _ := resp.Request.URL.Parse(m[1])
			resp, err = browser.PostForm(action.String(), f)
			if err != nil {
				t.Fatal(err)
			}
			page(resp)
			loc, _ := action.Parse(resp.Header.Get("Location"))
			if resp.StatusCode < 300 || resp.StatusCode >= 400 || loc == nil {
				t.Fatalf("submitting %v at the upstream: %s", f, resp.Status)
			}
			next = loc.String()
		}
		if callback == "" {
			t.Fatal("the upstream never sent the browser back to the connector")
		}

		// The callback on B: the upstream state A stored, the upstream
		// code exchanged with A's PKCE verifier.
		front.on(B)
		resp, err = browser.Get(callback)
		if err != nil {
			t.Fatal(err)
		}
		text = page(resp)
		back, _ := url.Parse(resp.Header.Get("Location"))
		if resp.StatusCode != http.StatusFound || resp.Header.Get("X-Replica") != "B" || back == nil ||
			!strings.HasPrefix(back.String(), redirect) || back.Query().Get("code") == "" {
			t.Fatalf("the callback on B: %s to %v\n%s\nB's log:\n%s", resp.Status, back, text, replicas[B].log())
		}
		if back.Query().Get("state") != "st-replicas" || back.Query().Get("iss") != public {
			t.Errorf("the redirect to the client %s lacks the state or the public issuer", back)
		}

		// The code B issued, redeemed on A.
		status, out := send(A, "/token", url.Values{"grant_type": {"authorization_code"}, "client_id": {clientID},
			"code": {back.Query().Get("code")}, "redirect_uri": {redirect}, "code_verifier": {verifier}})
		access, _ = out["access_token"].(string)
		refreshToken, _ = out["refresh_token"].(string)
		if status != http.StatusOK || access == "" || refreshToken == "" {
			t.Fatalf("the token request on A: %d %v\nA's log:\n%s", status, out, replicas[A].log())
		}
		return access, refreshToken
	}

	at1, rt1 := signIn()
	if !replicas[B].waitLog("auth: signed in upstream") || strings.Contains(replicas[A].log(), "auth: signed in upstream") {
		t.Errorf("the upstream sign-in is not in B's log alone")
	}
	if !replicas[A].waitLog("auth: access granted") || strings.Contains(replicas[B].log(), "auth: access granted") {
		t.Errorf("the code's redemption is not in A's log alone")
	}

	// A session opened on B with the token A signed; its calls on A,
	// which adopts it, where handlers see the upstream user and the
	// upstream token B sealed.
	front.on(B)
	sid := scopeSession(t, mcpURL, at1, "2025-11-25")
	call := func(i, id int, tool string) string {
		t.Helper()
		front.on(i)
		code, body, _ := scopeRequest(t, mcpURL, at1, sid, "2025-11-25",
			fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{}}}`, id, tool))
		if code != http.StatusOK {
			t.Fatalf("%s on %s: %d %s", tool, name[i], code, body)
		}
		return body
	}
	if body := call(A, 2, "whoami"); !strings.Contains(body, `"text":"alice"`) {
		t.Errorf("whoami on A with the session B opened: %s; want alice", body)
	}
	if body := call(A, 3, "upstream_user"); !strings.Contains(body, "upstream says alice") {
		t.Errorf("upstream_user on A: %s; want the upstream's userinfo for alice", body)
	}

	// A refresh on B; the new access token works on A.
	status, out := refresh(B, rt1)
	at2, _ := out["access_token"].(string)
	rt2, _ := out["refresh_token"].(string)
	if status != http.StatusOK || at2 == "" || rt2 == "" || rt2 == rt1 {
		t.Fatalf("refresh on B: %d %v\nB's log:\n%s", status, out, replicas[B].log())
	}
	if code, _ := mcpStatus(A, at2); code != http.StatusOK {
		t.Fatalf("the refreshed access token on A: %d", code)
	}

	// The rotated-out refresh token replayed on A: refused, and the whole
	// family revoked, as B sees at once.
	if status, out := refresh(A, rt1); status != http.StatusBadRequest || out["error"] != "invalid_grant" {
		t.Errorf("the rotated-out refresh token on A: %d %v; want 400 invalid_grant", status, out)
	}
	if !replicas[A].waitLog("a refresh token was used after it was rotated") {
		t.Errorf("A's log does not say the replay revoked the family:\n%s", replicas[A].log())
	}
	if code, challenge := mcpStatus(B, at2); code != http.StatusUnauthorized || !strings.Contains(challenge, `error="invalid_token"`) {
		t.Errorf("the family's access token on B after the replay: %d %q; want 401 invalid_token", code, challenge)
	}
	if status, out := refresh(B, rt2); status != http.StatusBadRequest || out["error"] != "invalid_grant" {
		t.Errorf("the family's current refresh token on B after the replay: %d %v; want 400 invalid_grant", status, out)
	}
	front.on(B)
	if code, body, _ := scopeRequest(t, mcpURL, at1, sid, "2025-11-25", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`); code != http.StatusUnauthorized {
		t.Errorf("the session's token on B after the replay: %d %s; want 401", code, body)
	}

	// A second sign-in, its access token revoked on A: B refuses it and
	// its refresh token.
	at3, rt3 := signIn()
	if code, _ := mcpStatus(B, at3); code != http.StatusOK {
		t.Fatalf("the second sign-in's access token on B: %d", code)
	}
	if status, out := send(A, "/revoke", url.Values{"client_id": {clientID}, "token": {at3}}); status != http.StatusOK {
		t.Fatalf("revocation on A: %d %v", status, out)
	}
	if !replicas[A].waitLog("the client revoked an access token") {
		t.Errorf("A's log does not record the revocation")
	}
	if code, challenge := mcpStatus(B, at3); code != http.StatusUnauthorized || !strings.Contains(challenge, `error="invalid_token"`) {
		t.Errorf("the revoked access token on B: %d %q; want 401 invalid_token", code, challenge)
	}
	if status, out := refresh(B, rt3); status != http.StatusBadRequest || out["error"] != "invalid_grant" {
		t.Errorf("the revoked grant's refresh token on B: %d %v; want 400 invalid_grant", status, out)
	}

	// The state is Redis's: the authorization server's keys and records
	// are there, and the replicas hold no other copy of the signing key
	// (a token of one verified on the other throughout).
	rdb := goredis.NewClient(&goredis.Options{Addr: redis.Addr})
	defer rdb.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, pattern := range []string{"*mcpgen.authserver.signing*", "*mcpgen.authserver.encryption*", "*mcpgen.authserver.csrf*", "*oauth:client:" + clientID + "*", "*oauth:usedrefresh:*"} {
		keys, err := rdb.Keys(ctx, pattern).Result()
		if err != nil || len(keys) == 0 {
			t.Errorf("Redis has no key matching %s: %v, %v", pattern, keys, err)
		}
	}
}
