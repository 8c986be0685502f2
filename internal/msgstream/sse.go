package msgstream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/internal/authgate"
	"github.com/mcpgen/mcpgen/internal/wire"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The HTTP+SSE transport of MCP 2024-11-05: a client opens an event stream
// with GET; its first event, "endpoint", names the URL (this path with a
// sessionId query parameter) to which the client POSTs its messages, each
// answered 202; the session's messages, answers included, come as
// "message" events on the stream. The session ends with the stream.
//
// mcpgen serves it itself rather than with the go-sdk's SSEHandler, which
// hands the server no token or header with a POSTed message (so no
// identity, per-caller rate limit or scope check), gives every session the
// id "", does not bind a session to the subject that opened it and bounds
// neither sessions nor slow readers.

// SSE returns the handler of the HTTP+SSE transport: GET opens a session,
// POST ?sessionId=ID sends it a message.
func (t *Transports) SSE() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
			t.sseStream(w, r)
		case http.MethodPost:
			t.ssePost(w, r)
		default:
			w.Header().Set("Allow", "GET, POST")
			http.Error(w, "Method Not Allowed: GET opens an event stream, POST ?sessionId=ID sends a message", http.StatusMethodNotAllowed)
		}
	})
}

// sseStream serves the event stream of a new session until the client
// leaves, the session ends or the server drains.
func (t *Transports) sseStream(w http.ResponseWriter, r *http.Request) {
	c := t.admit(w, r, "sse")
	if c == nil {
		return
	}
	rc := http.NewResponseController(w)
	// The stream outlives the server's read timeout, which would end it.
	rc.SetReadDeadline(time.Time{})
	var mu sync.Mutex // one event at a time
	stopped := make(chan struct{})
	var stopOnce sync.Once
	event := func(deadline time.Time, format string, args ...any) error {
		mu.Lock()
		defer mu.Unlock()
		select {
		case <-stopped:
			return errSessionEnded
		default:
		}
		rc.SetWriteDeadline(deadline)
		if _, err := fmt.Fprintf(w, format, args...); err != nil {
			return err
		}
		return rc.Flush()
	}
	c.send = func(ctx context.Context, data []byte) error {
		d, _ := ctx.Deadline()
		return event(d, "event: message\ndata: %s\n\n", data)
	}
	c.setStop(func() {
		// The client reconnects to the replacement process.
		event(time.Now().Add(time.Second), "retry: %d\n\n", Retry.Milliseconds())
		stopOnce.Do(func() { close(stopped) })
	})
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // proxies must not buffer the stream
	w.WriteHeader(http.StatusOK)
	// The record is there before the client learns the endpoint, so its
	// first message finds the session on any replica.
	t.hold(r.Context(), c)
	endpoint := r.URL.Path + "?sessionId=" + c.id
	if err := event(time.Now().Add(t.cfg.WriteTimeout), "event: endpoint\ndata: %s\n\n", endpoint); err != nil {
		t.end(c, nil)
		return
	}
	ss := t.serve(r.Context(), c)
	defer t.end(c, ss)
	if ss == nil {
		return
	}
	tick := time.NewTicker(t.cfg.KeepAlive)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-c.done:
			return
		case <-stopped:
			return
		case <-tick.C:
			if err := event(time.Now().Add(t.cfg.WriteTimeout), ": keep-alive\n\n"); err != nil {
				t.cfg.Logger.Info("session ended: the client did not take a keep-alive", "transport", c.kind, "session", c.id, "err", err)
				return
			}
			t.hold(r.Context(), c)
		}
	}
}

// ssePost hands a POSTed message to its session: 202 when taken, 404 for
// an unknown session, 403 when the token is another subject's than the
// one that opened the session, 413 over the size limit.
func (t *Transports) ssePost(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	id := q.Get("sessionId")
	if id == "" {
		id = q.Get("sessionid") // the go-sdk's client and server spell it so
	}
	c := t.lookup(id)
	// A session this process does not hold may be another replica's
	// (peers.go); one forwarded here is not forwarded again.
	elsewhere := c == nil && id != "" && t.cfg.Peers != nil && !isForwarded(r.Context())
	if c == nil && !elsewhere {
		notFound(w)
		return
	}
	ti := auth.TokenInfoFromContext(r.Context())
	sub := authgate.Subject(ti)
	if c != nil && sub != c.subject {
		t.cfg.Logger.Warn("refused a message: the session belongs to another subject", "transport", c.kind, "session", c.id, "sub", sub)
		http.Error(w, "Forbidden: this session was opened with another user's token", http.StatusForbidden)
		return
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		http.Error(w, "Unsupported Media Type: POST a JSON-RPC message as application/json", http.StatusUnsupportedMediaType)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, t.cfg.MaxMessageBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			http.Error(w, fmt.Sprintf("Request Entity Too Large: a message may have at most %d bytes", mbe.Limit), http.StatusRequestEntityTooLarge)
		} else {
			http.Error(w, "Bad Request: failed to read the body", http.StatusBadRequest)
		}
		return
	}
	if elsewhere {
		t.forward(w, r, id, sub, body)
		return
	}
	if e := c.deliver(r.Context(), body, ti, r.Header.Clone()); e != nil {
		status := http.StatusBadRequest
		if e.Code == wire.CodeSessionNotFound {
			status = http.StatusNotFound
		}
		h := w.Header()
		h.Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(errorMessage(body, e))
		return
	}
	w.WriteHeader(http.StatusAccepted)
}

// notFound answers a message for a session no replica holds.
func notFound(w http.ResponseWriter) {
	wire.WriteError(w, http.StatusNotFound, &jsonrpc.Error{Code: wire.CodeSessionNotFound,
		Message: "Session not found: it ended or never existed; open a new one with GET on this path"})
}
