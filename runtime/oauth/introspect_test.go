package oauth

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestIntrospection(t *testing.T) {
	is := newTestIssuer(t)
	clock := newClock()
	now := clock.Now()
	is.active["opaque-1"] = map[string]any{
		"active": true, "sub": "user-1", "aud": resource, "scope": "notes:read",
		"exp": now.Add(time.Hour).Unix(), "client_id": "claude",
	}
	is.active["other-aud"] = map[string]any{"active": true, "sub": "user-1", "aud": "https://other.example.com", "exp": now.Add(time.Hour).Unix()}
	is.active["other-iss"] = map[string]any{"active": true, "sub": "user-1", "aud": resource, "iss": "https://evil.example.com", "exp": now.Add(time.Hour).Unix()}
	is.active["no-exp"] = map[string]any{"active": true, "sub": "user-1", "aud": resource}

	cfg := Config{Issuer: is.URL, Audience: resource, Now: clock.Now, IntrospectionURL: is.URL + "/introspect", ClientID: "rs-client", ClientSecret: "rs-secret"}
	v, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tok, err := v.Verify(ctx, "opaque-1")
	if err != nil {
		t.Fatal(err)
	}
	if tok.Subject != "user-1" || len(tok.Scopes) != 1 || tok.Scopes[0] != "notes:read" || tok.ClientID != "claude" || !tok.Expiry.Equal(now.Add(time.Hour)) {
		t.Errorf("token = %+v", tok)
	}
	if _, err := v.Verify(ctx, "opaque-1"); err != nil {
		t.Fatal(err)
	}
	if n := is.introspected.Load(); n != 1 {
		t.Errorf("introspected %d times, want 1: the answer is cached until the token expires", n)
	}

	for token, want := range map[string]string{
		"revoked":   CheckActive,
		"other-aud": CheckAudience,
		"other-iss": CheckIssuer,
		"no-exp":    CheckExpiry,
	} {
		_, err := v.Verify(ctx, token)
		var te *TokenError
		if !errors.As(err, &te) || te.Check != want {
			t.Errorf("Verify(%q) = %v; want check %q", token, err, want)
		}
	}
	// A refusal is remembered too.
	n := is.introspected.Load()
	v.Verify(ctx, "revoked")
	if is.introspected.Load() != n {
		t.Errorf("an inactive answer was not cached")
	}

	// Past its expiry the cached answer is dropped and the endpoint asked
	// again (it now says inactive).
	clock.Advance(2 * time.Hour)
	delete(is.active, "opaque-1")
	if _, err := v.Verify(ctx, "opaque-1"); !errors.Is(err, ErrInvalidToken) {
		t.Errorf("Verify after expiry = %v; want invalid", err)
	}

	// Wrong client credentials: the server could not be asked, which is
	// not the token's fault.
	cfg.ClientSecret = "wrong"
	v2, _ := New(cfg)
	if _, err := v2.Verify(ctx, "opaque-2"); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Verify with bad client credentials = %v; want ErrUnavailable", err)
	}
}
