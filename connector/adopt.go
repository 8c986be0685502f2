package connector

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/mcpgen/mcpgen/connector/store"
	"github.com/mcpgen/mcpgen/internal/authgate"
	"github.com/mcpgen/mcpgen/internal/httpedge"
)

// adopter lets any replica sharing a store serve any session (protocol
// revisions with sessions, up to 2025-11-25). The go-sdk keeps a session in
// the process that created it and answers an id it does not hold with 404;
// so when a session starts, its initialize request is kept in the store as
// the session's record, and a replica that receives a request for a
// session it does not hold, whose record is there and whose subject is the
// request's, first replays that initialize (under the same id) and
// notifications/initialized into its own handler. The session then lives
// on this replica too, with the client's capabilities and protocol
// version, and with what the client set later in the session on any
// replica, which the record keeps too: its subscriptions (adoptsubs.go)
// and its log level (adoptlevel.go). A notifications/cancelled and a
// client's answer to a question reach the replica serving the request
// they concern over the store's Bus (adoptcancel.go, adoptanswers.go).
type adopter struct {
	// mu is held while a session is created, whether new (an
	// initialize) or adopted, so that the id pending for an adoption is
	// not handed to another new session: GetSessionID has no request.
	mu      sync.Mutex
	pending atomic.Pointer[string]
	touched sync.Map // session id -> time.Time of the last TTL refresh here
	subs    subsState
	levels  levelState
	answers answerWaits // calls whose client has gone (adoptdrain.go)
}

// nextSessionID is the go-sdk's ServerOptions.GetSessionID: the id of the
// session being adopted, else a new random one.
func (s *Server) nextSessionID() string {
	if id := s.adopt.pending.Load(); id != nil {
		return *id
	}
	return rand.Text()
}

// adoptSessions is the middleware that records and adopts sessions; it is
// a no-op without a shared store.
func (s *Server) adoptSessions(next http.Handler) http.Handler {
	if !s.sharedStore() || s.opts.stateless {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A POST's body is read here once, within --max-body, and handed
		// on as bytes (httpedge.ReadBody) to the handlers below.
		var body []byte
		if r.Method == http.MethodPost {
			var ok bool
			if body, ok = httpedge.ReadBody(w, r, s.opts.maxBodyBytes); !ok {
				return
			}
		}
		id := r.Header.Get("Mcp-Session-Id")
		if id == "" {
			s.recordSession(w, r, body, next)
			return
		}
		if s.fastPath.Session(id) == nil { // not a session of this replica
			s.adoptSession(r, id, next)
		} else {
			s.touchSession(r, id)
		}
		switch r.Method {
		case http.MethodGet:
			// The session's notifications go to this stream: this
			// replica's copy needs the session's subscriptions.
			defer s.openStream(next, r, id)()
		case http.MethodPost:
			if method := subscribeMethod(body); method != "" {
				defer s.recordSubs(r, body, id, method)()
			}
			s.adopt.subs.mu.Lock()
			s.adopt.subs.next = next
			s.adopt.subs.mu.Unlock()
			if isClientAnswer(body) {
				// The call that asked may run on another replica
				// (adoptanswers.go).
				defer s.forwardAnswer(r, id, body)
			} else if reqID := cancelledID(body); reqID != nil {
				// The request it cancels may run on another replica
				// (adoptcancel.go). A cancelled call gets no answer: a
				// request held for it here is let go (adoptdrain.go).
				defer s.forwardCancel(r, id, body, reqID)
				defer s.adopt.answers.answered(id, reqID)
			} else {
				defer s.inflight(r, id, body)()
				defer s.adopt.answers.wait(r, id, s.adopt.answers.expect(id, body)) // adoptdrain.go
			}
		}
		if r.Method != http.MethodDelete {
			// A log level the client chose on another replica
			// (adoptlevel.go).
			s.applyLevel(next, r, id)
		}
		next.ServeHTTP(w, r)
		if r.Method == http.MethodDelete {
			if err := s.state.Sessions().Delete(r.Context(), id); err != nil {
				s.logger.Warn("session record not deleted from the store", "session", id, "err", err)
			}
			s.adopt.touched.Delete(id)
			s.forgetLevel(id)
		}
	})
}

// requestSubject is the verified subject of r ("" without auth).
func requestSubject(r *http.Request) string {
	return authgate.Subject(auth.TokenInfoFromContext(r.Context()))
}

// recordSession serves a request that carries no session id, whose body
// (a POST's) is body, and, when it was an initialize that opened a
// session, writes the session's record.
func (s *Server) recordSession(w http.ResponseWriter, r *http.Request, body []byte, next http.Handler) {
	if r.Method != http.MethodPost || !bytes.Contains(body, []byte(`"initialize"`)) {
		next.ServeHTTP(w, r)
		return
	}
	var peek struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(body, &peek) != nil || peek.Method != "initialize" {
		next.ServeHTTP(w, r)
		return
	}
	// The record is written before the answer leaves: a client may send
	// its next request to another replica as soon as it has the id.
	rw := &recordFirst{ResponseWriter: w, record: func(id string) {
		data, _ := json.Marshal(sessionData{Init: body})
		rec := store.Session{ID: id, Subject: requestSubject(r), Caller: sessionCaller(r), Data: data}
		if err := s.state.Sessions().Create(r.Context(), rec, s.recordTTL()); err != nil {
			s.logger.Warn("session not recorded in the store: only this replica can serve it", "session", id, "err", err)
			return
		}
		s.adopt.touched.Store(id, time.Now())
	}}
	s.adopt.mu.Lock()
	next.ServeHTTP(rw, r)
	rw.before()
	s.adopt.mu.Unlock()
}

