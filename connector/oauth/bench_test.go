package oauth

import (
	"context"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// BenchmarkVerify measures one JWT access token's verification with the
// key set cached: "first" is a token never seen (claims, then an ES256 or
// RS256 signature), "again" the same token a second time (remembered).
//
//	go test -run '^$' -bench Verify -benchmem ./runtime/oauth/
func BenchmarkVerify(b *testing.B) {
	for _, alg := range []jose.SignatureAlgorithm{jose.ES256, jose.RS256} {
		is := newTestIssuer(b)
		s := newSigner(b, "k", alg)
		is.publish(s)
		v, err := New(Config{Issuer: is.URL, Audience: resource})
		if err != nil {
			b.Fatal(err)
		}
		claims := map[string]any{"iss": is.URL, "sub": "u", "aud": resource, "exp": time.Now().Add(time.Hour).Unix(), "scope": "a b"}
		tok := s.sign(b, claims)
		if _, err := v.Verify(context.Background(), tok); err != nil {
			b.Fatal(err)
		}
		b.Run(string(alg)+"/first", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := v.verifyJWT(context.Background(), tok); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(string(alg)+"/again", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := v.Verify(context.Background(), tok); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
