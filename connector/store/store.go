// Package store is the seam between a connector and the state it keeps:
// sessions, the events kept for stream resumption, notifications between
// replicas, rate-limit buckets, task records, shared secrets and small
// records with a TTL. Each is a
// small interface with a written contract; a backend implements all of
// them behind one Store, and is named by the scheme of a URL the way
// database/sql names drivers: Open(ctx, "memory://") is the in-process
// backend every connector uses by default, and a backend for shared state
// (such as Redis, for many replicas behind a load balancer) registers its
// own scheme with Register.
//
// Every backend must pass the contract suite in package storetest; the
// memory backend runs it in every `go test`.
//
// The contracts are written so that a networked backend can keep them with
// one round trip per operation: expiry is by TTL in the store, the
// operations that must not race (taking from a bucket, creating a record,
// moving a task out of a final state) are atomic in the store, and
// notifications are fire-and-forget publish/subscribe.
package store

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Store is one backend: every kind of state a connector keeps. Its methods
// return the same value on every call; all of them are safe for concurrent
// use.
type Store interface {
	// Sessions keeps session records.
	Sessions() Sessions
	// Events keeps stream events for resumption (Last-Event-ID), under the
	// go-sdk's mcp.EventStore contract: After yields an error wrapping
	// mcp.ErrEventsPurged, and no partial data, when an event after the
	// index is no longer kept; the memory backend bounds its memory.
	Events() Events
	// Bus carries notifications between the parts of a connector, and
	// between replicas sharing the store.
	Bus() Bus
	// Limiter holds rate-limit buckets.
	Limiter() Limiter
	// Tasks keeps task records.
	Tasks() Tasks
	// Secrets holds named keys shared by everything using the store.
	Secrets() Secrets
	// Records keeps small records with a TTL, created and taken
	// atomically (flow state such as one-time codes).
	Records() Records
	// Close releases what the backend holds (connections, goroutines).
	// Nothing may be called after it.
	Close() error
}

// Events is the event store of a backend: the go-sdk's mcp.EventStore, and
// Record, which stores a response stream whose events are known together
// in one step.
type Events interface {
	mcp.EventStore
	// Record opens stream streamID of session sessionID and appends each
	// of data to it, in order: what Open and then one Append per element
	// do, in one step (one round trip for a networked backend). It
	// returns once all of them are stored; on an error, a prefix of them
	// may be.
	Record(ctx context.Context, sessionID, streamID string, data ...[]byte) error
	// RecordLater is Record for a stream whose events are already on
	// their way to the client: a networked backend may send it with other
	// writes a moment later (write-behind) rather than make a round trip
	// for it now, and calls done, once, with the outcome when the events
	// are stored (from this backend, After reads them from then on). A
	// backend that stores them at once calls done before returning.
	RecordLater(ctx context.Context, sessionID, streamID string, done func(error), data ...[]byte)
}

// ErrNotFound is returned (wrapped) for a record that does not exist or
// has expired.
var ErrNotFound = errors.New("store: not found")

// ErrExists is returned (wrapped) when creating a record whose id is taken.
var ErrExists = errors.New("store: already exists")

// ErrFull is returned (wrapped) when creating a record past the backend's
// bound: nothing was stored, and the same call may succeed once older
// records expire or finish.
var ErrFull = errors.New("store: full")

// Driver opens a Store for a URL of the scheme it was registered under.
type Driver func(ctx context.Context, u *url.URL) (Store, error)

var (
	driversMu sync.RWMutex
	drivers   = map[string]Driver{}
)

// Register makes a backend available to Open under scheme ("memory",
// "redis"). It panics when the scheme is empty, the driver nil, or the
// scheme already registered; call it from an init function.
func Register(scheme string, d Driver) {
	driversMu.Lock()
	defer driversMu.Unlock()
	if scheme == "" || d == nil {
		panic("store: Register needs a scheme and a driver")
	}
	if _, dup := drivers[scheme]; dup {
		panic("store: Register called twice for scheme " + scheme)
	}
	drivers[scheme] = d
}

// Schemes returns the registered schemes, sorted.
func Schemes() []string {
	driversMu.RLock()
	defer driversMu.RUnlock()
	var s []string
	for k := range drivers {
		s = append(s, k)
	}
	slices.Sort(s)
	return s
}

// Open opens the backend named by rawURL's scheme ("memory://",
// "redis://host:6379/0"). An unknown scheme is an error naming the
// registered ones.
func Open(ctx context.Context, rawURL string) (Store, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("store URL %q: %v", rawURL, err)
	}
	if u.Scheme == "" {
		return nil, fmt.Errorf("store URL %q has no scheme; want one of %v, such as memory://", rawURL, Schemes())
	}
	driversMu.RLock()
	d := drivers[u.Scheme]
	driversMu.RUnlock()
	if d == nil {
		return nil, fmt.Errorf("store URL %q: no backend for scheme %q; registered: %v", redact(u), u.Scheme, Schemes())
	}
	return d(ctx, u)
}

// redact hides a URL's password in messages.
func redact(u *url.URL) string {
	return u.Redacted()
}
