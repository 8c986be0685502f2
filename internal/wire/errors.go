// Package wire is the one copy of the JSON-RPC details mcpgen writes by hand:
// request ids the go-sdk would change, integral numbers, error responses
// and their codes, the protocol versions that pick an era, and the one-pass
// reading of a request's envelope and tools/call's params (scan.go).
package wire

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// CodeInsufficientScope is the JSON-RPC error code of a tools/call,
// resources/read or prompts/get refused where it is dispatched because the
// caller's token lacks a scope the tool, resource or prompt declares. A
// plain request is answered 403 insufficient_scope before that; this
// answer is for a request the gate in front read otherwise.
const CodeInsufficientScope = -32003

// StatelessVersion is the first protocol version served without sessions
// (per-request _meta, server/discover, multi-round-trip questions).
const StatelessVersion = "2026-07-28"

// CodeSessionNotFound is the JSON-RPC error code of a request naming an
// unknown or expired session (HTTP 404). Claude Code re-initializes only on
// a 404 whose body is a JSON-RPC error with this code.
const CodeSessionNotFound = -32001

// WriteError writes a JSON-RPC error response with a null id: the
// request was refused before its body was read.
func WriteError(w http.ResponseWriter, status int, e *jsonrpc.Error) {
	WriteErrorID(w, status, json.RawMessage("null"), e)
}

// WriteErrorID writes a JSON-RPC error response answering the
// request whose id is id.
func WriteErrorID(w http.ResponseWriter, status int, id json.RawMessage, e *jsonrpc.Error) {
	body := ErrorResponse(id, e)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Del("Content-Length")
	w.WriteHeader(status)
	w.Write(body)
}

// ValidID reports whether raw is a JSON-RPC request id: a string or a
// number (echoed back exactly as sent).
func ValidID(raw json.RawMessage) bool {
	if len(raw) == 0 {
		return false
	}
	switch c := raw[0]; {
	case c == '"':
		return true
	case c == '-' || (c >= '0' && c <= '9'):
		return true
	}
	return false
}

// AppendString appends s as a JSON string, escaped as encoding/json does.
func AppendString(b []byte, s string) []byte {
	q, _ := json.Marshal(s)
	return append(b, q...)
}

// ErrorResponse encodes a JSON-RPC error response; an error that is not a
// JSON-RPC error is an internal error.
func ErrorResponse(id json.RawMessage, err error) []byte {
	var we *jsonrpc.Error
	if !errors.As(err, &we) {
		we = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	e, _ := json.Marshal(we)
	b := make([]byte, 0, 64+len(e)+len(id))
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"error":`...)
	b = append(b, e...)
	return append(b, '}')
}

// ErrorStatus is the HTTP status of an answer: under MCP 2026-07-28
// (stateless) an error answers with the status SEP-2575 gives its code, as
// the go-sdk does (400 for -32602 and -32021, 404 for -32601); else 200.
func ErrorStatus(stateless bool, err error) int {
	var we *jsonrpc.Error
	if !stateless || !errors.As(err, &we) {
		return http.StatusOK
	}
	switch we.Code {
	case jsonrpc.CodeMethodNotFound:
		return http.StatusNotFound
	case jsonrpc.CodeInvalidParams, mcp.CodeUnsupportedProtocolVersion, mcp.CodeMissingRequiredClientCapabilities:
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// supportedVersions are the protocol versions the go-sdk serves, asked
// for once: the go-sdk returns a new copy each time.
var supportedVersions = mcp.SupportedProtocolVersions()

// Supported reports whether the go-sdk serves protocol version v.
func Supported(v string) bool { return slices.Contains(supportedVersions, v) }

// ResumableVersion is the first protocol version whose SSE streams are
// resumable: priming events, retry, Last-Event-ID (SEP-1699).
const ResumableVersion = "2025-11-25"

// CodeRetryLater is the JSON-RPC error code of a request the server refused
// before running it, because it is full (too many sessions) or shutting
// down; the HTTP answer (429 or 503) carries Retry-After. The request had
// no effect: retrying it is safe.
const CodeRetryLater = -32000

// CodeResourceNotFound is the resource-not-found code of MCP 2025-11-25
// and earlier.
const CodeResourceNotFound = -32002
