package connector

import (
	"bytes"
	"encoding/json"
	"net/http"
)

// topicSessionAnswers is the store Bus topic that carries a session
// client's answer to a server-to-client request (elicitation, sampling)
// to the replica that asked: the message is the session id, a newline and
// the JSON-RPC response.
const topicSessionAnswers = "session-answers"

// isClientAnswer reports whether body is a JSON-RPC response (a client's answer)
// rather than a request or notification.
func isClientAnswer(body []byte) bool {
	if !bytes.Contains(body, []byte(`"result"`)) && !bytes.Contains(body, []byte(`"error"`)) {
		return false
	}
	var m struct {
		Method *string          `json:"method"`
		ID     *json.RawMessage `json:"id"`
	}
	return json.Unmarshal(body, &m) == nil && m.Method == nil && m.ID != nil
}

// inflight registers r, whose body is body, as a request of session id
// being served here, and returns the function that unregisters it: an
// answer routed here is replayed within the context (so with the token) of
// one of them, and a notifications/cancelled relayed here finds the
// request it names by the JSON-RPC id in its body (adoptcancel.go).
func (s *Server) inflight(r *http.Request, id string, body []byte) func() {
	st := &s.adopt.subs
	st.mu.Lock()
	if st.inflight == nil {
		st.inflight = map[string]map[*http.Request][]byte{}
	}
	if st.inflight[id] == nil {
		st.inflight[id] = map[*http.Request][]byte{}
	}
	st.inflight[id][r] = body
	st.mu.Unlock()
	return func() {
		st.mu.Lock()
		delete(st.inflight[id], r)
		if len(st.inflight[id]) == 0 {
			delete(st.inflight, id)
		}
		st.mu.Unlock()
	}
}

// forwardAnswer publishes the answer in r's body (already served here) to
// every replica, for the one that asked.
func (s *Server) forwardAnswer(r *http.Request, id string, body []byte) {
	msg := append([]byte(id+"\n"), body...)
	if err := s.state.Bus().Publish(r.Context(), topicSessionAnswers, msg); err != nil {
		s.logger.Warn("a client's answer reached only this replica", "session", id, "err", err)
	}
}

// deliverAnswer replays an answer from the bus into this replica's copy of
// the session, when a request of that session is in flight here (the
// call that asked is).
func (s *Server) deliverAnswer(msg []byte) {
	id, body, ok := bytes.Cut(msg, []byte("\n"))
	if !ok {
		return
	}
	st := &s.adopt.subs
	st.mu.Lock()
	var r *http.Request
	for req := range st.inflight[string(id)] {
		r = req
		break
	}
	next := st.next
	st.mu.Unlock()
	if r == nil || next == nil {
		return
	}
	replay(next, r, body, string(id))
}
