package connector

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/internal/devlink"
	"github.com/mcpgen/mcpgen/internal/fastpath"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/trace"
)

// requestLog is receiving middleware that writes one log line per JSON-RPC
// request a client sends (notifications are not requests): its method,
// the tool, prompt or resource it names, the session, how long it took and
// its outcome: ok, tool_error (a result with isError) or error (a JSON-RPC
// error, with its code); with tracing, the trace id of the request's span.
func (s *Server) requestLog(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if strings.HasPrefix(method, "notifications/") || !s.logger.Enabled(ctx, slog.LevelInfo) || s.devOwn(req) ||
			(method == "initialize" && replaying(ctx)) { // a parked session's, made again (park.go)
			return next(ctx, method, req)
		}
		start := time.Now()
		res, err := next(ctx, method, req)
		s.requestLine(ctx, method, req, start, res, err)
		return res, err
	}
}

// requestLine writes the log line of a request that took since start and
// ended with res and err. It is a function of its own, not part of the
// middleware's closure, so that its locals (the record's attributes) take
// no room on the stack while the handler runs: a request's goroutine
// whose stack stays within its first size is not grown and copied again
// after each garbage collection shrinks it.
func (s *Server) requestLine(ctx context.Context, method string, req mcp.Request, start time.Time, res mcp.Result, err error) {
	attrs := make([]slog.Attr, 0, 8)
	attrs = append(attrs, slog.String("method", method))
	switch p := req.GetParams().(type) {
	case *mcp.CallToolParamsRaw:
		attrs = append(attrs, slog.String("tool", p.Name))
	case *mcp.CallToolParams:
		attrs = append(attrs, slog.String("tool", p.Name))
	case *mcp.GetPromptParams:
		attrs = append(attrs, slog.String("prompt", p.Name))
	case *mcp.ReadResourceParams:
		attrs = append(attrs, slog.String("uri", p.URI))
	}
	if id := fastpath.SessionID(ctx, req); id != "" {
		attrs = append(attrs, slog.String("session", id))
	}
	attrs = append(attrs, slog.Duration("duration", time.Since(start)))
	if s.tel.Tracing() {
		// The request's span (observe.go) is around this middleware.
		if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
			attrs = append(attrs, slog.String("trace_id", sc.TraceID().String()))
		}
	}
	level := slog.LevelInfo
	switch {
	case err != nil:
		var we *jsonrpc.Error
		code := int64(jsonrpc.CodeInternalError)
		if errors.As(err, &we) {
			code = we.Code
		}
		attrs = append(attrs, slog.String("outcome", "error"), slog.Int64("code", code), slog.String("err", err.Error()))
		if errors.Is(err, context.Canceled) {
			attrs[len(attrs)-3] = slog.String("outcome", "cancelled")
		}
	case isToolError(res):
		attrs = append(attrs, slog.String("outcome", "tool_error"))
	default:
		attrs = append(attrs, slog.String("outcome", "ok"))
	}
	s.logRequest(ctx, level, attrs)
}

// logRequest writes the request line. Through mcpgen's own text handler,
// which never writes the source line, the line is written from attrs
// (textHandler.writeAttrs), or the record handed to the handler directly:
// slog.Logger would first walk the stack for the caller's pc.
func (s *Server) logRequest(ctx context.Context, level slog.Level, attrs []slog.Attr) {
	h, ok := s.logger.Handler().(*textHandler)
	if !ok {
		s.logger.LogAttrs(ctx, level, "request", attrs...)
		return
	}
	now := time.Now()
	if done, _ := h.writeAttrs(now, level, "request", attrs); !done {
		handleRecord(ctx, h, now, level, attrs)
	}
}

// handleRecord hands the request line to h as a record. It is kept apart
// from logRequest so that the record takes stack only when it is made.
//
//go:noinline
func handleRecord(ctx context.Context, h *textHandler, now time.Time, level slog.Level, attrs []slog.Attr) {
	r := slog.NewRecord(now, level, "request", 0)
	r.AddAttrs(attrs...)
	_ = h.Handle(ctx, r)
}

// devOwn reports whether req is one of mcpgen dev's front's own requests
// (devlink.OwnHeader); only requests proving they come from the front reach the
// handlers of a connector run behind it.
func (s *Server) devOwn(req mcp.Request) bool {
	if s.opts.devFrontKey == "" {
		return false
	}
	extra := req.GetExtra()
	return extra != nil && extra.Header.Get(devlink.OwnHeader) != ""
}

func isToolError(res mcp.Result) bool {
	r, ok := res.(*mcp.CallToolResult)
	return ok && r != nil && r.IsError
}
