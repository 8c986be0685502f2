package connector

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/mcpgen/mcpgen/connector/store"
	"github.com/mcpgen/mcpgen/internal/msgstream"
)

// Replicas sharing a store share their HTTP+SSE sessions (the Peers of
// internal/msgstream): the replica holding a session's event stream keeps
// a record "sse:ID" holding the subject that opened it, and a message
// POSTed for it to another replica travels over the Bus topic
// topicSSEMessage, which every replica hears; the holder serves it through
// its own /sse handler, so the token is verified and the caller checked
// there as for a message POSTed to it directly.
//
// Messages a client sends to different replicas may reach the session in
// another order than sent, by a Bus hop: clients of the transport wait for
// the answer to initialize before anything else, and nothing after that
// depends on the order of two messages in flight at once.
const (
	topicSSEMessage = "sse-message"
	sseRecordPrefix = "sse:"
)

// forwardedMessage is a message POSTed for an HTTP+SSE session, as it
// travels to the replica holding the session: the request as the
// forwarding replica received it (so the holder makes the same Host,
// Origin, token and caller checks) and its body.
type forwardedMessage struct {
	Session    string      `json:"session"`
	Target     string      `json:"target"` // path and query
	Host       string      `json:"host"`
	RemoteAddr string      `json:"remote"`
	Header     http.Header `json:"header"`
	Body       []byte      `json:"body"`
}

// ssePeers implements msgstream.Peers on the server's store.
type ssePeers struct{ s *Server }

func (p ssePeers) Hold(ctx context.Context, id, subject string, ttl time.Duration) error {
	if !p.s.relay.running.Load() {
		// Messages forwarded here would be lost: better the other
		// replicas answer 404, which tells the client to start again.
		p.s.state.Records().Delete(ctx, sseRecordPrefix+id)
		return errors.New("this replica is not subscribed to the store's bus, so messages forwarded by the others would not reach it")
	}
	return p.s.state.Records().Put(ctx, sseRecordPrefix+id, []byte(subject), ttl)
}

func (p ssePeers) Release(ctx context.Context, id string) {
	if err := p.s.state.Records().Delete(ctx, sseRecordPrefix+id); err != nil {
		p.s.logger.Debug("the record of an ended HTTP+SSE session stays until it expires", "session", id, "err", err)
	}
}

func (p ssePeers) Holder(ctx context.Context, id string) (string, error) {
	b, err := p.s.state.Records().Get(ctx, sseRecordPrefix+id)
	if errors.Is(err, store.ErrNotFound) {
		return "", fmt.Errorf("session %s: %w", id, msgstream.ErrNoSession)
	}
	return string(b), err
}

func (p ssePeers) Forward(ctx context.Context, id string, r *http.Request, body []byte) error {
	data, err := json.Marshal(forwardedMessage{Session: id, Target: r.URL.RequestURI(), Host: r.Host,
		RemoteAddr: r.RemoteAddr, Header: r.Header, Body: body})
	if err != nil {
		return err
	}
	return p.s.state.Bus().Publish(ctx, topicSSEMessage, data)
}

// sseInbox is how many forwarded messages may wait for serveForwarded
// before more are dropped (the Bus delivers at most once anyway).
const sseInbox = 256

// serveForwarded serves, in the order they came, the messages other
// replicas forwarded from inbox for the HTTP+SSE sessions held here, until
// ctx is done. Every replica hears every forwarded message; the others
// ignore it.
func (s *Server) serveForwarded(ctx context.Context, inbox <-chan []byte) {
	h := s.SSEHandler()
	for {
		var data []byte
		select {
		case <-ctx.Done():
			return
		case data = <-inbox:
		}
		var m forwardedMessage
		if err := json.Unmarshal(data, &m); err != nil {
			s.logger.Warn("ignored a malformed forwarded HTTP+SSE message", "err", err)
			continue
		}
		if !s.streams().Holds(m.Session) {
			continue
		}
		r, err := http.NewRequestWithContext(msgstream.Forwarded(ctx), http.MethodPost, m.Target, bytes.NewReader(m.Body))
		if err != nil {
			s.logger.Warn("ignored a malformed forwarded HTTP+SSE message", "session", m.Session, "err", err)
			continue
		}
		r.Header, r.Host, r.RemoteAddr = m.Header, m.Host, m.RemoteAddr
		w := &statusOnly{header: http.Header{}}
		h.ServeHTTP(w, r)
		if w.status >= 300 {
			s.logger.Warn("refused a message another replica forwarded", "session", m.Session, "status", w.status)
		}
	}
}

// statusOnly is the ResponseWriter of a forwarded message, whose client
// was answered by the replica that forwarded it: it keeps the status.
type statusOnly struct {
	header http.Header
	status int
}

func (w *statusOnly) Header() http.Header { return w.header }
func (w *statusOnly) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return len(b), nil
}
func (w *statusOnly) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}
