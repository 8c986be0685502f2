package oauth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

const resource = "https://connector.example.com/mcp"

func TestNewFailsClosed(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"no issuer", Config{Audience: resource}, "no issuer"},
		{"no audience", Config{Issuer: "https://as.example.com"}, "no audience"},
		{"blank audience", Config{Issuer: "https://as.example.com", Audience: "  "}, "no audience"},
		{"http issuer off loopback", Config{Issuer: "http://as.example.com", Audience: resource}, "https://"},
		{"ftp issuer", Config{Issuer: "ftp://as.example.com", Audience: resource}, "https://"},
		{"issuer with query", Config{Issuer: "https://as.example.com/?x=1", Audience: resource}, "without query"},
		{"relative issuer", Config{Issuer: "as.example.com", Audience: resource}, "absolute URL"},
		{"symmetric algorithm", Config{Issuer: "https://as.example.com", Audience: resource, Algorithms: []string{"HS256"}}, `"HS256" is not accepted`},
		{"none algorithm", Config{Issuer: "https://as.example.com", Audience: resource, Algorithms: []string{"none"}}, `"none" is not accepted`},
		{"introspection without credentials", Config{Issuer: "https://as.example.com", Audience: resource, IntrospectionURL: "https://as.example.com/introspect"}, "client credentials"},
		{"http introspection off loopback", Config{Issuer: "https://as.example.com", Audience: resource, IntrospectionURL: "http://as.example.com/introspect", ClientID: "x"}, "https://"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := New(tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("New = %v, %v; want an error containing %q", v, err, tc.want)
			}
		})
	}
	for _, iss := range []string{"http://127.0.0.1:9999", "http://localhost:9999/tenant", "http://[::1]:9999", "https://as.example.com/"} {
		if _, err := New(Config{Issuer: iss, Audience: resource}); err != nil {
			t.Errorf("New(issuer %q) = %v; want accepted", iss, err)
		}
	}
}

