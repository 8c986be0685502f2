package connector

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/internal/httpedge"
	"github.com/mcpgen/mcpgen/internal/wire"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// defaultParkAfter is how long a session brought back from being parked
// stays idle before it is parked again (park.go).
const defaultParkAfter = time.Minute

// sessionRetryAfter is the Retry-After, in seconds, of an initialize
// refused because the server holds too many sessions.
const sessionRetryAfter = 10

// sessionBound normalizes a bound given to WithMaxSessions: def for 0, -1
// (none) for a negative n.
func sessionBound(n, def int) int {
	switch {
	case n == 0:
		return def
	case n < 0:
		return -1
	}
	return n
}

// slotHeader carries, on an initialize the server admitted, the token of
// the session slot reserved for it, from the HTTP layer to the receiving
// middleware that sees the new session. It is always removed from what
// clients send.
const slotHeader = "X-Mcpgen-Session-Slot"

// sessionTable counts the HTTP sessions, per caller and in all, reserving a
// slot before the go-sdk creates a session; and it closes sessions idle for
// the idle timeout, where idle means no request in progress and no event
// stream open (the go-sdk's own timer counts POST requests only, so a
// client that only listens would lose its session and its subscriptions).
type sessionTable struct {
	max, perCaller int           // < 0: no bound
	idle           time.Duration // 0: never
	logger         *slog.Logger
	// hooked is set when the sessions' event store tells closed of every
	// session that closes (fastDispatcher.SessionClosed).
	hooked bool
	// closeParked ends a parked session (park.go), whose entry has no
	// go-sdk session to close; parkIdle parks a session idle for
	// parkAfter.
	closeParked func(id string)
	parkIdle    func(id string)
	parkAfter   time.Duration

	mu      sync.Mutex
	total   int                      // slots taken: sessions and reservations
	callers map[string]int           // slots taken per caller
	pending map[string]*sessionEntry // by slot token, until a session binds it
	byID    map[string]*sessionEntry
}

// sessionEntry is one slot: a reservation, then a session.
type sessionEntry struct {
	caller  string
	token   string
	id      string             // "" until bound
	ss      *mcp.ServerSession // nil while parked
	busy    int                // requests in progress and streams open
	last    time.Time          // when busy last fell to 0
	timer   *time.Timer        // closes the session once idle for the idle timeout (expire)
	timerOn bool               // timer is armed
	parkT   *time.Timer        // parks the session once idle for parkAfter (parkDue)
	parkOn  bool               // parkT is armed
	removed bool               // the slot was given back
}

func newSessionTable(max, perCaller int, idle time.Duration, logger *slog.Logger) *sessionTable {
	return &sessionTable{max: max, perCaller: perCaller, idle: idle, logger: logger, parkAfter: defaultParkAfter,
		callers: map[string]int{}, pending: map[string]*sessionEntry{}, byID: map[string]*sessionEntry{}}
}

// refusal says why reserve refused a slot.
type refusal struct {
	status int
	msg    string
}

// reserve takes a slot for a new session of caller. When caller holds its
// bound, its least recently used idle session is closed to make room; it
// returns nil and why when no slot can be had.
func (t *sessionTable) reserve(caller string) (*sessionEntry, *refusal) {
	var evict *sessionEntry
	t.mu.Lock()
	if t.perCaller >= 0 && t.callers[caller] >= t.perCaller {
		for _, e := range t.byID {
			if e.caller == caller && e.busy == 0 && (evict == nil || e.last.Before(evict.last)) {
				evict = e
			}
		}
		if evict == nil {
			t.mu.Unlock()
			return nil, &refusal{http.StatusTooManyRequests, fmt.Sprintf(
				"Too many sessions: this caller holds %d sessions, the most one caller may (--max-sessions-per-caller), and all are in use; close one (DELETE) or retry later", t.perCaller)}
		}
		t.removeLocked(evict)
	}
	var e *sessionEntry
	if t.max < 0 || t.total < t.max {
		e = &sessionEntry{caller: caller, token: rand.Text()}
		t.total++
		t.callers[caller]++
		t.pending[e.token] = e
	}
	var evictSS *mcp.ServerSession
	if evict != nil {
		evictSS = evict.ss
	}
	t.mu.Unlock()
	if evict != nil {
		t.logger.Info("session closed to make room for a new one of its caller", "session", evict.id, "caller", caller, "max_per_caller", t.perCaller)
		t.closeSession(evict.id, evictSS)
	}
	if e == nil {
		return nil, &refusal{http.StatusServiceUnavailable, fmt.Sprintf(
			"Too many sessions: the server holds %d sessions, the most it may (--max-sessions); retry later", t.max)}
	}
	return e, nil
}

