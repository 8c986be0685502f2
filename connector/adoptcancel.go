package connector

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"

	"github.com/mcpgen/mcpgen/internal/wire"
)

// topicSessionCancel is the store Bus topic that carries a session
// client's notifications/cancelled to the replica serving the request it
// names: the message is the session id, a newline and the notification.
//
// The client sends the cancel in a POST of its own, which the load
// balancer may hand to any replica; only the one running the request can
// stop it. There the notification is replayed into the session as if the
// client had sent it there, so the request ends exactly as after a local
// cancel: the handler's context is cancelled and nothing is sent for the
// request (wire.CancelledResult, the fast path's cancelled).
const topicSessionCancel = "session-cancel"

// cancelledID returns the requestId a notifications/cancelled in body
// names, compacted, or nil when body is not one.
func cancelledID(body []byte) []byte {
	if !bytes.Contains(body, []byte(`"notifications/cancelled"`)) {
		return nil
	}
	var n struct {
		Method string `json:"method"`
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &n) != nil || n.Method != "notifications/cancelled" || len(n.Params.RequestID) == 0 {
		return nil
	}
	return compactID(n.Params.RequestID)
}

// compactID returns a JSON-RPC id as compact JSON, so that the id of a
// request and the requestId of its cancellation compare equal however the
// client spaced them.
func compactID(id json.RawMessage) []byte {
	var b bytes.Buffer
	if json.Compact(&b, id) != nil {
		return nil
	}
	return b.Bytes()
}

// servingRequest returns the request of session sid in flight here whose
// JSON-RPC id is reqID, else nil. The ids are read only now, from the
// bodies kept by inflight: a cancel is rare, a request is not.
func (s *Server) servingRequest(sid string, reqID []byte) *http.Request {
	st := &s.adopt.subs
	st.mu.Lock()
	defer st.mu.Unlock()
	for r, body := range st.inflight[sid] {
		if id := wire.IDOf(body); id != nil && bytes.Equal(compactID(id), reqID) {
			return r
		}
	}
	return nil
}

// forwardCancel, for a notifications/cancelled of session sid (in body,
// already served here), publishes it to every replica unless the request
// it names runs here: then it was cancelled as it was served.
func (s *Server) forwardCancel(r *http.Request, sid string, body, reqID []byte) {
	if s.servingRequest(sid, reqID) != nil {
		return
	}
	msg := append([]byte(sid+"\n"), body...)
	if err := s.state.Bus().Publish(r.Context(), topicSessionCancel, msg); err != nil {
		s.logger.Warn("a notifications/cancelled reached only this replica: a request running on another goes on", "session", sid, "err", err)
	}
}

// deliverCancel replays a notifications/cancelled from the bus into this
// replica's copy of the session, when the request it names runs here. It
// is replayed within that request's context (so with its token), kept
// from being cancelled: a resumable call outlives its connection.
func (s *Server) deliverCancel(msg []byte) {
	sid, body, ok := bytes.Cut(msg, []byte("\n"))
	if !ok {
		return
	}
	reqID := cancelledID(body)
	if reqID == nil {
		return
	}
	// A cancelled call gets no answer: a request held for it here is let
	// go (adoptdrain.go).
	defer s.adopt.answers.answered(string(sid), reqID)
	r := s.servingRequest(string(sid), reqID)
	st := &s.adopt.subs
	st.mu.Lock()
	next := st.next
	st.mu.Unlock()
	if r == nil || next == nil {
		return
	}
	replay(next, r.WithContext(context.WithoutCancel(r.Context())), body, string(sid))
	s.logger.Debug("notifications/cancelled relayed from another replica", "session", string(sid), "request", string(reqID))
}
