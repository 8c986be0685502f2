package oauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// testIssuer is a real HTTP authorization server on loopback: metadata,
// a key set whose keys a test can change, and an introspection endpoint.
type testIssuer struct {
	*httptest.Server
	t testing.TB

	mu        sync.Mutex
	published []jose.JSONWebKey
	active    map[string]map[string]any // opaque token -> introspection answer
	hold      chan struct{}             // when set, introspection answers once it is closed

	keyFetches   atomic.Int32
	introspected atomic.Int32
	metaFetches  atomic.Int32
}

func newTestIssuer(t testing.TB) *testIssuer {
	t.Helper()
	is := &testIssuer{t: t, active: map[string]map[string]any{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		is.metaFetches.Add(1)
		json.NewEncoder(w).Encode(Metadata{Issuer: is.URL, JWKSURI: is.URL + "/jwks", IntrospectionEndpoint: is.URL + "/introspect"})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, r *http.Request) {
		is.keyFetches.Add(1)
		is.mu.Lock()
		defer is.mu.Unlock()
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: is.published})
	})
	mux.HandleFunc("POST /introspect", func(w http.ResponseWriter, r *http.Request) {
		is.introspected.Add(1)
		is.mu.Lock()
		hold := is.hold
		is.mu.Unlock()
		if hold != nil {
			<-hold
		}
		if id, secret, ok := r.BasicAuth(); !ok || id != "rs-client" || secret != "rs-secret" {
			http.Error(w, `{"error":"invalid_client"}`, http.StatusUnauthorized)
			return
		}
		is.mu.Lock()
		ans, ok := is.active[r.PostFormValue("token")]
		is.mu.Unlock()
		if !ok {
			ans = map[string]any{"active": false}
		}
		json.NewEncoder(w).Encode(ans)
	})
	is.Server = httptest.NewServer(mux)
	t.Cleanup(is.Close)
	return is
}

// signer is a key generated for one test.
type signer struct {
	kid  string
	alg  jose.SignatureAlgorithm
	priv crypto.Signer
}

func newSigner(t testing.TB, kid string, alg jose.SignatureAlgorithm) *signer {
	t.Helper()
	var (
		priv crypto.Signer
		err  error
	)
	switch alg {
	case jose.RS256, jose.PS256:
		priv, err = rsa.GenerateKey(rand.Reader, 2048)
	case jose.ES384:
		priv, err = ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	case jose.EdDSA:
		_, priv, err = ed25519.GenerateKey(rand.Reader)
	default:
		priv, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	}
	if err != nil {
		t.Fatal(err)
	}
	return &signer{kid: kid, alg: alg, priv: priv}
}

func (s *signer) jwk() jose.JSONWebKey {
	return jose.JSONWebKey{Key: s.priv.Public(), KeyID: s.kid, Algorithm: string(s.alg), Use: "sig"}
}

func (s *signer) sign(t testing.TB, claims map[string]any) string {
	t.Helper()
	sg, err := jose.NewSigner(jose.SigningKey{Algorithm: s.alg, Key: jose.JSONWebKey{Key: s.priv, KeyID: s.kid}}, (&jose.SignerOptions{}).WithType("at+jwt"))
	if err != nil {
		t.Fatal(err)
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	obj, err := sg.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := obj.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func (is *testIssuer) publish(keys ...*signer) {
	is.mu.Lock()
	defer is.mu.Unlock()
	is.published = nil
	for _, k := range keys {
		is.published = append(is.published, k.jwk())
	}
}

// fakeClock is a settable clock shared by the verifier and the test.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *fakeClock { return &fakeClock{t: time.Unix(1_800_000_000, 0)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }
