package connector

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync"
)

// topicSessionSubs is the store Bus topic on which a replica says that a
// session's subscriptions changed; the message is the session id.
const topicSessionSubs = "session-subscriptions"

// sessionData is a session's record in the store: its initialize request,
// the resources it subscribed to (2025 resources/subscribe), which every
// replica's copy of the session needs to notify the client on the GET
// stream it holds, and its log level.
type sessionData struct {
	Init json.RawMessage `json:"init"`
	Subs []string        `json:"subs,omitempty"`
	// Level is the log level the client chose (logging/setLevel), on
	// whichever replica: every replica's copy of the session sends the
	// handlers' log messages from it on (adoptlevel.go).
	Level string `json:"level,omitempty"`
}

// subsState is this replica's view of the sessions' subscriptions: which
// ones its copy of each session holds, and the open GET streams.
type subsState struct {
	mu       sync.Mutex
	applied  map[string][]string                 // session id -> URIs subscribed here
	streams  map[string]*http.Request            // session id -> its open GET stream
	inflight map[string]map[*http.Request][]byte // session id -> its requests served here, with their bodies
	next     http.Handler
}

// subscribeMethod returns the JSON-RPC method of a POST body when it is
// resources/subscribe or resources/unsubscribe, else "".
func subscribeMethod(body []byte) string {
	if !bytes.Contains(body, []byte("subscribe")) {
		return "" // the cheap test first: every session request passes here
	}
	var peek struct {
		Method string `json:"method"`
	}
	json.Unmarshal(body, &peek)
	if peek.Method == "resources/subscribe" || peek.Method == "resources/unsubscribe" {
		return peek.Method
	}
	return ""
}

// recordSubs, for a resources/subscribe or unsubscribe request of session
// id whose body is body, returns the function to run once it was served: it records the
// change in the session's record and tells the other replicas.
func (s *Server) recordSubs(r *http.Request, body []byte, id, method string) func() {
	var req struct {
		Params struct {
			URI string `json:"uri"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &req) != nil || req.Params.URI == "" {
		return func() {}
	}
	uri := req.Params.URI
	return func() {
		ctx := r.Context()
		s.markApplied(id, uri, method == "resources/subscribe")
		rec, err := s.state.Sessions().Get(ctx, id)
		if err != nil {
			return
		}
		var data sessionData
		if json.Unmarshal(rec.Data, &data) != nil {
			return
		}
		i := slices.Index(data.Subs, uri)
		switch {
		case method == "resources/subscribe" && i < 0:
			data.Subs = append(data.Subs, uri)
		case method == "resources/unsubscribe" && i >= 0:
			data.Subs = slices.Delete(data.Subs, i, i+1)
		default:
			return
		}
		rec.Data, _ = json.Marshal(data)
		if err := s.state.Sessions().Put(ctx, rec, s.recordTTL()); err != nil {
			s.logger.Warn("session subscriptions not recorded in the store", "session", id, "err", err)
			return
		}
		s.state.Bus().Publish(ctx, topicSessionSubs, []byte(id))
	}
}

func (s *Server) markApplied(id, uri string, on bool) {
	st := &s.adopt.subs
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.applied == nil {
		st.applied = map[string][]string{}
	}
	cur := st.applied[id]
	i := slices.Index(cur, uri)
	switch {
	case on && i < 0:
		st.applied[id] = append(cur, uri)
	case !on && i >= 0:
		st.applied[id] = slices.Delete(cur, i, i+1)
	}
}

// applySubs makes this replica's copy of session id hold exactly the
// subscriptions want, replaying resources/subscribe and unsubscribe made
// from r (whose token the session's subject binding requires).
func (s *Server) applySubs(next http.Handler, r *http.Request, id string, want []string) {
	st := &s.adopt.subs
	st.mu.Lock()
	have := slices.Clone(st.applied[id])
	st.mu.Unlock()
	n := 0
	send := func(method, uri string) {
		n++
		body := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":"mcpgen-adopt-%d","method":%q,"params":{"uri":%q}}`, n, method, uri)
		if rw := replay(next, r, body, id); rw.Code/100 == 2 {
			s.markApplied(id, uri, method == "resources/subscribe")
		}
	}
	for _, uri := range want {
		if !slices.Contains(have, uri) {
			send("resources/subscribe", uri)
		}
	}
	for _, uri := range have {
		if !slices.Contains(want, uri) {
			send("resources/unsubscribe", uri)
		}
	}
}

// openStream registers the GET stream r of session id, brings the
// session's subscriptions here, and returns the function that
// unregisters it when the stream ends.
func (s *Server) openStream(next http.Handler, r *http.Request, id string) func() {
	st := &s.adopt.subs
	st.mu.Lock()
	if st.streams == nil {
		st.streams = map[string]*http.Request{}
	}
	st.streams[id] = r
	st.next = next
	st.mu.Unlock()
	s.syncSubs(id)
	return func() {
		st.mu.Lock()
		if st.streams[id] == r {
			delete(st.streams, id)
		}
		st.mu.Unlock()
	}
}

// syncSubs brings the subscriptions of session id from the store to this
// replica's copy, when this replica holds the session's GET stream.
func (s *Server) syncSubs(id string) {
	st := &s.adopt.subs
	st.mu.Lock()
	r, next := st.streams[id], st.next
	st.mu.Unlock()
	if r == nil {
		return
	}
	rec, err := s.state.Sessions().Get(r.Context(), id)
	if err != nil {
		return
	}
	var data sessionData
	if json.Unmarshal(rec.Data, &data) != nil {
		return
	}
	s.applySubs(next, r, id, data.Subs)
}
