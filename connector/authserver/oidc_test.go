package authserver_test

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/mcpgen/mcpgen/connector/authserver"
)

// google is a local stand-in for an OpenID provider shaped like Google's:
// discovery, a JWKS, /o/oauth2/v2/auth, /token returning an RS256 ID
// token with email and name. tamper changes the ID token it issues.
type google struct {
	srv    *httptest.Server
	key    *rsa.PrivateKey
	mu     sync.Mutex
	codes  map[string]url.Values // code -> the authorize query
	tamper func(c map[string]any, key **rsa.PrivateKey)
}

func newGoogle(t *testing.T, tamper func(c map[string]any, key **rsa.PrivateKey)) *google {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	g := &google{key: key, codes: map[string]url.Values{}, tamper: tamper}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"issuer": g.srv.URL, "authorization_endpoint": g.srv.URL + "/o/oauth2/v2/auth",
			"token_endpoint": g.srv.URL + "/token", "jwks_uri": g.srv.URL + "/oauth2/v3/certs"})
	})
	mux.HandleFunc("GET /oauth2/v3/certs", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &g.key.PublicKey, KeyID: "g1", Algorithm: "RS256", Use: "sig"}}})
	})
	mux.HandleFunc("GET /o/oauth2/v2/auth", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		code := fmt.Sprintf("gcode-%d", time.Now().UnixNano())
		g.mu.Lock()
		g.codes[code] = q
		g.mu.Unlock()
		back, _ := url.Parse(q.Get("redirect_uri"))
		back.RawQuery = url.Values{"code": {code}, "state": {q.Get("state")}}.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
	})
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		g.mu.Lock()
		q, ok := g.codes[r.PostForm.Get("code")]
		delete(g.codes, r.PostForm.Get("code"))
		g.mu.Unlock()
		sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != q.Get("code_challenge") {
			w.WriteHeader(http.StatusBadRequest)
			json.NewEncoder(w).Encode(map[string]string{"error": "invalid_grant"})
			return
		}
		now := time.Now()
		claims := map[string]any{"iss": g.srv.URL, "aud": q.Get("client_id"), "sub": "109876543210", "email": "ada@example.com",
			"name": "Ada Lovelace", "nonce": q.Get("nonce"), "iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}
		key := g.key
		if g.tamper != nil {
			g.tamper(claims, &key)
		}
		signer, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: key}, (&jose.SignerOptions{}).WithHeader("kid", "g1"))
		idt, _ := jwt.Signed(signer).Claims(claims).Serialize()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"access_token": "ya29.upstream", "token_type": "Bearer", "expires_in": 3599, "id_token": idt})
	})
	g.srv = httptest.NewServer(mux)
	t.Cleanup(g.srv.Close)
	return g
}

func (g *google) rig(t *testing.T) *rig {
	return newRig(t, func(*gitHub) authserver.Upstream {
		return authserver.Upstream{Name: "google", Issuer: g.srv.URL, Scopes: []string{"openid", "email", "profile"}}
	})
}

func TestOpenIDFlow(t *testing.T) {
	g := newGoogle(t, nil)
	r := g.rig(t)
	_, out := r.flow()
	gr, err := r.verify(out["access_token"])
	if err != nil {
		t.Fatal(err)
	}
	if gr.Subject != "109876543210" || gr.Email != "ada@example.com" || gr.Name != "Ada Lovelace" {
		t.Errorf("grant = %+v; want the ID token's user", gr)
	}
}

// TestOpenIDRefusals: an ID token that does not verify ends the sign-in
// with access_denied and a log line saying why.
func TestOpenIDRefusals(t *testing.T) {
	stranger, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		tamper func(map[string]any, **rsa.PrivateKey)
		log    string
	}{
		"another nonce":    {func(c map[string]any, _ **rsa.PrivateKey) { c["nonce"] = "replayed" }, "another nonce"},
		"another audience": {func(c map[string]any, _ **rsa.PrivateKey) { c["aud"] = "someone-else" }, "the upstream's ID token"},
		"another issuer":   {func(c map[string]any, _ **rsa.PrivateKey) { c["iss"] = "https://evil.example" }, "the upstream's ID token"},
		"expired":          {func(c map[string]any, _ **rsa.PrivateKey) { c["exp"] = time.Now().Add(-time.Hour).Unix() }, "the upstream's ID token"},
		"unknown key":      {func(_ map[string]any, k **rsa.PrivateKey) { *k = stranger }, "the upstream's ID token"},
	} {
		t.Run(name, func(t *testing.T) {
			g := newGoogle(t, c.tamper)
			r := g.rig(t)
			_, challenge := pkce()
			back := r.signIn(r.register(), challenge)
			if back.Query().Get("error") != "access_denied" || back.Query().Get("code") != "" {
				t.Errorf("the client got %s; want access_denied and no code", back)
			}
			r.wantLog("the upstream user cannot be established")
			r.wantLog(c.log)
		})
	}
}

// TestOpenIDUnreachable: an issuer whose discovery cannot be fetched
// sends the user back with temporarily_unavailable.
func TestOpenIDUnreachable(t *testing.T) {
	r := newRig(t, func(*gitHub) authserver.Upstream {
		return authserver.Upstream{Name: "down", Issuer: "http://127.0.0.1:1", Scopes: []string{"openid"}}
	})
	_, challenge := pkce()
	back := r.signIn(r.register(), challenge)
	if back.Query().Get("error") != "temporarily_unavailable" {
		t.Errorf("the client got %s; want temporarily_unavailable", back)
	}
	r.wantLog("the upstream cannot be reached")
}
