package oauth

import (
	"context"
	"errors"
	"fmt"
	"sync"
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

// TestIntrospectionBounded: made-up opaque tokens, which anyone can send,
// cost a bounded number of calls to the authorization server: one call
// per token however many ask at once, none for a token refused a moment
// ago, at most IntrospectionCallerLimit for one caller and
// IntrospectionLimit in all. Over a bound the token is not checked (a
// *ThrottleError saying which bound), never accepted.
func TestIntrospectionBounded(t *testing.T) {
	is := newTestIssuer(t)
	clock := newClock()
	is.active["good"] = map[string]any{"active": true, "sub": "user-1", "aud": resource, "exp": clock.Now().Add(time.Hour).Unix()}
	v, err := New(Config{Issuer: is.URL, Audience: resource, Now: clock.Now, IntrospectionURL: is.URL + "/introspect",
		ClientID: "rs-client", ClientSecret: "rs-secret",
		IntrospectionLimit: Limit{N: 12, Per: time.Hour}, IntrospectionCallerLimit: Limit{N: 5, Per: time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	from := func(addr string) context.Context { return WithCaller(context.Background(), addr) }

	// 50 at once about one unknown token: one call, one answer for all.
	is.mu.Lock()
	is.hold = make(chan struct{})
	is.mu.Unlock()
	var started, done sync.WaitGroup
	errs := make(chan error, 50)
	for range 50 {
		started.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			started.Done()
			_, err := v.Verify(from("10.0.0.1"), "made-up-0")
			errs <- err
		}()
	}
	started.Wait()
	time.Sleep(50 * time.Millisecond) // let them ask; the answer is the same if some come late
	close(is.hold)
	done.Wait()
	close(errs)
	for err := range errs {
		if !errors.Is(err, ErrInvalidToken) {
			t.Fatalf("a made-up token = %v; want invalid", err)
		}
	}
	if n := is.introspected.Load(); n != 1 {
		t.Errorf("50 checks of one token at once made %d introspection calls, want 1", n)
	}

	// One caller sending 200 made-up tokens: 5 calls in all (one spent
	// above), the rest refused unchecked as over this caller's bound.
	throttled := 0
	for i := range 200 {
		_, err := v.Verify(from("10.0.0.1"), fmt.Sprintf("made-up-%d", i+1))
		var te *ThrottleError
		switch {
		case errors.As(err, &te) && te.Caller && errors.Is(err, ErrThrottled):
			throttled++
		case errors.Is(err, ErrInvalidToken):
		default:
			t.Fatalf("token %d = %v", i+1, err)
		}
	}
	if n := is.introspected.Load(); n != 5 || throttled != 196 {
		t.Errorf("one caller's 200 made-up tokens: %d introspection calls (want 5), %d throttled (want 196)", n, throttled)
	}
	// A token refused a moment ago is answered from the cache: no call,
	// and not throttled.
	if _, err := v.Verify(from("10.0.0.1"), "made-up-1"); !errors.Is(err, ErrInvalidToken) || errors.Is(err, ErrThrottled) {
		t.Errorf("a refused token asked again = %v; want invalid, from the cache", err)
	}

	// Many callers: the global bound (12) holds, 7 more calls.
	global := 0
	for i := range 100 {
		_, err := v.Verify(from(fmt.Sprintf("10.1.0.%d", i)), fmt.Sprintf("spread-%d", i))
		var te *ThrottleError
		if errors.As(err, &te) && !te.Caller {
			global++
		}
	}
	if n := is.introspected.Load(); n != 12 || global != 93 {
		t.Errorf("100 callers' made-up tokens: %d introspection calls in all (want 12), %d over the global bound (want 93)", n, global)
	}
	// A good token over the bound is not accepted; once the bucket
	// refills, it is.
	if _, err := v.Verify(from("10.2.0.1"), "good"); !errors.Is(err, ErrThrottled) {
		t.Errorf("a good token over the bound = %v; want ErrThrottled (not checked, not accepted)", err)
	}
	clock.Advance(10 * time.Minute)
	if tok, err := v.Verify(from("10.2.0.1"), "good"); err != nil || tok.Subject != "user-1" {
		t.Errorf("a good token once the bucket refilled = %v, %v", tok, err)
	}
}