func TestVerifyJWT(t *testing.T) {
	is := newTestIssuer(t)
	clock := newClock()
	now := clock.Now()
	es := newSigner(t, "es", jose.ES256)
	es384 := newSigner(t, "es384", jose.ES384)
	rs := newSigner(t, "rs", jose.RS256)
	ed := newSigner(t, "ed", jose.EdDSA)
	unpublished := newSigner(t, "stranger", jose.ES256)
	impostor := newSigner(t, "es", jose.ES256) // claims a published kid with its own key
	is.publish(es, es384, rs, ed)

	good := func() map[string]any {
		return map[string]any{
			"iss": is.URL, "sub": "user-1", "aud": resource,
			"exp": now.Add(time.Hour).Unix(), "iat": now.Unix(), "nbf": now.Unix(),
			"scope": "notes:read notes:write", "client_id": "claude",
		}
	}
	with := func(kv ...any) map[string]any {
		c := good()
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == nil {
				delete(c, kv[i].(string))
			} else {
				c[kv[i].(string)] = kv[i+1]
			}
		}
		return c
	}
	for _, tc := range []struct {
		name       string
		token      func(t *testing.T) string
		cfg        func(*Config)
		wantCheck  string // "" means accepted
		wantScopes []string
	}{
		{name: "ES256", token: func(t *testing.T) string { return es.sign(t, good()) }, wantScopes: []string{"notes:read", "notes:write"}},
		{name: "ES384", token: func(t *testing.T) string { return es384.sign(t, good()) }},
		{name: "RS256", token: func(t *testing.T) string { return rs.sign(t, good()) }},
		{name: "EdDSA", token: func(t *testing.T) string { return ed.sign(t, good()) }},
		{name: "audience with trailing slash", token: func(t *testing.T) string { return es.sign(t, with("aud", resource+"/")) }},
		{name: "audience list", token: func(t *testing.T) string {
			return es.sign(t, with("aud", []string{"https://other.example.com", resource}))
		}},
		{name: "issuer with trailing slash", token: func(t *testing.T) string { return es.sign(t, with("iss", is.URL+"/")) }},
		{name: "scp list", token: func(t *testing.T) string { return es.sign(t, with("scope", nil, "scp", []string{"a", "b"})) }, wantScopes: []string{"a", "b"}},
		{name: "scp string", token: func(t *testing.T) string { return es.sign(t, with("scope", nil, "scp", "a b")) }, wantScopes: []string{"a", "b"}},
		{name: "no scopes", token: func(t *testing.T) string { return es.sign(t, with("scope", nil)) }},
		{name: "audience override", token: func(t *testing.T) string { return es.sign(t, with("aud", "https://api.example.com")) },
			cfg: func(c *Config) { c.Audience = "https://api.example.com" }},
		{name: "expired within skew", token: func(t *testing.T) string { return es.sign(t, with("exp", now.Add(-10*time.Second).Unix())) }},
		{name: "fractional dates", token: func(t *testing.T) string {
			return es.sign(t, with("exp", float64(now.Add(time.Hour).Unix())+0.5, "iat", float64(now.Unix())-0.25))
		}},

		{name: "expired", token: func(t *testing.T) string { return es.sign(t, with("exp", now.Add(-time.Hour).Unix())) }, wantCheck: CheckExpiry},
		{name: "expired without skew", token: func(t *testing.T) string { return es.sign(t, with("exp", now.Add(-10*time.Second).Unix())) },
			cfg: func(c *Config) { c.Skew = -1 }, wantCheck: CheckExpiry},
		{name: "no expiry", token: func(t *testing.T) string { return es.sign(t, with("exp", nil)) }, wantCheck: CheckExpiry},
		{name: "not yet valid", token: func(t *testing.T) string { return es.sign(t, with("nbf", now.Add(time.Hour).Unix())) }, wantCheck: CheckNotBefore},
		{name: "issued in the future", token: func(t *testing.T) string { return es.sign(t, with("iat", now.Add(time.Hour).Unix())) }, wantCheck: CheckNotBefore},
		{name: "wrong audience", token: func(t *testing.T) string { return es.sign(t, with("aud", "https://other.example.com/mcp")) }, wantCheck: CheckAudience},
		{name: "audience prefix", token: func(t *testing.T) string { return es.sign(t, with("aud", "https://connector.example.com")) }, wantCheck: CheckAudience},
		{name: "no audience", token: func(t *testing.T) string { return es.sign(t, with("aud", nil)) }, wantCheck: CheckAudience},
		{name: "wrong issuer", token: func(t *testing.T) string { return es.sign(t, with("iss", "https://evil.example.com")) }, wantCheck: CheckIssuer},
		{name: "no subject", token: func(t *testing.T) string { return es.sign(t, with("sub", nil)) }, wantCheck: CheckSubject},
		{name: "unpublished key", token: func(t *testing.T) string { return unpublished.sign(t, good()) }, wantCheck: CheckKey},
		{name: "impostor key with a published kid", token: func(t *testing.T) string { return impostor.sign(t, good()) }, wantCheck: CheckSignature},
		{name: "algorithm none", token: func(t *testing.T) string { return unsigned(t, "none", good()) }, wantCheck: CheckAlgorithm},
		{name: "HS256 with the public key as secret", token: func(t *testing.T) string { return hmacSigned(t, "es", good()) }, wantCheck: CheckAlgorithm},
		{name: "algorithm narrowed", token: func(t *testing.T) string { return rs.sign(t, good()) },
			cfg: func(c *Config) { c.Algorithms = []string{"ES256"} }, wantCheck: CheckAlgorithm},
		{name: "tampered payload", token: func(t *testing.T) string {
			h, _, s := split3(es.sign(t, good()))
			return h + "." + b64(mustJSON(t, with("sub", "admin"))) + "." + s
		}, wantCheck: CheckSignature},
		{name: "exp is a string", token: func(t *testing.T) string { return es.sign(t, with("exp", "tomorrow")) }, wantCheck: CheckFormat},
		{name: "aud is a number", token: func(t *testing.T) string { return es.sign(t, with("aud", 7)) }, wantCheck: CheckFormat},
		{name: "three dots of nothing", token: func(t *testing.T) string { return ".." }, wantCheck: CheckFormat},
		{name: "opaque token without introspection", token: func(t *testing.T) string { return "opaque-token" }, wantCheck: CheckFormat},
		{name: "empty", token: func(t *testing.T) string { return "" }, wantCheck: CheckFormat},
		{name: "too long", token: func(t *testing.T) string { return strings.Repeat("a", MaxTokenBytes+1) }, wantCheck: CheckFormat},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{Issuer: is.URL, Audience: resource, Now: clock.Now}
			if tc.cfg != nil {
				tc.cfg(&cfg)
			}
			v, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			fetches := is.keyFetches.Load()
			tok, err := v.Verify(context.Background(), tc.token(t))
			if tc.wantCheck == "" {
				if err != nil {
					t.Fatalf("Verify: %v", err)
				}
				if tok.Subject != "user-1" || !sameIssuer(tok.Issuer, is.URL) || tok.Claims["client_id"] != "claude" {
					t.Errorf("token = %+v", tok)
				}
				if tc.wantScopes != nil && strings.Join(tok.Scopes, " ") != strings.Join(tc.wantScopes, " ") {
					t.Errorf("scopes = %q, want %q", tok.Scopes, tc.wantScopes)
				}
				return
			}
			var te *TokenError
			if !errors.As(err, &te) || te.Check != tc.wantCheck || !errors.Is(err, ErrInvalidToken) {
				t.Fatalf("Verify = %v, %v; want a %q TokenError", tok, err, tc.wantCheck)
			}
			// Claims are checked before the signature: a token failing
			// them never costs a key fetch.
			if tc.wantCheck != CheckKey && tc.wantCheck != CheckSignature && is.keyFetches.Load() != fetches {
				t.Errorf("a token failing %q fetched the key set", tc.wantCheck)
			}
		})
	}
}

