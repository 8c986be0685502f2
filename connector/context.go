package connector

import (
	"context"
	"encoding/json"
	"os"
	"sync"

	"github.com/mcpgen/mcpgen/internal/fastpath"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Call is what the runtime knows about the MCP request a handler serves.
// The runtime puts it into the handler's context; the context helpers of
// package mcpgen read it.
type Call struct {
	Server *Server
	// Session is nil for requests that have no session, and while the
	// session is parked (park.go): ClientSession brings it back.
	Session *mcp.ServerSession
	// Request is the go-sdk request: *mcp.CallToolRequest,
	// *mcp.ReadResourceRequest, *mcp.GetPromptRequest or *mcp.CompleteRequest.
	Request mcp.Request
	// Tool, Resource or Prompt name the feature being served ("" if none).
	Tool, Resource, Prompt string

	// parked names the session of a call the fast path serves while the
	// session is parked (park.go): Session is nil, ClientSession brings
	// it back.
	parked *fastpath.CallSession

	mu      sync.Mutex
	mrtr    bool                       // answers travel as input-required results
	canAsk  bool                       // a tool call: Ask may end it with a question
	answers map[string]json.RawMessage // answers of earlier rounds, by request id
	asked   int                        // questions asked so far in this run
	pending mcp.InputRequestMap        // questions not yet answered
	used    map[string]bool            // answers the handler read in this run
}

// newCall returns the Call of request req, served in ctx, whose go-sdk
// session is ss (nil for none, or while the session is parked).
func newCall(ctx context.Context, s *Server, ss *mcp.ServerSession, req mcp.Request) *Call {
	c := &Call{Server: s, Session: ss, Request: req}
	if ss == nil {
		c.parked = fastpath.CallSessionFrom(ctx)
	}
	return c
}

// ClientSession returns the client's session, as Session does, bringing
// a parked session back (park.go); nil for a request without a session.
func (c *Call) ClientSession() *mcp.ServerSession {
	if c == nil {
		return nil
	}
	if c.Session == nil && c.parked != nil {
		return c.parked.Live()
	}
	return c.Session
}

// SessionID returns the id of the client's session, parked or not, or ""
// for a request without a session.
func (c *Call) SessionID() string {
	switch {
	case c == nil:
		return ""
	case c.Session != nil:
		return c.Session.ID()
	case c.parked != nil:
		return c.parked.ID
	}
	return ""
}

// ProgressToken returns the request's progress token with its JSON type
// (a string, or a number decoded as float64), or nil when the client sent
// none.
func (c *Call) ProgressToken() any {
	if c == nil || c.Request == nil {
		return nil
	}
	p := c.Request.GetParams()
	if p == nil {
		return nil
	}
	return p.GetMeta()["progressToken"]
}

// Log sends a log message to the client that made the request, as
// mcpgen.Log describes: on the session, or, for a request the runtime
// answers itself without one (a 2025 client without a session), on that
// request's answer. It does nothing when the request has neither.
func (c *Call) Log(ctx context.Context, p *mcp.LoggingMessageParams) error {
	if c == nil {
		return nil
	}
	if c.Session != nil {
		return c.Session.Log(ctx, p)
	}
	if sink, _ := ctx.Value(logSinkKey{}).(func(*mcp.LoggingMessageParams) error); sink != nil {
		return sink(p)
	}
	return nil
}

// logSinkKey carries, in a handler's context, where the log messages of a
// request without a session go (the fast path's answer to it:
// fastDispatcher.Context).
type logSinkKey struct{}

type callKey struct{}

// withCall returns ctx carrying c.
func withCall(ctx context.Context, c *Call) context.Context {
	return context.WithValue(ctx, callKey{}, c)
}

// CallFrom returns the Call a handler's context carries, or nil outside a
// handler.
func CallFrom(ctx context.Context) *Call {
	c, _ := ctx.Value(callKey{}).(*Call)
	return c
}

func stderr() *os.File { return os.Stderr }
