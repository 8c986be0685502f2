package mcpgen

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/mcpgen/mcpgen/connector"
	"github.com/mcpgen/mcpgen/internal/taskctx"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrNoRequest is returned by the context helpers when ctx does not come
// from a handler the runtime called (or a context derived from one).
var ErrNoRequest = errors.New("mcpgen: no MCP request in this context; pass the ctx your handler received")

// Level is the severity of a log message sent to the client.
type Level = mcp.LoggingLevel

// The log levels of MCP (RFC 5424 severities), lowest first.
const (
	LevelDebug     Level = "debug"
	LevelInfo      Level = "info"
	LevelNotice    Level = "notice"
	LevelWarning   Level = "warning"
	LevelError     Level = "error"
	LevelCritical  Level = "critical"
	LevelAlert     Level = "alert"
	LevelEmergency Level = "emergency"
)

// Session returns the client session of the request being served, or nil
// outside a handler (or in stateless HTTP mode, where it lasts one
// request). It reaches everything the go-sdk offers a server session. A
// session at rest without a go-sdk session (parked, see docs/runtime.md)
// is brought back first.
func Session(ctx context.Context) *mcp.ServerSession {
	if c := connector.CallFrom(ctx); c != nil {
		return c.ClientSession()
	}
	return nil
}

// Log sends a log message (notifications/message) to the client that made
// the current request, tied to that request so that it travels on the
// request's stream. Messages below the level the client chose with
// logging/setLevel are dropped, and so is every message before the client
// chooses one. args are slog-style key/value pairs or slog.Attr values;
// with args the message's data is an object {"msg": msg, key: value, ...},
// without them the plain string msg. Log does nothing outside a handler.
func Log(ctx context.Context, level Level, msg string, args ...any) {
	c := connector.CallFrom(ctx)
	if c == nil {
		return
	}
	var data any = msg
	if len(args) > 0 {
		r := slog.NewRecord(time.Time{}, slog.LevelInfo, msg, 0)
		r.Add(args...)
		m := map[string]any{"msg": msg}
		r.Attrs(func(a slog.Attr) bool {
			m[a.Key] = attrValue(a.Value)
			return true
		})
		data = m
	}
	logger := c.Tool
	if logger == "" {
		logger = c.Prompt
	}
	if logger == "" {
		logger = c.Resource
	}
	if err := c.Log(ctx, &mcp.LoggingMessageParams{Level: level, Logger: logger, Data: data}); err != nil && c.Server != nil {
		c.Server.Logger().Debug("log to client", "err", err)
	}
}

func attrValue(v slog.Value) any {
	v = v.Resolve()
	if v.Kind() == slog.KindGroup {
		m := map[string]any{}
		for _, a := range v.Group() {
			m[a.Key] = attrValue(a.Value)
		}
		return m
	}
	if v.Kind() == slog.KindAny {
		if err, ok := v.Any().(error); ok {
			return err.Error()
		}
	}
	return v.Any()
}

// Progress reports how far the current request has come
// (notifications/progress): progress should grow with every call; total is
// 0 when unknown; msg may be empty. It does nothing when the client asked
// for no progress (sent no progress token) or outside a handler. In a tool
// running as a task, it sets the task's statusMessage instead (msg, or
// "progress of total").
func Progress(ctx context.Context, progress, total float64, msg string) error {
	status := msg
	if status == "" {
		status = fmt.Sprintf("%g", progress)
		if total > 0 {
			status = fmt.Sprintf("%g of %g", progress, total)
		}
	}
	if taskctx.Progress(ctx, status) {
		// In a task, progress is the task's status message (tasks/get).
		return nil
	}
	c := connector.CallFrom(ctx)
	if c == nil || c.Session == nil {
		return nil
	}
	token := c.ProgressToken()
	if token == nil {
		return nil
	}
	return c.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
		ProgressToken: token, Progress: progress, Total: total, Message: msg,
	})
}

// Sample asks the client's model to answer prompt (sampling/createMessage)
// in at most maxTokens tokens (1000 when 0) and returns the text of its
// answer. The client must support sampling. Under MCP 2026-07-28 the
// question ends the tool call and the handler runs again with the answer:
// return when Sample returns ErrInputRequired (see connector.ErrInputRequired).
func Sample(ctx context.Context, prompt string, maxTokens int) (string, error) {
	if maxTokens <= 0 {
		maxTokens = 1000
	}
	res, err := SampleMessage(ctx, &mcp.CreateMessageParams{
		Messages:  []*mcp.SamplingMessage{{Role: "user", Content: Text(prompt)}},
		MaxTokens: int64(maxTokens),
	})
	if err != nil {
		return "", err
	}
	if tc, ok := res.Content.(*mcp.TextContent); ok {
		return tc.Text, nil
	}
	return "", errors.New("mcpgen: the client's model answered with non-text content; use SampleMessage to read it")
}

// ErrInputRequired is returned by Sample, SampleMessage and Elicit under
// MCP 2026-07-28 until the client has answered: return it from the
// handler, which is then called again with the answer available.
var ErrInputRequired = connector.ErrInputRequired

// SampleMessage sends a full sampling/createMessage request to the client.
func SampleMessage(ctx context.Context, params *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	c := connector.CallFrom(ctx)
	if c == nil {
		return nil, ErrNoRequest
	}
	if params.Messages == nil {
		params.Messages = []*mcp.SamplingMessage{}
	}
	raw, err := c.Ask(ctx, params)
	if err != nil {
		return nil, err
	}
	var res mcp.CreateMessageWithToolsResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("mcpgen: reading the client's sampling answer: %v", err)
	}
	out := &mcp.CreateMessageResult{Meta: res.Meta, Model: res.Model, Role: res.Role, StopReason: res.StopReason}
	if len(res.Content) > 0 {
		out.Content = res.Content[0]
	}
	return out, nil
}

// ResourceUpdated tells the clients subscribed to uri that the resource
// changed (notifications/resources/updated). ctx must come from a handler;
// outside one, call (*connector.Server).ResourceUpdated.
func ResourceUpdated(ctx context.Context, uri string) error {
	c := connector.CallFrom(ctx)
	if c == nil || c.Server == nil {
		return ErrNoRequest
	}
	return c.Server.ResourceUpdated(ctx, uri)
}

// CloseStream ends the SSE stream that carries the current tool call's
// response, telling the client to reconnect after retryAfter and resume the
// stream (Last-Event-ID) to receive what follows — the result included.
// Long calls use it to free a connection a proxy would otherwise time out
// (SEP-1699). It reports whether the stream could be closed: only a tool call
// over Streamable HTTP with resumable streams (an event store; sessions at
// protocol 2025-11-25) has one.
func CloseStream(ctx context.Context, retryAfter time.Duration) bool {
	c := connector.CallFrom(ctx)
	if c == nil {
		return false
	}
	req, ok := c.Request.(*mcp.CallToolRequest)
	if !ok || req.Extra == nil || req.Extra.CloseSSEStream == nil {
		return false
	}
	req.Extra.CloseSSEStream(mcp.CloseSSEStreamArgs{RetryAfter: retryAfter})
	return true
}