// bind makes the slot whose token an initialize carried the slot of ss,
// and watches for ss to close. It is called once the go-sdk has created
// the session, before the initialize is answered.
func (t *sessionTable) bind(token string, ss *mcp.ServerSession) {
	t.mu.Lock()
	e := t.pending[token]
	if e == nil || e.id != "" {
		t.mu.Unlock()
		return
	}
	delete(t.pending, token)
	e.id, e.ss, e.last = ss.ID(), ss, time.Now()
	t.byID[e.id] = e
	e.busy++ // the initialize in progress; settle ends it
	t.mu.Unlock()
	if !t.hooked {
		// Without an event store, nothing else says when it closes.
		go func() {
			ss.Wait()
			t.closed(e.id)
		}()
	}
}

// closed gives back the slot of session id, which has closed.
func (t *sessionTable) closed(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e := t.byID[id]; e != nil {
		t.removeLocked(e)
	}
}

// settle ends the initialize that reserved e: a slot no session was bound
// to is given back; a bound one starts counting idle time.
func (t *sessionTable) settle(e *sessionEntry) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e.id == "" {
		t.removeLocked(e)
		return
	}
	t.doneLocked(e)
}

// removeLocked gives e's slot back (once).
func (t *sessionTable) removeLocked(e *sessionEntry) {
	if e.removed {
		return
	}
	e.removed = true
	t.total--
	if t.callers[e.caller]--; t.callers[e.caller] <= 0 {
		delete(t.callers, e.caller)
	}
	delete(t.pending, e.token)
	if e.id != "" && t.byID[e.id] == e {
		delete(t.byID, e.id)
	}
	if e.timer != nil {
		e.timer.Stop()
	}
	if e.parkT != nil {
		e.parkT.Stop()
	}
}

// begin counts a request of session id in progress (a call, an event
// stream) and returns its entry, which end takes once the request ends;
// nil for a session the table does not hold, which is not counted.
func (t *sessionTable) begin(id string) *sessionEntry {
	t.mu.Lock()
	e := t.byID[id]
	if e != nil {
		e.busy++
	}
	t.mu.Unlock()
	return e
}

// end ends a request begin counted (e nil: one it did not).
func (t *sessionTable) end(e *sessionEntry) {
	if e == nil {
		return
	}
	t.mu.Lock()
	t.doneLocked(e)
	t.mu.Unlock()
}

// doneLocked ends one request of e. Once none is left, the idle timers
// run: armed if they are off, not stopped and reset on every request.
// When one fires it looks at how long e has been idle, and waits for the
// rest (expire, parkDue).
func (t *sessionTable) doneLocked(e *sessionEntry) {
	if e.busy--; e.busy > 0 || e.removed {
		return
	}
	e.last = time.Now()
	if t.parkIdle != nil && e.ss != nil && e.id != "" && !e.parkOn {
		e.parkOn = true
		if e.parkT == nil {
			e.parkT = time.AfterFunc(t.parkAfter, func() { t.parkDue(e) })
		} else {
			e.parkT.Reset(t.parkAfter)
		}
	}
	if t.idle > 0 && !e.timerOn {
		e.timerOn = true
		if e.timer == nil {
			e.timer = time.AfterFunc(t.idle, func() { t.expire(e) })
		} else {
			e.timer.Reset(t.idle)
		}
	}
}

// expire closes e once it has been idle for the idle timeout.
func (t *sessionTable) expire(e *sessionEntry) {
	t.mu.Lock()
	due := t.dueLocked(e, t.idle, e.timer, &e.timerOn)
	id, ss := e.id, e.ss
	t.mu.Unlock()
	if due {
		t.closeSession(id, ss) // its close gives the slot back
	}
}

// parkDue parks e once it has been idle for parkAfter.
func (t *sessionTable) parkDue(e *sessionEntry) {
	t.mu.Lock()
	e.parkOn = false
	due := e.ss != nil && t.dueLocked(e, t.parkAfter, e.parkT, &e.parkOn) // parked already: parkT is gone
	id := e.id
	t.mu.Unlock()
	if due {
		t.parkIdle(id)
	}
}

// dueLocked is the rule of e's idle timers (expire, parkDue): timer, armed
// (on) for d, has fired. It reports whether e has been idle for d. A
// request in progress leaves the timer off (its end arms it again); one
// that came and went since the timer was armed has it wait for the rest.
func (t *sessionTable) dueLocked(e *sessionEntry, d time.Duration, timer *time.Timer, on *bool) bool {
	*on = false
	if e.busy > 0 || e.removed {
		return false
	}
	if rest := d - time.Since(e.last); rest > 0 {
		*on = true
		timer.Reset(rest)
		return false
	}
	return true
}

