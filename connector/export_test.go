package connector

import (
	"context"
	"time"
)

// SessionCount returns how many sessions s has open, for tests.
func SessionCount(s *Server) int {
	n := s.fastPath.ParkedCount() // park.go
	for range s.mcp.Sessions() {
		n++
	}
	return n
}

// FastSessionCount returns how many sessions the fast path knows of, for
// tests.
func FastSessionCount(s *Server) int { return s.fastPath.SessionCount() }

// DefaultMaxSessionsPerCaller is the default per-caller session bound, for
// tests outside the package.
const DefaultMaxSessionsPerCaller = defaultMaxSessionsPerCaller

// DefaultEventStoreStreams is the default bound on the streams kept for
// resumption, for tests outside the package.
const DefaultEventStoreStreams = defaultEventStoreStreams

// CardMediaType is the server card's Content-Type, for tests outside the
// package.
const CardMediaType = cardMediaType

// WithDevFront is withDevFront, for tests outside the package.
var WithDevFront = withDevFront

// RunRelay runs s's relay between replicas (notify.go) until ctx is done,
// as serving over HTTP does, and returns once it is subscribed to the
// store's Bus, for tests that serve s.Handler() themselves.
func RunRelay(t interface{ Fatal(...any) }, ctx context.Context, s *Server) {
	go s.runRelay(ctx)
	deadline := time.Now().Add(10 * time.Second)
	for !s.relay.running.Load() {
		if time.Now().After(deadline) {
			t.Fatal("the relay did not subscribe to the store's Bus")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// ParkedCount returns how many of s's sessions are parked (park.go), and
// SDKSessionCount how many go-sdk sessions s has, for tests.
func ParkedCount(s *Server) int { return s.fastPath.ParkedCount() }

func SDKSessionCount(s *Server) int {
	n := 0
	for range s.mcp.Sessions() {
		n++
	}
	return n
}

// SetParkAfter sets how long a session brought back stays idle before it
// is parked again, for tests; call it before serving.
func SetParkAfter(s *Server, d time.Duration) { s.sessions.parkAfter = d }