// recordFirst is the ResponseWriter of an initialize: before the first
// byte of the answer, when the answer names a new session, it records it.
type recordFirst struct {
	http.ResponseWriter
	once   sync.Once
	record func(id string)
}

func (w *recordFirst) before() {
	w.once.Do(func() {
		if id := w.Header().Get("Mcp-Session-Id"); id != "" {
			w.record(id)
		}
	})
}

func (w *recordFirst) WriteHeader(code int) { w.before(); w.ResponseWriter.WriteHeader(code) }

func (w *recordFirst) Write(p []byte) (int, error) { w.before(); return w.ResponseWriter.Write(p) }

func (w *recordFirst) Flush() {
	w.before()
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *recordFirst) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// recordTTL is how long a session record lives without being touched.
func (s *Server) recordTTL() time.Duration {
	if s.opts.sessionIdle > 0 {
		return s.opts.sessionIdle
	}
	return 0
}

// touchSession restarts the record's TTL, at most a few times per idle
// period per replica, so that a session in use does not expire in the
// store while each request costs no round trip.
func (s *Server) touchSession(r *http.Request, id string) {
	ttl := s.recordTTL()
	if ttl <= 0 {
		return
	}
	if last, ok := s.adopt.touched.Load(id); ok && time.Since(last.(time.Time)) < ttl/4 {
		return
	}
	s.adopt.touched.Store(id, time.Now())
	if err := s.state.Sessions().Touch(r.Context(), id, ttl); err != nil && !errors.Is(err, store.ErrNotFound) {
		s.logger.Debug("session record not touched", "session", id, "err", err)
	}
}

// replay serves a request made from r (its context, so its token, and
// headers) with body, in session sessionID ("" for none), and returns the
// recorded response.
func replay(next http.Handler, r *http.Request, body []byte, sessionID string) *httptest.ResponseRecorder {
	req := r.Clone(r.Context())
	req.Method = http.MethodPost
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = int64(len(body))
	req.Header = r.Header.Clone()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Del("Last-Event-ID")
	req.Header.Del("Mcp-Session-Id")
	if sessionID != "" {
		req.Header.Set("Mcp-Session-Id", sessionID)
	}
	rw := httptest.NewRecorder()
	next.ServeHTTP(rw, req)
	return rw
}

// remakeSession makes a session's initialize request init and its
// notifications/initialized again into next, from r (its context, so its
// token, and headers), under id, which nextSessionID hands the go-sdk; it
// returns the initialize's HTTP status and whether the go-sdk made the
// session. The caller holds the lock that keeps a new session from taking
// id meanwhile (adopt.mu or park.mu).
func (s *Server) remakeSession(next http.Handler, r *http.Request, id string, init []byte) (status int, ok bool) {
	s.adopt.pending.Store(&id)
	rec := replay(next, r, init, "")
	s.adopt.pending.Store(nil)
	if rec.Header().Get("Mcp-Session-Id") != id {
		return rec.Code, false
	}
	replay(next, r, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), id)
	return rec.Code, true
}

// adoptSession makes session id, recorded in the store by another
// replica, live on this one too. When it cannot (no record, another
// subject, the store down), it does nothing and the request is answered
// 404 as for any unknown session: the client starts a new one.
func (s *Server) adoptSession(r *http.Request, id string, next http.Handler) {
	rec, err := s.state.Sessions().Get(r.Context(), id)
	if err != nil {
		if !errors.Is(err, store.ErrNotFound) {
			s.logger.Warn("session not adopted: the store failed", "session", id, "err", err)
		}
		return
	}
	if rec.Subject != requestSubject(r) {
		s.logger.Warn("session not adopted: it belongs to another subject", "session", id)
		return
	}
	s.adopt.mu.Lock()
	defer s.adopt.mu.Unlock()
	if s.fastPath.Session(id) != nil {
		return // adopted by a request that came in meanwhile
	}
	var data sessionData
	if err := json.Unmarshal(rec.Data, &data); err != nil {
		s.logger.Warn("session not adopted: its record is not one this connector wrote", "session", id, "err", err)
		return
	}
	if status, ok := s.remakeSession(next, r, id, data.Init); !ok {
		s.logger.Warn("session not adopted: replaying its initialize failed", "session", id, "status", status)
		return
	}
	s.adopt.touched.Store(id, time.Now())
	s.applySubs(next, r, id, data.Subs)
	if data.Level != "" {
		s.adopt.levels.mark(id, data.Level)
		s.replayLevel(next, r, id, data.Level)
	}
	s.logger.Debug("session adopted from the store", "session", id)
}