// TestKeyRotation: a key published after the verifier cached the set is
// picked up without a restart, a retired key stops verifying after the
// next fetch, and made-up key ids cannot make the verifier fetch more than
// once per RefetchInterval.
func TestKeyRotation(t *testing.T) {
	is := newTestIssuer(t)
	clock := newClock()
	old, next := newSigner(t, "2026-01", jose.ES256), newSigner(t, "2026-02", jose.ES256)
	is.publish(old)
	v, err := New(Config{Issuer: is.URL, Audience: resource, Now: clock.Now, RefetchInterval: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	claims := func() map[string]any {
		return map[string]any{"iss": is.URL, "sub": "u", "aud": resource, "exp": clock.Now().Add(time.Hour).Unix()}
	}
	ctx := context.Background()
	check := func(tok, wantCheck string) {
		t.Helper()
		_, err := v.Verify(ctx, tok)
		var te *TokenError
		switch {
		case wantCheck == "" && err != nil:
			t.Fatalf("Verify: %v", err)
		case wantCheck != "" && (!errors.As(err, &te) || te.Check != wantCheck):
			t.Fatalf("Verify = %v; want check %q", err, wantCheck)
		}
	}
	check(old.sign(t, claims()), "")
	if n := is.keyFetches.Load(); n != 1 {
		t.Fatalf("key set fetched %d times, want 1", n)
	}
	check(old.sign(t, claims()), "") // cached
	if n := is.keyFetches.Load(); n != 1 {
		t.Fatalf("key set fetched %d times for a cached key, want 1", n)
	}

	is.publish(old, next)
	clock.Advance(time.Second)
	// Within the interval, the new key id is not fetched for.
	check(next.sign(t, claims()), CheckKey)
	if n := is.keyFetches.Load(); n != 1 {
		t.Fatalf("key set fetched %d times within the refetch interval, want 1", n)
	}
	clock.Advance(5 * time.Second)
	check(next.sign(t, claims()), "")
	if n := is.keyFetches.Load(); n != 2 {
		t.Fatalf("key set fetched %d times, want 2", n)
	}

	// A flood of unknown key ids, concurrent, costs at most one fetch per
	// interval.
	clock.Advance(6 * time.Second)
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := newSigner(t, fmt.Sprintf("made-up-%d", i), jose.ES256)
			v.Verify(ctx, s.sign(t, claims()))
		}()
	}
	wg.Wait()
	if n := is.keyFetches.Load(); n != 3 {
		t.Fatalf("key set fetched %d times after a flood of unknown kids, want 3", n)
	}

	// The old key is retired: once refetched, its tokens fail.
	is.publish(next)
	clock.Advance(6 * time.Second)
	check(next.sign(t, claims()), "")
	retired := newSigner(t, "2026-03", jose.ES256) // unknown kid: triggers the refetch
	check(retired.sign(t, claims()), CheckKey)
	check(old.sign(t, claims()), CheckKey)
}

func TestKeySetUnavailable(t *testing.T) {
	is := newTestIssuer(t)
	clock := newClock()
	s := newSigner(t, "k", jose.ES256)
	v, err := New(Config{Issuer: is.URL, Audience: resource, Now: clock.Now, JWKSURL: is.URL + "/missing"})
	if err != nil {
		t.Fatal(err)
	}
	tok := s.sign(t, map[string]any{"iss": is.URL, "sub": "u", "aud": resource, "exp": clock.Now().Add(time.Hour).Unix()})
	_, err = v.Verify(context.Background(), tok)
	if !errors.Is(err, ErrUnavailable) || errors.Is(err, ErrInvalidToken) {
		t.Fatalf("Verify with the key set missing = %v; want ErrUnavailable, not ErrInvalidToken", err)
	}
}

