package connector

import (
	"context"
	"errors"
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
		if wire.CancelledByClient(ctx) && !strings.HasPrefix(method, "notifications/") {
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
