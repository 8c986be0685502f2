package store

import (
	"context"
	"time"
)

// Records keeps small opaque records under string keys, each with a TTL:
// the state of flows that span requests and replicas, such as the OAuth
// authorization server's client registrations, pending authorizations,
// one-time codes and refresh-token families. Keys are chosen by the
// caller, which namespaces them (such as "oauth:code:...").
//
// Contract:
//   - Create stores data under key with the TTL, atomically: when a live
//     record has that key it stores nothing and returns an error wrapping
//     ErrExists.
//   - Put stores data under key with the TTL, replacing any record there.
//   - Get returns the record's data, or an error wrapping ErrNotFound once
//     it was deleted, taken or its TTL ran out.
//   - Take returns the record's data and deletes it, atomically: of calls
//     racing for one record exactly one gets it, the others get
//     ErrNotFound (a one-time code is redeemed once, on any replica).
//   - Delete removes the record; deleting a missing one is not an error.
//   - A ttl <= 0 means no expiry. The data returned is the caller's own
//     copy.
//   - Create and Put may fail with another error when the backend is full
//     or unreachable; nothing is stored then.
//
// A networked backend keeps each operation in one round trip (Redis: SET
// NX PX, SET PX, GET, GETDEL, DEL).
type Records interface {
	Create(ctx context.Context, key string, data []byte, ttl time.Duration) error
	Put(ctx context.Context, key string, data []byte, ttl time.Duration) error
	Get(ctx context.Context, key string) ([]byte, error)
	Take(ctx context.Context, key string) ([]byte, error)
	Delete(ctx context.Context, key string) error
}
