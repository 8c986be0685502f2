// Package msgstream serves MCP over the two message transports beside
// Streamable HTTP: the HTTP+SSE transport of 2024-11-05 (/sse) and WebSocket
// (/ws). It turns their connections into go-sdk sessions with the same
// bounds, caller checks and id handling as /mcp.
package msgstream

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/internal/devlink"
	"github.com/mcpgen/mcpgen/internal/httpedge"
	"github.com/mcpgen/mcpgen/internal/wire"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The HTTP+SSE transport of MCP 2024-11-05 (sse.go) and WebSocket (ws.go)
// carry one session per connection: the session lives while its event
// stream or socket is open, and every message of it reaches the go-sdk
// server as one JSON-RPC message of a Connection. Both serve the same
// *mcp.Server as /mcp, so its middleware (request log, protocol errors,
// per-tool rate limits) sees their requests too.

// Transports serves one go-sdk server over the HTTP+SSE transport
// of 2024-11-05 (SSE) and WebSocket (WebSocket). Put the Host, Origin and
// token checks in front of both handlers, as in front of /mcp: a verified
// token reaches them as the SDK's TokenInfo in the request context. A
// connector binary serves them at /sse and /ws; mcpgen dev's front uses
// them for its own sessions.
type Transports struct {
	srv *mcp.Server
	cfg Config

	mu       sync.Mutex
	open     map[string]*msgConn // by session id
	callers  map[string]int      // open sessions per caller
	draining bool
	// holdFailing: the last Peers.Hold failed (logged once per change).
	holdFailing bool
}

// Config says how Transports serve.
type Config struct {
	Logger *slog.Logger
	// MaxMessageBytes limits one message from a client (a POST body, a
	// WebSocket frame); defaultMaxMessageBytes when 0.
	MaxMessageBytes int64
	// Admit, when set, takes a new session's slot in a bound shared with
	// other endpoints (a connector's --max-sessions): it returns how to give
	// the slot back, or nil and the HTTP status and message of a refusal.
	// Without it, MaxSessions and MaxSessionsPerCaller bound the sessions of
	// these transports (defaultMaxStreamSessions,
	// defaultMaxStreamSessionsPerCaller when 0).
	Admit                             func(r *http.Request) (release func(), status int, msg string)
	MaxSessions, MaxSessionsPerCaller int
	// WriteTimeout and KeepAlive: defaultStreamWriteTimeout and
	// defaultStreamKeepAlive when 0.
	WriteTimeout, KeepAlive time.Duration
	// OnClose is called with a session's id when it ends.
	OnClose func(id string)
	// Peers, when set, shares the HTTP+SSE sessions with the other
	// replicas of a connector (peers.go).
	Peers Peers
}

// New returns the transports for srv. Each request
// reaches srv with the token and header of the HTTP request that carried
// it (the upgrade, for a WebSocket) in its RequestExtra, so the checks
// where calls are dispatched (scopes, rate limits) apply as over /mcp.
func New(srv *mcp.Server, cfg Config) *Transports {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	if cfg.MaxMessageBytes <= 0 {
		cfg.MaxMessageBytes = defaultMaxMessageBytes
	}
	if cfg.MaxSessions <= 0 {
		cfg.MaxSessions = defaultMaxStreamSessions
	}
	if cfg.MaxSessionsPerCaller <= 0 {
		cfg.MaxSessionsPerCaller = defaultMaxStreamSessionsPerCaller
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = defaultStreamWriteTimeout
	}
	if cfg.KeepAlive <= 0 {
		cfg.KeepAlive = defaultStreamKeepAlive
	}
	return &Transports{srv: srv, cfg: cfg, open: map[string]*msgConn{}, callers: map[string]int{}}
}

// Wait waits until no request of any open session is being handled, or
// ctx is done; new sessions are refused from the call on (503).
func (t *Transports) Wait(ctx context.Context) {
	t.mu.Lock()
	t.draining = true
	conns := make([]*msgConn, 0, len(t.open))
	for _, c := range t.open {
		conns = append(conns, c)
	}
	t.mu.Unlock()
	for _, c := range conns {
		select {
		case <-c.pending.Idle():
		case <-c.done:
		case <-ctx.Done():
			return
		}
	}
}

// CloseAll ends every open session (an event stream gets an SSE retry
// field, a WebSocket the close code 1012, service restart) and reports how
// many there were. New sessions are refused from then on.
func (t *Transports) CloseAll() int {
	t.mu.Lock()
	t.draining = true
	conns := make([]*msgConn, 0, len(t.open))
	for _, c := range t.open {
		conns = append(conns, c)
	}
	t.mu.Unlock()
	for _, c := range conns {
		c.end()
	}
	return len(conns)
}

