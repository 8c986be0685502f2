package store

import (
	"context"
	"time"
)

// Bucket is a token bucket: it holds up to Size tokens and refills Size of
// them every Per (one every Per/Size). A bucket no one has taken from is
// full.
type Bucket struct {
	Size int
	Per  time.Duration
}

// Limiter holds token buckets by key.
//
// Contract:
//   - Take takes n tokens from the bucket named key, shaped by b, in one
//     atomic step (one round trip for a networked store): either all n are
//     taken and it returns ok, or none are and it returns how long until n
//     would be there (more than 0; for n > b.Size, when it never will, b.Per).
//   - Concurrent Takes from many goroutines or replicas never hand out
//     more tokens than the bucket holds.
//   - The same key must be used with the same b; a bucket left alone until
//     it is full may be forgotten (the store's memory is bounded).
type Limiter interface {
	Take(ctx context.Context, key string, n int, b Bucket) (ok bool, retryAfter time.Duration, err error)
}
