package authserver_test

import (
	"context"
	"testing"
)

// BenchmarkVerify: checking one of the connector's access tokens, which
// every request to /mcp does (signature, claims, and the grant read from
// the in-memory store).
func BenchmarkVerify(b *testing.B) {
	r := newReplicas(b, nil, 1)
	_, out := r.flow()
	tok := out["access_token"].(string)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.as.Verify(ctx, tok); err != nil {
			b.Fatal(err)
		}
	}
}