// Sessions reports how many sessions are open.
func (t *Transports) Sessions() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.open)
}

func (t *Transports) lookup(id string) *msgConn {
	if id == "" {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.open[id]
}

// admit opens a session for the request r over transport kind, or answers
// r and returns nil when the server is draining or the caller or the
// server has too many sessions open.
func (t *Transports) admit(w http.ResponseWriter, r *http.Request, kind string) *msgConn {
	ti := auth.TokenInfoFromContext(r.Context())
	c := &msgConn{t: t, kind: kind, id: rand.Text(), caller: callerKey(r, ti),
		in: make(chan jsonrpc.Message, 16), done: make(chan struct{})}
	if ti != nil {
		c.subject, c.expiry = ti.UserID, ti.Expiration
	}
	if t.cfg.Admit != nil {
		release, status, msg := t.cfg.Admit(r)
		if release == nil {
			t.cfg.Logger.Warn("refused a session", "transport", kind, "caller", c.caller, "why", msg)
			w.Header().Set("Retry-After", "5")
			http.Error(w, msg, status)
			return nil
		}
		c.release = release
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.draining:
		if c.release != nil {
			c.release()
		}
		w.Header().Set("Retry-After", "1")
		http.Error(w, "Service Unavailable: shutting down; retry", http.StatusServiceUnavailable)
		return nil
	case c.release != nil:
		// The shared bound admitted it.
	case t.callers[c.caller] >= t.cfg.MaxSessionsPerCaller:
		t.cfg.Logger.Warn("refused a session: too many for one caller", "transport", kind, "caller", c.caller, "max", t.cfg.MaxSessionsPerCaller)
		w.Header().Set("Retry-After", "5")
		http.Error(w, fmt.Sprintf("Too Many Requests: at most %d open %s sessions per caller; close one first", t.cfg.MaxSessionsPerCaller, kind), http.StatusTooManyRequests)
		return nil
	case len(t.open) >= t.cfg.MaxSessions:
		t.cfg.Logger.Warn("refused a session: the server has its maximum open", "transport", kind, "max", t.cfg.MaxSessions)
		w.Header().Set("Retry-After", "5")
		http.Error(w, fmt.Sprintf("Service Unavailable: the server has its maximum of %d SSE and WebSocket sessions open; retry later", t.cfg.MaxSessions), http.StatusServiceUnavailable)
		return nil
	}
	t.open[c.id] = c
	t.callers[c.caller]++
	return c
}

// serve connects c to the server and returns its session; it logs and
// returns nil when that fails.
func (t *Transports) serve(ctx context.Context, c *msgConn) *mcp.ServerSession {
	ss, err := t.srv.Connect(context.WithoutCancel(ctx), c, nil)
	if err != nil {
		t.cfg.Logger.Error("cannot start a session", "transport", c.kind, "err", err)
		return nil
	}
	t.cfg.Logger.Debug("session opened", "transport", c.kind, "session", c.id, "caller", c.caller)
	return ss
}

// end closes c's session and forgets it.
func (t *Transports) end(c *msgConn, ss *mcp.ServerSession) {
	c.Close()
	if ss != nil {
		ss.Close()
	}
	t.mu.Lock()
	_, open := t.open[c.id]
	if open {
		delete(t.open, c.id)
		if t.callers[c.caller]--; t.callers[c.caller] <= 0 {
			delete(t.callers, c.caller)
		}
	}
	t.mu.Unlock()
	if open && c.release != nil {
		c.release()
	}
	if open && c.kind == "sse" && t.cfg.Peers != nil {
		rctx, cancel := context.WithTimeout(context.Background(), t.cfg.WriteTimeout)
		t.cfg.Peers.Release(rctx, c.id)
		cancel()
	}
	if t.cfg.OnClose != nil {
		t.cfg.OnClose(c.id)
	}
	t.cfg.Logger.Debug("session closed", "transport", c.kind, "session", c.id)
}

// callerKey names who opens a session, for the per-caller bound: the
// verified subject, else the client's address (as callerAddr or mcpgen
// dev's front put it in the request).
func callerKey(r *http.Request, ti *auth.TokenInfo) string {
	if ti != nil && ti.UserID != "" {
		return "sub:" + ti.UserID
	}
	if a := r.Header.Get(httpedge.CallerHeader); a != "" {
		return "addr:" + a
	}
	if a := r.Header.Get(devlink.CallerAddrHeader); a != "" {
		return "addr:" + a
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return "addr:" + host
}

// msgConn is one session of a message transport: the go-sdk's Transport
// and Connection for it. Messages from the client arrive through deliver;
// the session's messages leave through send.
type msgConn struct {
	t       *Transports
	kind    string // "sse" or "websocket"
	id      string
	caller  string
	subject string    // the verified subject that opened it; "" without auth
	expiry  time.Time // of the token that opened it; zero: none

	release   func() // gives its slot back to cfg.Admit's bound
	in        chan jsonrpc.Message
	done      chan struct{}
	closeOnce sync.Once
	failOnce  sync.Once     // logs the first message the client did not take
	pending   wire.Inflight // requests passed on and not answered yet (as in internal/stdioframe)

	// send writes one message to the client within ctx; set by the
	// transport before the session starts.
	send func(ctx context.Context, data []byte) error

	mu   sync.Mutex
	stop func() // ends the connection for a draining server (setStop)
}

// setStop sets how the transport ends the connection for a draining
// server.
func (c *msgConn) setStop(f func()) {
	c.mu.Lock()
	c.stop = f
	c.mu.Unlock()
}

// end ends the connection for a draining server.
func (c *msgConn) end() {
	c.mu.Lock()
	f := c.stop
	c.mu.Unlock()
	if f == nil {
		c.Close()
		return
	}
	f()
}

var errSessionEnded = errors.New("the session ended")

// Connect implements mcp.Transport: a msgConn is connected once.
func (c *msgConn) Connect(context.Context) (mcp.Connection, error) { return c, nil }

// SupportsProtocolVersion keeps 2026-07-28 off these transports: that
// revision defines stdio and Streamable HTTP only.
func (c *msgConn) SupportsProtocolVersion(v string) bool { return v < wire.StatelessVersion }

func (c *msgConn) SessionID() string { return c.id }

func (c *msgConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case m := <-c.in:
		return m, nil
	case <-c.done:
		return nil, io.EOF
	}
}

func (c *msgConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	if _, ok := msg.(*jsonrpc.Response); ok {
		defer c.pending.Done()
	}
	if wire.CancelledAnswer(data) {
		return nil // the client cancelled the request
	}
	select {
	case <-c.done:
		return errSessionEnded
	default:
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.t.cfg.WriteTimeout)
	defer cancel()
	if err := c.send(wctx, wire.RestoreIDs(data)); err != nil {
		c.failOnce.Do(func() {
			c.t.cfg.Logger.Info("session ended: the client did not take a message", "transport", c.kind, "session", c.id, "err", err)
		})
		c.Close()
		return err
	}
	return nil
}

func (c *msgConn) Close() error {
	c.closeOnce.Do(func() { close(c.done) })
	return nil
}

// deliver hands one message from the client to the session, with the
// token and header of the request that carried it. It returns a JSON-RPC
// error for a message the session cannot take.
func (c *msgConn) deliver(ctx context.Context, raw []byte, ti *auth.TokenInfo, h http.Header) *jsonrpc.Error {
	if wire.MayHaveBigID(raw) {
		if fixed, changed := wire.WithStringID(raw); changed {
			raw = fixed
		}
	}
	msg, err := jsonrpc.DecodeMessage(raw)
	if err != nil {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
			Message: fmt.Sprintf("Invalid Request: not one JSON-RPC 2.0 message (%v); batches are not accepted on this transport", err)}
	}
	call := false
	if req, ok := msg.(*jsonrpc.Request); ok {
		req.Extra = &mcp.RequestExtra{TokenInfo: ti, Header: h}
		if call = req.IsCall(); call {
			c.pending.Add() // before the server can answer
		}
	}
	select {
	case c.in <- msg:
		return nil
	case <-c.done:
	case <-ctx.Done():
	}
	if call {
		c.pending.Done()
	}
	return &jsonrpc.Error{Code: wire.CodeSessionNotFound, Message: "Session not found: it ended; open a new one"}
}

// errorMessage encodes a JSON-RPC error answer to raw (null id when its id
// cannot be read).
func errorMessage(raw []byte, e *jsonrpc.Error) []byte {
	id := wire.IDOf(raw)
	if id == nil {
		id = []byte("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *jsonrpc.Error  `json:"error"`
	}{"2.0", id, e})
	return b
}

// Loopback opens a session over a connection held in memory: send gets
// every message the server writes, deliver hands it one frame as if it
// came from a client with token ti and header h, and end closes the
// session. It exercises the transport without a network, for tests.
func (t *Transports) Loopback(ctx context.Context, send func(context.Context, []byte) error) (deliver func(frame []byte, ti *auth.TokenInfo, h http.Header), end func()) {
	c := &msgConn{t: t, kind: "loopback", id: rand.Text(), in: make(chan jsonrpc.Message, 16), done: make(chan struct{}), send: send}
	t.mu.Lock()
	t.open[c.id] = c
	t.mu.Unlock()
	ss := t.serve(ctx, c)
	return func(frame []byte, ti *auth.TokenInfo, h http.Header) { c.deliver(ctx, frame, ti, h) }, func() { t.end(c, ss) }
}
