package store

import (
	"context"
	"time"
)

// Session is the record of one MCP session (protocol revisions with
// sessions, 2024-11-05 to 2025-11-25): enough for any replica to serve it.
type Session struct {
	// ID is the Mcp-Session-Id.
	ID string
	// Subject is the verified subject the session is bound to with auth
	// ("" without): a request with another subject's token is refused.
	Subject string
	// Caller names who opened it (the subject, else the client address),
	// for per-caller bounds.
	Caller string
	// Data is what the runtime keeps about the session (its initialize
	// parameters, log level, subscriptions), opaque to the store.
	Data []byte
}

// Sessions keeps session records, each expiring after its idle TTL unless
// touched.
//
// Contract:
//   - Create stores s with the TTL, atomically: when s.ID is taken it
//     stores nothing and returns an error wrapping ErrExists.
//   - Get returns the record, or an error wrapping ErrNotFound once it was
//     deleted or its TTL ran out. It does not extend the TTL.
//   - Put replaces the record of an existing session and restarts its TTL;
//     ErrNotFound when there is none (a session deleted elsewhere is not
//     brought back).
//   - Touch restarts the TTL; ErrNotFound when there is no such session.
//   - Delete removes the record; deleting a missing one is not an error.
//   - A ttl <= 0 means no expiry.
type Sessions interface {
	Create(ctx context.Context, s Session, ttl time.Duration) error
	Get(ctx context.Context, id string) (Session, error)
	Put(ctx context.Context, s Session, ttl time.Duration) error
	Touch(ctx context.Context, id string, ttl time.Duration) error
	Delete(ctx context.Context, id string) error
}
