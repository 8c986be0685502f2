package oauth

import (
	"context"
	"errors"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// FuzzVerify feeds arbitrary bearer tokens to a verifier backed by a real
// key set: nothing may panic, every refusal is a TokenError or
// ErrUnavailable, and only tokens the test signed may pass.
func FuzzVerify(f *testing.F) {
	is := newTestIssuer(f)
	clock := newClock()
	s := newSigner(f, "fuzz", jose.ES256)
	is.publish(s)
	good := map[string]any{"iss": is.URL, "sub": "fuzz-subject", "aud": resource, "exp": clock.Now().Add(time.Hour).Unix(), "scp": []string{"a"}}
	valid := s.sign(f, good)
	f.Add(valid)
	h, p, sig := split3(valid)
	f.Add(h + "." + p + ".")
	f.Add(h + ".." + sig)
	f.Add("eyJhbGciOiJub25lIn0.e30.")
	f.Add("a.b.c")
	f.Add("opaque")
	v, err := New(Config{Issuer: is.URL, Audience: resource, Now: clock.Now, IntrospectionURL: is.URL + "/introspect", ClientID: "rs-client", ClientSecret: "rs-secret"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		tok, err := v.Verify(context.Background(), raw)
		if err != nil {
			var te *TokenError
			if !errors.As(err, &te) && !errors.Is(err, ErrUnavailable) {
				t.Fatalf("Verify(%q) = %v: neither a TokenError nor ErrUnavailable", raw, err)
			}
			return
		}
		if tok.Subject != "fuzz-subject" {
			t.Fatalf("Verify(%q) accepted a token the test never signed: %+v", raw, tok)
		}
	})
}
