package msgstream

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// An HTTP+SSE session lives in the process holding its event stream, but a
// load balancer hands each POSTed message to any replica. With Peers set
// (a connector sharing a store), the replica holding the stream records
// the session; a replica that gets a message for a session it does not
// hold checks that record (404 when no replica holds it, 403 for a token
// of another subject, as for a local session) and forwards the message to
// the holder, which serves it as if it had been POSTed there, token
// verification and caller checks included. WebSocket needs none of this:
// a socket is one connection, served where it was opened.

// Peers shares this process's HTTP+SSE sessions with the other replicas of
// a connector.
type Peers interface {
	// Hold records that session id, opened by subject ("" without auth),
	// is held here, for ttl; it is called again before ttl runs out while
	// the stream stays open.
	Hold(ctx context.Context, id, subject string, ttl time.Duration) error
	// Release forgets the record of session id once its stream has ended.
	Release(ctx context.Context, id string)
	// Holder returns the subject that opened session id on another
	// replica, or an error wrapping ErrNoSession when no replica holds it.
	Holder(ctx context.Context, id string) (subject string, err error)
	// Forward hands the message body, POSTed in r for session id, to the
	// replica holding it, which serves it through its handler for /sse
	// with ctx marked by Forwarded.
	Forward(ctx context.Context, id string, r *http.Request, body []byte) error
}

// ErrNoSession is returned (wrapped) by Peers.Holder for a session no
// replica holds.
var ErrNoSession = errors.New("no replica holds the session")

type forwardedKey struct{}

// Forwarded returns ctx marked as carrying a message another replica
// forwarded: a message for a session not held here is then refused with
// 404 rather than forwarded again.
func Forwarded(ctx context.Context) context.Context {
	return context.WithValue(ctx, forwardedKey{}, true)
}

func isForwarded(ctx context.Context) bool {
	v, _ := ctx.Value(forwardedKey{}).(bool)
	return v
}

// Holds reports whether session id is open in this process.
func (t *Transports) Holds(id string) bool { return t.lookup(id) != nil }

// holdTTL is how long the record of a session held here lasts without
// being renewed: three keep-alive periods, renewed at each.
func (t *Transports) holdTTL() time.Duration { return 3 * t.cfg.KeepAlive }

// hold records session c for the other replicas, logging once per change
// between failing and working: the session is served here either way, and
// only messages sent to another replica are lost while the store is down.
func (t *Transports) hold(ctx context.Context, c *msgConn) {
	if t.cfg.Peers == nil {
		return
	}
	err := t.cfg.Peers.Hold(ctx, c.id, c.subject, t.holdTTL())
	t.mu.Lock()
	was := t.holdFailing
	t.holdFailing = err != nil
	t.mu.Unlock()
	switch {
	case err != nil && !was:
		t.cfg.Logger.Warn("HTTP+SSE sessions are not shared with other replicas until the store is back: their messages must reach this one", "transport", c.kind, "session", c.id, "err", err)
	case err == nil && was:
		t.cfg.Logger.Info("HTTP+SSE sessions are shared with other replicas again")
	}
}

// forward hands a message for session id, not held here, to the replica
// holding it, answering r: 202 once forwarded, 404 when no replica holds
// it, 403 when it was opened by another subject, 503 when the store
// cannot say.
func (t *Transports) forward(w http.ResponseWriter, r *http.Request, id, subject string, body []byte) {
	owner, err := t.cfg.Peers.Holder(r.Context(), id)
	switch {
	case errors.Is(err, ErrNoSession):
		notFound(w)
		return
	case err != nil:
		t.cfg.Logger.Warn("cannot forward a message to the replica holding its session: the store failed", "session", id, "err", err)
		w.Header().Set("Retry-After", "1")
		http.Error(w, "Service Unavailable: the session is held by another replica and the shared store cannot be reached; retry", http.StatusServiceUnavailable)
		return
	case owner != subject:
		t.cfg.Logger.Warn("refused a message: the session belongs to another subject", "transport", "sse", "session", id, "sub", subject)
		http.Error(w, "Forbidden: this session was opened with another user's token", http.StatusForbidden)
		return
	}
	if err := t.cfg.Peers.Forward(r.Context(), id, r, body); err != nil {
		t.cfg.Logger.Warn("cannot forward a message to the replica holding its session", "session", id, "err", err)
		w.Header().Set("Retry-After", "1")
		http.Error(w, "Service Unavailable: the session is held by another replica and the message could not be passed on; retry", http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusAccepted)
}
