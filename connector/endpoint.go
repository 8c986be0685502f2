package connector

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/internal/httpedge"
	"github.com/mcpgen/mcpgen/internal/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// endpoint is the /mcp handler: it sends each request to the go-sdk handler
// of its protocol era. MCP 2026-07-28 requests (MCP-Protocol-Version
// 2026-07-28 or later) are served statelessly; everything else keeps the
// session the client initialized. Both share one *mcp.Server.
type endpoint struct {
	sessions  http.Handler // nil with WithStateless: no sessions at all
	stateless http.Handler
	versions  []string // the protocol versions served, newest first
	maxBody   int64
	asks      *askRegistry
	table     *sessionTable // sessions.go
}

func (e *endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	v := r.Header.Get("Mcp-Protocol-Version")
	if v != "" && !slices.Contains(e.versions, v) {
		// The answer carries the request's id, as every error answer must;
		// null only when the body is not one readable request.
		id := json.RawMessage("null")
		if r.Method == http.MethodPost && r.Body != nil {
			body, ok := e.readBody(w, r)
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
		if body, ok = e.readBody(w, r); !ok {
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
		if r.Method == http.MethodDelete && e.asks != nil {
			// Questions the session's handlers are waiting on will get
			// no answer: end them, so closing the session does not wait.
			e.asks.cancelSession(sid, errSessionClosed)
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
	if r.Method == http.MethodPost && e.table != nil {
		// A new session: it needs a slot (sessions.go). An endpoint made
		// by NewEndpoint has no session limits.
		slot, no := e.table.reserve(sessionCaller(r))
		if slot == nil {
			e.table.logger.Info("initialize refused", "why", no.msg, "remote", r.RemoteAddr)
			retryLater(w, no.status, sessionRetryAfter, body, no.msg)
			return
		}
		defer e.table.settle(slot)
		r.Header.Set(slotHeader, slot.token)
	}
	e.sessions.ServeHTTP(w, r)
}

// NewEndpoint returns an MCP endpoint over srv that serves both protocol
// eras as a connector built by mcpgen does: MCP 2026-07-28 requests
// statelessly, everything else in the session the client initialized (and
// a request without a session that is not an initialize on its own). sessions
// configures the session handler (nil: the SDK's defaults); the stateless
// handler shares its Logger, MaxRequestBodyBytes and
// DisableLocalhostProtection. mcpgen dev's front serves hosts with it.
func NewEndpoint(srv *mcp.Server, sessions *mcp.StreamableHTTPOptions) http.Handler {
	if sessions == nil {
		sessions = &mcp.StreamableHTTPOptions{}
	}
	server := func(*http.Request) *mcp.Server { return srv }
	maxBody := sessions.MaxRequestBodyBytes
	if maxBody <= 0 {
		maxBody = defaultMaxBodyBytes
	}
	return &endpoint{
		versions: mcp.SupportedProtocolVersions(),
		maxBody:  maxBody,
		sessions: mcp.NewStreamableHTTPHandler(server, sessions),
		stateless: mcp.NewStreamableHTTPHandler(server, &mcp.StreamableHTTPOptions{
			Stateless:                    true,
			Logger:                       sessions.Logger,
			MaxRequestBodyBytes:          maxBody,
			PropagateRequestCancellation: true,
			DisableLocalhostProtection:   sessions.DisableLocalhostProtection,
		}),
	}
}

// readBody reads a POST's body within the size limit; if it cannot, it
// answers the request (413 or 400) and reports false. A body an earlier
// handler already read (an httpedge.Body) is not read again.
func (e *endpoint) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if b, ok := httpedge.BodyBytes(r.Body); ok && int64(len(b)) <= e.maxBody {
		return b, true
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, e.maxBody))
	r.Body.Close()
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			http.Error(w, fmt.Sprintf("request body exceeds %d bytes", mbe.Limit), http.StatusRequestEntityTooLarge)
		} else {
			http.Error(w, "failed to read body", http.StatusBadRequest)
		}
		return nil, false
	}
	return body, true
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
func (e *endpoint) unsupportedVersion(w http.ResponseWriter, v string, id json.RawMessage) {
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
