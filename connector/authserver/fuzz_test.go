package authserver

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/connector/store"
)

// FuzzPKCE: only the verifier whose SHA-256 is the challenge matches, and
// nothing panics.
func FuzzPKCE(f *testing.F) {
	f.Add("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
	f.Add("", "")
	f.Add(strings.Repeat("a", 129), "x")
	f.Fuzz(func(t *testing.T, verifier, challenge string) {
		got := pkceMatches(verifier, challenge)
		sum := sha256.Sum256([]byte(verifier))
		right := base64.RawURLEncoding.EncodeToString(sum[:])
		if got && challenge != right {
			t.Fatalf("verifier %q matched the challenge %q of another", verifier, challenge)
		}
		if got && (len(verifier) < 43 || len(verifier) > 128) {
			t.Fatalf("a verifier of %d characters matched", len(verifier))
		}
	})
}

// FuzzAuthorizeQuery: a query with a repeated parameter is refused, and
// one that parses gives back exactly its single values.
func FuzzAuthorizeQuery(f *testing.F) {
	f.Add("client_id=a&redirect_uri=http%3A%2F%2F127.0.0.1%2Fcb&response_type=code&code_challenge=x&code_challenge_method=S256")
	f.Add("client_id=a&client_id=b")
	f.Add("%zz=1&;=")
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		req, bad := parseAuthorize(q)
		repeated := false
		for _, v := range q {
			repeated = repeated || len(v) > 1
		}
		if repeated != (bad != "") {
			t.Fatalf("query %q: repeated=%v but refusal %q", raw, repeated, bad)
		}
		if bad == "" && (req.ClientID != q.Get("client_id") || req.RedirectURI != q.Get("redirect_uri") || req.Challenge != q.Get("code_challenge")) {
			t.Fatalf("query %q parsed as %+v", raw, req)
		}
	})
}

// FuzzRedirectURI: an accepted redirect URI is absolute, has no fragment,
// and uses http only on a loopback host.
func FuzzRedirectURI(f *testing.F) {
	for _, s := range []string{"https://a.example/cb", "http://127.0.0.1:9/cb", "http://localhost/cb", "http://evil.example/cb",
		"javascript:alert(1)", "cursor://cb", "https://a.example/cb#f", "/cb", "HTTP://evil.example/", "http://[::1]/cb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if checkRedirectURI(raw) != "" {
			return
		}
		u, err := url.Parse(raw)
		if err != nil || !u.IsAbs() || strings.Contains(raw, "#") {
			t.Fatalf("accepted %q", raw)
		}
		switch strings.ToLower(u.Scheme) {
		case "http":
			if h := u.Hostname(); h != "localhost" && !strings.HasPrefix(h, "127.") && h != "::1" {
				t.Fatalf("accepted http to %q in %q", h, raw)
			}
		case "javascript", "data", "vbscript", "file", "blob":
			t.Fatalf("accepted %q", raw)
		}
	})
}

// FuzzToken: whatever form reaches the token endpoint, with no code or
// refresh token ever issued, nothing is granted and nothing fails inside.
func FuzzToken(f *testing.F) {
	s, err := New(Config{PublicURL: "https://mcp.example.com", ClientID: "c", Store: store.NewMemory(store.MemoryOptions{}),
		Upstream: Upstream{Name: "github", AuthURL: "https://127.0.0.1:1/a", TokenURL: "https://127.0.0.1:1/t", UserURL: "https://127.0.0.1:1/u"},
		Logger:   slog.New(slog.DiscardHandler)})
	if err != nil {
		f.Fatal(err)
	}
	reg := httptest.NewRecorder()
	s.register(reg, httptest.NewRequest(http.MethodPost, "/register", strings.NewReader(`{"redirect_uris":["http://127.0.0.1/cb"],"token_endpoint_auth_method":"none"}`)))
	var c struct {
		ClientID string `json:"client_id"`
	}
	json.Unmarshal(reg.Body.Bytes(), &c)
	f.Add("grant_type=authorization_code&client_id=" + c.ClientID + "&code=x&code_verifier=y&redirect_uri=http://127.0.0.1/cb")
	f.Add("grant_type=refresh_token&client_id=" + c.ClientID + "&refresh_token=x")
	f.Add("grant_type=refresh_token&client_id=" + c.ClientID + "&refresh_token=")
	f.Add("client_id=%zz")
	f.Add("grant_type=password&username=a&password=b&client_id=" + c.ClientID)
	f.Fuzz(func(t *testing.T, body string) {
		req := httptest.NewRequest(http.MethodPost, "/token", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		w := httptest.NewRecorder()
		s.token(w, req)
		if w.Code != http.StatusBadRequest && w.Code != http.StatusUnauthorized {
			t.Fatalf("form %q: %d %s", body, w.Code, w.Body)
		}
	})
}
