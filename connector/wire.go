package connector

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/internal/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// protocolErrors is receiving middleware that puts what handlers (and
// the go-sdk) answer in the protocol's terms:
//
//   - an error without a JSON-RPC code (which jsonrpc2 would send with code
//     0) becomes -32603 Internal error;
//   - "Resource not found" is -32002 for clients before 2026-07-28, as
//     their revision says (the go-sdk sends -32602, which SEP-2164 made the
//     code from 2026-07-28 on);
//   - the answer to a request the client cancelled is marked so that the
//     transport drops it: nothing is sent after notifications/cancelled.
func (s *Server) protocolErrors(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if cancelledByClient(ctx) && !strings.HasPrefix(method, "notifications/") {
			return wire.CancelledResult(method), nil
		}
		if err == nil {
			return res, nil
		}
		var je *jsonrpc.Error
		if !errors.As(err, &je) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
		}
		if je.Code == jsonrpc.CodeInvalidParams && je.Message == "Resource not found" &&
			(method == "resources/read" || method == "resources/subscribe") && requestVersion(req) < wire.StatelessVersion {
			legacy := *je
			legacy.Code = wire.CodeResourceNotFound
			return nil, &legacy
		}
		return res, err
	}
}

// requestVersion is the protocol version a request was made in.
func requestVersion(req mcp.Request) string {
	if r, ok := req.(interface{ ProtocolVersion() string }); ok {
		return r.ProtocolVersion()
	}
	return ""
}

// cancelledByClient reports whether the request's context was cancelled by
// the client (notifications/cancelled), rather than by a deadline.
func cancelledByClient(ctx context.Context) bool {
	return ctx.Err() == context.Canceled && context.Cause(ctx) == context.Canceled
}

// rpcShape is what decides how a JSON-RPC message is taken: a request
// (method and id), a notification (method, no id) or a response (id and a
// result or an error).
type rpcShape struct {
	ID     json.RawMessage `json:"id"`
	Method json.RawMessage `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// shapeOf reads the shape of msg, one JSON object; ok is false for
// anything else (a batch, invalid JSON).
func shapeOf(msg []byte) (m rpcShape, ok bool) {
	msg = bytes.TrimSpace(msg)
	if len(msg) == 0 || msg[0] != '{' || json.Unmarshal(msg, &m) != nil {
		return rpcShape{}, false
	}
	return m, true
}

// malformed returns why the message is not a valid one in a way the
// go-sdk would not answer with a JSON-RPC error: a request whose id is null
// (the go-sdk takes it for a notification and answers nothing, or 400 in
// plain text), or a message with an id but neither a method nor a result
// nor an error (it takes that for a response and drops it). id is the id
// to answer with: the message's own when usable, else null. why is "" for
// any other message, valid or not (the go-sdk answers those).
func (m rpcShape) malformed() (id json.RawMessage, why string) {
	id = json.RawMessage("null")
	if wire.ValidID(m.ID) {
		id = m.ID
	}
	switch {
	case m.Method != nil && string(m.ID) == "null":
		return id, "a request's id must be a string or a number, not null (a notification has no id at all)"
	case m.ID != nil && m.Method == nil && m.Result == nil && m.Error == nil:
		return id, "a message with an id needs a method (a request), or a result or an error (a response)"
	}
	return nil, ""
}

// codeZero is how an error without a code goes out: the go-sdk refuses
// some requests (one before the session is initialized) where no
// middleware sees the error.
var codeZero = []byte(`"error":{"code":0,`)

// withErrorCode returns p, one message about to be written, with an error
// code of 0 replaced: -32600 Invalid Request for a request the session was
// not ready for, -32603 Internal error for anything else.
func withErrorCode(p []byte) []byte {
	i := bytes.Index(p, codeZero)
	if i < 0 {
		return p
	}
	code := `"error":{"code":-32603,`
	if bytes.Contains(p[i:], []byte("invalid during session initialization")) {
		code = `"error":{"code":-32600,`
	}
	out := make([]byte, 0, len(p)+8)
	out = append(out, p[:i]...)
	out = append(out, code...)
	return append(out, p[i+len(codeZero):]...)
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