func TestDiscovery(t *testing.T) {
	is := newTestIssuer(t)
	v, err := New(Config{Issuer: is.URL, Audience: resource})
	if err != nil {
		t.Fatal(err)
	}
	m, err := v.Discover(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if m.JWKSURI != is.URL+"/jwks" {
		t.Errorf("jwks_uri = %q", m.JWKSURI)
	}
	v.Discover(context.Background())
	if n := is.metaFetches.Load(); n != 1 {
		t.Errorf("metadata fetched %d times, want 1 (cached)", n)
	}

	got := MetadataURLs("https://as.example.com/tenant/")
	want := []string{
		"https://as.example.com/.well-known/oauth-authorization-server/tenant",
		"https://as.example.com/.well-known/openid-configuration/tenant",
		"https://as.example.com/tenant/.well-known/openid-configuration",
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("MetadataURLs = %q, want %q", got, want)
	}
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := jsonMarshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func split3(tok string) (string, string, string) {
	p := strings.SplitN(tok, ".", 3)
	return p[0], p[1], p[2]
}

func unsigned(t *testing.T, alg string, claims map[string]any) string {
	return b64(mustJSON(t, map[string]any{"alg": alg, "kid": "es"})) + "." + b64(mustJSON(t, claims)) + "."
}

func hmacSigned(t *testing.T, kid string, claims map[string]any) string {
	sg, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: jose.JSONWebKey{Key: []byte("0123456789abcdef0123456789abcdef"), KeyID: kid}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	obj, err := sg.Sign(mustJSON(t, claims))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := obj.CompactSerialize()
	return s
}

// TestVerifiedCacheExpires: a remembered JWT is refused once it expires.
func TestVerifiedCacheExpires(t *testing.T) {
	is := newTestIssuer(t)
	clock := newClock()
	s := newSigner(t, "k", jose.ES256)
	is.publish(s)
	v, err := New(Config{Issuer: is.URL, Audience: resource, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	tok := s.sign(t, map[string]any{"iss": is.URL, "sub": "u", "aud": resource, "exp": clock.Now().Add(time.Minute).Unix()})
	for range 2 {
		if _, err := v.Verify(context.Background(), tok); err != nil {
			t.Fatal(err)
		}
	}
	clock.Advance(time.Minute + DefaultSkew + time.Second)
	var te *TokenError
	if _, err := v.Verify(context.Background(), tok); !errors.As(err, &te) || te.Check != CheckExpiry {
		t.Errorf("Verify after expiry = %v; want an exp failure", err)
	}
}

// TestDiscoveryFallbacks: an issuer with a path and only OpenID discovery
// (appended to the path) is found; metadata naming another issuer is
// refused and not retried before the interval.
func TestDiscoveryFallbacks(t *testing.T) {
	var fetches atomic.Int32
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		switch r.URL.Path {
		case "/realms/mcp/.well-known/openid-configuration":
			json.NewEncoder(w).Encode(Metadata{Issuer: srv.URL + "/realms/mcp", JWKSURI: srv.URL + "/realms/mcp/certs"})
		case "/realms/evil/.well-known/openid-configuration":
			json.NewEncoder(w).Encode(Metadata{Issuer: "https://evil.example.com", JWKSURI: srv.URL + "/certs"})
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	v, err := New(Config{Issuer: srv.URL + "/realms/mcp", Audience: resource})
	if err != nil {
		t.Fatal(err)
	}
	m, err := v.Discover(context.Background())
	if err != nil || m.JWKSURI != srv.URL+"/realms/mcp/certs" {
		t.Fatalf("Discover = %+v, %v", m, err)
	}

	clock := newClock()
	v, _ = New(Config{Issuer: srv.URL + "/realms/evil", Audience: resource, Now: clock.Now})
	if _, err := v.Discover(context.Background()); !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "names issuer") {
		t.Fatalf("Discover with a foreign issuer = %v", err)
	}
	n := fetches.Load()
	v.Discover(context.Background())
	if fetches.Load() != n {
		t.Errorf("a failed discovery was retried within the interval")
	}
	clock.Advance(DefaultRefetchInterval + time.Second)
	v.Discover(context.Background())
	if fetches.Load() == n {
		t.Errorf("a failed discovery was not retried after the interval")
	}
}
