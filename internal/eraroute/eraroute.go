// Package eraroute turns the HTTP requests at a connector's /mcp into calls
// on the go-sdk handler of their protocol era: MCP 2026-07-28 requests are
// served statelessly, everything else in the session its client
// initialized. On the way it puts in the protocol's terms what the go-sdk
// would answer in plain text or not at all: an unsupported
// MCP-Protocol-Version, a malformed request, an unknown method, an unknown
// session (404 with -32001), ids beyond 2^53, and an answer to a request
// the client cancelled (dropped).
//
// The connector and mcpgen dev's front serve hosts with it; both check Host
// and Origin before it, so it turns the go-sdk's own localhost check off.
package eraroute

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/internal/httpedge"
	"github.com/mcpgen/mcpgen/internal/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configure an Endpoint.
type Options struct {
	// Sessions configures the handler of sessions; nil serves every
	// request statelessly, with no sessions at all. Its Logger and
	// MaxRequestBodyBytes are the Endpoint's.
	Sessions *mcp.StreamableHTTPOptions
	// Logger receives the go-sdk's messages about stateless requests.
	Logger *slog.Logger
	// MaxBody is the limit on one request body; larger ones are answered
	// 413. It must be positive.
	MaxBody int64
	Hooks
}

// Hooks let the server that owns the sessions take part in their life.
type Hooks struct {
	// Admit, when set, decides whether an initialize may open a new
	// session. When it refuses, it has answered the request itself and
	// ok is false; otherwise release runs once the initialize is answered.
	Admit func(w http.ResponseWriter, r *http.Request, body []byte) (release func(), ok bool)
	// Closing, when set, is told the id of a session its client deletes,
	// before the go-sdk ends it.
	Closing func(sessionID string)
}

// New returns the endpoint over srv.
func New(srv *mcp.Server, o Options) *Endpoint {
	server := func(*http.Request) *mcp.Server { return srv }
	e := &Endpoint{
		versions: mcp.SupportedProtocolVersions(),
		maxBody:  o.MaxBody,
		hooks:    o.Hooks,
		stateless: mcp.NewStreamableHTTPHandler(server, &mcp.StreamableHTTPOptions{
			Stateless:           true,
			Logger:              o.Logger,
			MaxRequestBodyBytes: o.MaxBody,
			// A 2026-07-28 request lives as long as its HTTP request: a
			// client that goes away cancels the handler.
			PropagateRequestCancellation: true,
			DisableLocalhostProtection:   true,
		}),
	}
	if o.Sessions != nil {
		so := *o.Sessions
		so.Logger, so.MaxRequestBodyBytes, so.DisableLocalhostProtection = o.Logger, o.MaxBody, true
		e.sessions = mcp.NewStreamableHTTPHandler(server, &so)
	}
	return e
}

// Endpoint is the /mcp handler: it sends each request to the go-sdk handler
// of its protocol era. MCP 2026-07-28 requests (MCP-Protocol-Version
// 2026-07-28 or later) are served statelessly; everything else keeps the
// session the client initialized. Both share one *mcp.Server.
type Endpoint struct {
	sessions  http.Handler // nil: no sessions at all
	stateless http.Handler
	versions  []string // the protocol versions served, newest first
	maxBody   int64
	hooks     Hooks
}

func (e *Endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	v := r.Header.Get("Mcp-Protocol-Version")
	if v != "" && !slices.Contains(e.versions, v) {
		// The answer carries the request's id, as every error answer must;
		// null only when the body is not one readable request.
		id := json.RawMessage("null")
		if r.Method == http.MethodPost && r.Body != nil {
			body, ok := httpedge.ReadBody(w, r, e.maxBody)
			if !ok {
				return
			}
			if shape, single := wire.ShapeOf(body); single && wire.ValidID(shape.ID) {
				id = shape.ID
			}
		}
		e.unsupportedVersion(w, v, id)
		return
	}
	var body []byte // a POST's body, read once
	if r.Method == http.MethodPost && r.Body != nil {
		var ok bool
		if body, ok = httpedge.ReadBody(w, r, e.maxBody); !ok {
			return
		}
		shape, single := wire.ShapeOf(body)
		if single {
			if id, why := shape.Malformed(); why != "" {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				w.Write(wire.ErrorResponse(id, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "Invalid Request: " + why}))
				return
			}
		}
		if wire.MayHaveBigID(body) {
			// The go-sdk reads numeric ids as float64: hand it one it
			// would change as a string, and write it back in the answer.
			if fixed, changed := wire.WithStringID(body); changed {
				body, w = fixed, wire.IDWriter{ResponseWriter: w}
			}
		}
		if single && v < wire.StatelessVersion && shape.Method != nil && wire.ValidID(shape.ID) {
			// An unknown method gets its JSON-RPC error (-32601) rather
			// than the go-sdk's plain-text 400 (wire.go).
			mw := &methodWriter{ResponseWriter: w, id: shape.ID}
			json.Unmarshal(shape.Method, &mw.method)
			defer mw.finish()
			w = mw
		}
		r.Body, r.ContentLength = httpedge.NewBody(body), int64(len(body))
	}
	if e.sessions == nil || v >= wire.StatelessVersion {
		e.stateless.ServeHTTP(w, r)
		return
	}
	if sid := r.Header.Get("Mcp-Session-Id"); sid != "" {
		if r.Method == http.MethodDelete && e.hooks.Closing != nil {
			e.hooks.Closing(sid)
		}
		sw := &sessionWriter{ResponseWriter: w, id: json.RawMessage("null")}
		if shape, single := wire.ShapeOf(body); single && wire.ValidID(shape.ID) {
			sw.id = shape.ID
		}
		e.sessions.ServeHTTP(sw, r)
		return
	}
	if body != nil && !isInitialize(body) {
		// A request without a session that is not an initialize: serve it
		// on its own, as a sessionless client expects.
		e.stateless.ServeHTTP(w, r)
		return
	}
	if r.Method == http.MethodPost && e.hooks.Admit != nil {
		release, ok := e.hooks.Admit(w, r, body)
		if !ok {
			return
		}
		defer release()
	}
	e.sessions.ServeHTTP(w, r)
}

