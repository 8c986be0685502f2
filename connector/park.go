package connector

import (
	"context"
	"net/http"
	"sync"

	"github.com/mcpgen/mcpgen/internal/fastpath"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A session at rest costs a go-sdk session: its connection, the goroutine
// that reads it, its streams; about 8 KB, two thirds of what an idle
// session costs a connector. Most sessions spend their life at rest
// between calls the fast path answers without the go-sdk. So once its
// client has sent notifications/initialized, and nothing else of the
// session is in progress, a session is parked (internal/fastpath's Park):
// its go-sdk session is closed while the fast path keeps what it knows of
// it, its slot in the session table and its stored events stay, and the
// fast path goes on serving its calls. The first request for it the fast
// path declines (a GET, a DELETE, a prompt, logging/setLevel, a tool that
// may ask the client ...), or a handler that asks for mcpgen.Session,
// brings it back first: its initialize and notifications/initialized are
// made again, under its id, into the endpoint, as a replica adopts a
// session recorded by another (adopt.go). It is parked again once idle for
// parkAfter, unless its go-sdk session holds what its initialize would not
// bring back: a log level, a subscription, a task. With a shared store (adopt.go does the same across
// replicas), --stateless or without an event store (--no-event-store,
// where nothing would tell the fast path a session ended), sessions are
// not parked.

// parking is the state of parked sessions.
type parking struct {
	on bool
	// mu is held while a go-sdk session is created (admitSession), so
	// that the id pending for one brought back is not handed to a new
	// session (nextSessionID), while a session is parked, and while one
	// is brought back.
	mu       sync.Mutex
	endpoint http.Handler // where a parked session's initialize is made again
}

type replayKey struct{}

// replaying reports whether ctx is that of a request the runtime makes
// again to bring a parked session back.
func replaying(ctx context.Context) bool { return ctx.Value(replayKey{}) != nil }

// parkSessions returns the endpoint e behind what brings parked sessions
// back before a request for one reaches it, and parks a session once its
// initialization is done.
func (s *Server) parkSessions(e http.Handler) http.Handler {
	s.park.endpoint = e
	s.park.on = !s.opts.stateless && !s.sharedStore() && s.sessions.hooked
	if !s.park.on {
		return e
	}
	s.fastPath.SetParking(s.unpark, func(id string) {
		// In the go-sdk's goroutine of the session: parked from another.
		go s.parkSession(id, 0, true)
	})
	s.sessions.closeParked = func(id string) { s.fastPath.CloseParked(context.Background(), id) }
	s.sessions.parkIdle = func(id string) { s.parkSession(id, 0, false) }
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sid := r.Header.Get("Mcp-Session-Id")
		if sid == "" {
			e.ServeHTTP(w, r)
			return
		}
		if !s.bringBack(w, r, sid) {
			return
		}
		e.ServeHTTP(w, r)
		if r.Method == http.MethodPost && s.fastPath.ParkReady(sid, true) {
			s.parkSession(sid, 1, true) // this request is still counted
		}
	})
}

// parkSession parks session sid when no more than busy requests of it are
// in progress: first, once its initialization is done (the one ending
// now, or none: notifications/initialized is handled after its POST is
// answered or before, so both try); later, after it was idle for
// parkAfter (the session table's timer).
func (s *Server) parkSession(sid string, busy int, first bool) {
	s.park.mu.Lock()
	defer s.park.mu.Unlock()
	// Only sessions of the Streamable HTTP endpoint: the table holds
	// those.
	if n, ok := s.sessions.busyCount(sid); !ok || n > busy {
		return
	}
	if s.fastPath.Park(sid, first) {
		s.sessions.parked(sid)
	}
}

// bringBack brings session sid back when it is parked, before r is served.
// It answers r itself, and returns false, when r's token is not that of
// the session's owner (403, as the go-sdk answers). When the session
// cannot be brought back, it ends, and the endpoint answers r 404: the
// client starts a new one.
func (s *Server) bringBack(w http.ResponseWriter, r *http.Request, sid string) bool {
	s.park.mu.Lock()
	defer s.park.mu.Unlock()
	p, parked := s.fastPath.Parked(sid)
	if !parked {
		return true
	}
	if !fastpath.OwnedBy(p.UserID, auth.TokenInfoFromContext(r.Context())) {
		http.Error(w, "session user mismatch", http.StatusForbidden)
		return false
	}
	if s.unparkLocked(r, sid, p) == nil {
		s.fastPath.CloseParked(r.Context(), sid)
	}
	return true
}

// unpark is CallSession.Live's way back (fastpath.SetUnpark): a handler
// served in a parked session asked for the go-sdk session.
func (s *Server) unpark(r *http.Request, sid string) *mcp.ServerSession {
	s.park.mu.Lock()
	defer s.park.mu.Unlock()
	p, parked := s.fastPath.Parked(sid)
	if !parked {
		return s.fastPath.Session(sid)
	}
	return s.unparkLocked(r, sid, p)
}

// unparkLocked makes the initialize of parked session sid and its
// notifications/initialized again, from r (its token, its headers but for
// the protocol version, which is the session's), and returns the new
// go-sdk session, or nil when that failed. park.mu is held.
func (s *Server) unparkLocked(r *http.Request, sid string, p fastpath.ParkedSession) *mcp.ServerSession {
	rr := r.WithContext(context.WithValue(context.WithoutCancel(r.Context()), replayKey{}, true))
	rr.Header = r.Header.Clone()
	rr.Header.Set("Mcp-Protocol-Version", p.Version)
	if status, ok := s.remakeSession(s.park.endpoint, rr, sid, p.Init); !ok {
		s.logger.Warn("a parked session could not be brought back: its initialize failed", "session", sid, "status", status)
		return nil
	}
	ss := s.fastPath.Session(sid)
	if ss == nil {
		s.logger.Warn("a parked session could not be brought back", "session", sid)
		return nil
	}
	s.sessions.rebind(sid, ss)
	s.logger.Debug("parked session brought back", "session", sid)
	return ss
}
