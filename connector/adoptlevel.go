package connector

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// topicSessionLevel is the store Bus topic on which a replica says that a
// session's client chose a log level; the message is the session id, a
// newline and the level.
//
// The go-sdk keeps a session's log level in the session, and the fast path
// serves a call itself only while the session has none (its log messages
// could not travel); each replica holds a copy of the session. So the
// level a client sets on one replica is written to the session's record
// (for replicas that adopt the session later) and published: a replica
// holding a copy replays the logging/setLevel into it before it serves the
// session's next request, within that request's context (so with its
// token).
const topicSessionLevel = "session-level"

// levelState is what this replica knows of the sessions' log levels.
type levelState struct {
	mu      sync.Mutex
	applied map[string]string // session id -> the level its copy here holds
	pending map[string]string // session id -> a level chosen elsewhere, to apply here
	waiting atomic.Int32      // len(pending): most requests find none
}

// mark records that this replica's copy of session id holds level, and
// reports whether that changed anything.
func (l *levelState) mark(id, level string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.applied == nil {
		l.applied = map[string]string{}
	}
	if l.applied[id] == level {
		return false
	}
	l.applied[id] = level
	return true
}

// shareLevel is receiving middleware on the go-sdk server: once a client
// has chosen its session's log level here, the level is written to the
// session's record and published to the other replicas, before the client
// has the answer. A logging/setLevel replayed from another replica's
// choice changes nothing here that was not marked already, and is not
// published back.
func (s *Server) shareLevel(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if method != "logging/setLevel" || err != nil || !s.sharedStore() || s.opts.stateless {
			return res, err
		}
		ss, _ := req.GetSession().(*mcp.ServerSession)
		p, _ := req.GetParams().(*mcp.SetLoggingLevelParams)
		if ss == nil || ss.ID() == "" || p == nil || p.Level == "" {
			return res, err
		}
		id, level := ss.ID(), string(p.Level)
		if s.adopt.levels.mark(id, level) {
			s.recordLevel(ctx, id, level)
		}
		return res, err
	}
}

// recordLevel writes level into session id's record and tells the other
// replicas.
func (s *Server) recordLevel(ctx context.Context, id, level string) {
	rec, err := s.state.Sessions().Get(ctx, id)
	if err != nil {
		s.logger.Warn("session log level not recorded in the store: other replicas keep the one they had", "session", id, "err", err)
		return
	}
	var data sessionData
	if json.Unmarshal(rec.Data, &data) != nil {
		return
	}
	if data.Level != level {
		data.Level = level
		rec.Data, _ = json.Marshal(data)
		if err := s.state.Sessions().Put(ctx, rec, s.recordTTL()); err != nil {
			s.logger.Warn("session log level not recorded in the store: other replicas keep the one they had", "session", id, "err", err)
			return
		}
	}
	if err := s.state.Bus().Publish(ctx, topicSessionLevel, []byte(id+"\n"+level)); err != nil {
		s.logger.Warn("session log level not published: other replicas holding the session keep the one they had", "session", id, "err", err)
	}
}

// deliverLevel notes a level chosen on another replica for a session this
// replica holds a copy of; the session's next request here applies it.
// (A replica that adopts the session later reads it from the record.)
func (s *Server) deliverLevel(msg []byte) {
	id, level, ok := bytes.Cut(msg, []byte("\n"))
	if !ok || len(level) == 0 || s.fastPath.Session(string(id)) == nil {
		return
	}
	l := &s.adopt.levels
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.applied[string(id)] == string(level) {
		if _, ok := l.pending[string(id)]; ok {
			delete(l.pending, string(id))
			l.waiting.Add(-1)
		}
		return
	}
	if l.pending == nil {
		l.pending = map[string]string{}
	}
	if _, ok := l.pending[string(id)]; !ok {
		l.waiting.Add(1)
	}
	l.pending[string(id)] = string(level)
}

// applyLevel, before a request of session id is served here, replays into
// the session the log level chosen for it on another replica since its
// last request here, if any.
func (s *Server) applyLevel(next http.Handler, r *http.Request, id string) {
	l := &s.adopt.levels
	if l.waiting.Load() == 0 {
		return
	}
	l.mu.Lock()
	level, ok := l.pending[id]
	if ok {
		delete(l.pending, id)
		l.waiting.Add(-1)
		if l.applied == nil {
			l.applied = map[string]string{}
		}
		l.applied[id] = level // before the replay: shareLevel does not publish it back
	}
	l.mu.Unlock()
	if ok {
		s.replayLevel(next, r, id, level)
	}
}

// replayLevel replays logging/setLevel with level into this replica's copy
// of session id, made from r (its context, so its token).
func (s *Server) replayLevel(next http.Handler, r *http.Request, id, level string) {
	lv, _ := json.Marshal(level)
	body := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":"mcpgen-level","method":"logging/setLevel","params":{"level":%s}}`, lv)
	if rw := replay(next, r, body, id); rw.Code/100 != 2 || bytes.Contains(rw.Body.Bytes(), []byte(`"error"`)) {
		s.logger.Warn("a log level chosen on another replica was not applied here", "session", id, "level", level, "status", rw.Code)
	}
}

// forgetLevel forgets what this replica knows of session id's log level,
// once the session closed here.
func (s *Server) forgetLevel(id string) {
	l := &s.adopt.levels
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.applied, id)
	if _, ok := l.pending[id]; ok {
		delete(l.pending, id)
		l.waiting.Add(-1)
	}
}