// isInitialize reports whether body is an initialize request, alone or in a
// batch, or is not JSON-RPC at all (the session handler answers that).
func isInitialize(body []byte) bool {
	type method struct {
		Method string `json:"method"`
	}
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		var ms []method
		if json.Unmarshal(body, &ms) != nil {
			return true
		}
		return slices.ContainsFunc(ms, func(m method) bool { return m.Method == "initialize" })
	}
	var m method
	if json.Unmarshal(body, &m) != nil {
		return true
	}
	return m.Method == "initialize"
}

// unsupportedVersion answers a request whose MCP-Protocol-Version header
// names no version this server speaks: 400, with the JSON-RPC error
// 2026-07-28 defines (it lists the supported versions).
func (e *Endpoint) unsupportedVersion(w http.ResponseWriter, v string, id json.RawMessage) {
	data, _ := json.Marshal(mcp.UnsupportedProtocolVersionData{Supported: e.versions, Requested: v})
	wire.WriteErrorID(w, http.StatusBadRequest, id, &jsonrpc.Error{
		Code:    mcp.CodeUnsupportedProtocolVersion,
		Message: fmt.Sprintf("Bad Request: unsupported MCP-Protocol-Version %q; supported: %s", v, strings.Join(e.versions, ", ")),
		Data:    data,
	})
}

// sessionWriter turns the go-sdk's plain-text 404 for an unknown, expired
// or closing session into a JSON-RPC error with code -32001: clients (Claude
// Code among them) start a new session only when they see both.
type sessionWriter struct {
	http.ResponseWriter
	replaced bool
	id       json.RawMessage // the request's id, null when it has none
}

func (w *sessionWriter) WriteHeader(code int) {
	if code == http.StatusNotFound && strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain") {
		w.replaced = true
		wire.WriteErrorID(w.ResponseWriter, code, w.id, &jsonrpc.Error{
			Code:    wire.CodeSessionNotFound,
			Message: "Session not found: it expired or was closed; start a new session with initialize",
		})
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *sessionWriter) Write(p []byte) (int, error) {
	if w.replaced || wire.CancelledAnswer(p) {
		return len(p), nil
	}
	if _, err := w.ResponseWriter.Write(wire.WithErrorCode(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Unwrap lets http.ResponseController reach the connection (Flush for
// event streams, deadlines).
func (w *sessionWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *sessionWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// methodWriter answers, as JSON-RPC error -32601, the request with an
// unknown method that the go-sdk answers 400 with plain text (it checks
// methods before any handler runs). Every other answer passes unchanged.
type methodWriter struct {
	http.ResponseWriter
	id       json.RawMessage // the request's id
	method   string
	held     bool // a plain-text 400 is held until its text says why
	replaced bool
}

func (w *methodWriter) WriteHeader(code int) {
	if code == http.StatusBadRequest && strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain") && !w.held {
		w.held = true
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *methodWriter) Write(p []byte) (int, error) {
	if w.replaced {
		return len(p), nil
	}
	if w.held {
		w.held = false
		if bytes.HasPrefix(p, []byte("JSON RPC not handled")) {
			w.replaced = true
			h := w.Header()
			h.Del("X-Content-Type-Options")
			h.Set("Content-Type", "application/json")
			w.ResponseWriter.WriteHeader(http.StatusOK)
			w.ResponseWriter.Write(wire.ErrorResponse(w.id, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "Method not found: " + strconv.Quote(w.method)}))
			return len(p), nil
		}
		w.ResponseWriter.WriteHeader(http.StatusBadRequest)
	}
	return w.ResponseWriter.Write(p)
}

// finish writes a held status that no text followed.
func (w *methodWriter) finish() {
	if w.held {
		w.held = false
		w.ResponseWriter.WriteHeader(http.StatusBadRequest)
	}
}

func (w *methodWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *methodWriter) Flush() {
	if w.held {
		return
	}
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
