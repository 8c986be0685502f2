package runtime

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strings"

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
			return cancelledResult(method), nil
		}
		if err == nil {
			return res, nil
		}
		var je *jsonrpc.Error
		if !errors.As(err, &je) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
		}
		if je.Code == jsonrpc.CodeInvalidParams && je.Message == "Resource not found" &&
			(method == "resources/read" || method == "resources/subscribe") && requestVersion(req) < statelessVersion {
			legacy := *je
			legacy.Code = codeResourceNotFound
			return nil, &legacy
		}
		return res, err
	}
}

// codeResourceNotFound is the resource-not-found code of MCP 2025-11-25
// and earlier.
const codeResourceNotFound = -32002

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

// cancelMarker marks the answer of a cancelled request. It is a _meta key
// with a random part, so no real answer can carry it.
var cancelMarker = func() []byte {
	b := make([]byte, 8)
	rand.Read(b)
	return []byte(`{"_meta":{"mcpgen/cancelled-` + hex.EncodeToString(b) + `":true}`)
}()

func cancelledResult(method string) mcp.Result {
	key := string(cancelMarker[len(`{"_meta":{"`) : len(cancelMarker)-len(`":true}`)])
	meta := mcp.Meta{key: true}
	switch method {
	case "resources/read":
		return &mcp.ReadResourceResult{Meta: meta}
	case "prompts/get":
		return &mcp.GetPromptResult{Meta: meta}
	}
	return &mcp.CallToolResult{Meta: meta}
}

// cancelledAnswer reports whether p, one message (a line, or an SSE event)
// about to be written, answers a cancelled request. The marker opens the
// result, so only the start of p is searched.
func cancelledAnswer(p []byte) bool {
	const window = 1024
	if len(p) > window {
		p = p[:window]
	}
	return bytes.Contains(p, cancelMarker)
}