// closeSession closes session id, whose go-sdk session is ss, or which is
// parked when ss is nil.
func (t *sessionTable) closeSession(id string, ss *mcp.ServerSession) {
	switch {
	case ss != nil:
		ss.Close()
	case t.closeParked != nil:
		t.closeParked(id)
	}
}

// parked notes that session id was parked: it has no go-sdk session.
func (t *sessionTable) parked(id string) {
	t.mu.Lock()
	if e := t.byID[id]; e != nil {
		e.ss = nil
		if e.parkT != nil {
			e.parkT.Stop()
			e.parkT, e.parkOn = nil, false
		}
	}
	t.mu.Unlock()
}

// rebind notes the go-sdk session ss of session id, brought back.
func (t *sessionTable) rebind(id string, ss *mcp.ServerSession) {
	t.mu.Lock()
	if e := t.byID[id]; e != nil {
		e.ss = ss
	}
	t.mu.Unlock()
}

// busyCount returns how many requests and streams of session id are in
// progress; ok is false for a session the table does not hold (one of
// /sse, /ws or stdio).
func (t *sessionTable) busyCount(id string) (n int, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e := t.byID[id]; e != nil {
		return e.busy, true
	}
	return 0, false
}

// track counts each request that names a session as activity of that
// session for as long as it runs: calls, and event streams above all.
func (t *sessionTable) track(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Del(slotHeader)
		if id := r.Header.Get("Mcp-Session-Id"); id != "" {
			defer t.end(t.begin(id))
		}
		next.ServeHTTP(w, r)
	})
}

// bindSessions is receiving middleware that binds a new session to the
// slot its initialize reserved.
func (t *sessionTable) bindSessions(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "initialize" {
			if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil && ss.ID() != "" {
				if ex := req.GetExtra(); ex != nil && ex.Header != nil {
					if tok := ex.Header.Get(slotHeader); tok != "" {
						t.bind(tok, ss)
					}
				}
			}
		}
		return next(ctx, method, req)
	}
}

// sessionCaller names who opens a session: the verified subject with auth,
// else the client address.
func sessionCaller(r *http.Request) string {
	if ti := auth.TokenInfoFromContext(r.Context()); ti != nil && ti.UserID != "" {
		return "sub:" + ti.UserID
	}
	if a := r.Header.Get(httpedge.CallerHeader); a != "" {
		return "addr:" + a
	}
	return "addr:" + r.RemoteAddr
}

// retryLater answers a request the server refuses before running it, with
// status (429 or 503), Retry-After and a JSON-RPC error naming the
// request's id when body has one.
func retryLater(w http.ResponseWriter, status, retryAfter int, body []byte, msg string) {
	id := json.RawMessage("null")
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(body, &m) == nil && wire.ValidID(m.ID) {
		id = m.ID
	}
	h := w.Header()
	h.Set("Retry-After", fmt.Sprint(retryAfter))
	h.Set("Content-Type", "application/json")
	h.Del("Content-Length")
	w.WriteHeader(status)
	w.Write(wire.ErrorResponse(id, &jsonrpc.Error{Code: wire.CodeRetryLater, Message: msg}))
}

// admitSession gives an initialize a slot in the session table, or
// answers it 429 or 503 with Retry-After (eraroute.Hooks.Admit).
func (s *Server) admitSession(w http.ResponseWriter, r *http.Request, body []byte) (func(), bool) {
	if replaying(r.Context()) {
		return func() {}, true // a parked session brought back keeps its slot (park.go)
	}
	slot, no := s.sessions.reserve(sessionCaller(r))
	if slot == nil {
		s.sessions.logger.Info("initialize refused", "why", no.msg, "remote", r.RemoteAddr)
		retryLater(w, no.status, sessionRetryAfter, body, no.msg)
		return nil, false
	}
	r.Header.Set(slotHeader, slot.token)
	if s.park.on {
		// The new session's id must not be one pending to be brought
		// back (park.go).
		s.park.mu.Lock()
		return func() { s.sessions.settle(slot); s.park.mu.Unlock() }, true
	}
	return func() { s.sessions.settle(slot) }, true
}

// closingSession ends the questions a session's handlers are waiting on,
// which will get no answer, so closing the session does not wait for them
// (eraroute.Hooks.Closing).
func (s *Server) closingSession(sid string) {
	s.asks.cancelSession(sid, errSessionClosed)
}
