package connector

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrInputRequired is returned by Call.Ask while the client has not yet
// answered: under MCP 2026-07-28 a server cannot send a request to the
// client in the middle of a tool call. Instead the tool call ends with the
// question (an input-required result), the client answers it and calls the
// tool again, and the handler runs again from the start; this time Ask
// returns the answer. A handler that gets ErrInputRequired should return
// (any error will do: the runtime sends the question whatever the handler
// returns), and should do its side effects after its questions.
var ErrInputRequired = errors.New("mcpgen: waiting for the client to answer; return from the handler, it will be called again with the answer")

// multiRoundTrip reports whether the session speaks MCP 2026-07-28 or later,
// where server-to-client requests travel as input-required results.
func multiRoundTrip(ss *mcp.ServerSession) bool {
	if ss == nil {
		return true
	}
	ip := ss.InitializeParams()
	return ip == nil || ip.ProtocolVersion >= "2026-07-28"
}

// Ask sends a request to the client on behalf of the handler: an
// elicitation (*mcp.ElicitParams) or a sampling request
// (*mcp.CreateMessageParams). It returns the client's JSON answer
// (mcp.ElicitResult, mcp.CreateMessageResult or
// mcp.CreateMessageWithToolsResult), or ErrInputRequired (see there).
func (c *Call) Ask(ctx context.Context, req mcp.InputRequest) (json.RawMessage, error) {
	if c == nil {
		return nil, errors.New("mcpgen: no MCP request in this context; pass the ctx your handler received")
	}
	method, err := c.askable(req)
	if err != nil {
		return nil, err
	}
	if !c.mrtr {
		c.mu.Lock()
		if c.Session == nil && c.parked != nil {
			c.Session = c.parked.Live() // the question travels on the go-sdk session (park.go)
		}
		c.mu.Unlock()
		if c.Session == nil {
			return nil, errors.New("mcpgen: this request has no client session to ask")
		}
		timeout := c.Server.opts.askTimeout
		// In a task of a 2025-11-25 session: the request names the task,
		// which reads input_required meanwhile (tasks_v1_notify.go).
		req, answered := askV1(ctx, req)
		defer answered()
		ctx, done := c.Server.asks.start(ctx, c.Session.ID(), timeout)
		defer done()
		var res any
		switch p := req.(type) {
		case *mcp.ElicitParams:
			res, err = c.Session.Elicit(ctx, p)
		case *mcp.CreateMessageParams:
			res, err = c.Session.CreateMessage(ctx, p)
		case *mcp.CreateMessageWithToolsParams:
			res, err = c.Session.CreateMessageWithTools(ctx, p)
		case *mcp.ListRootsParams:
			res, err = c.Session.ListRoots(ctx, p)
		}
		if err != nil {
			return nil, askError(ctx, method, timeout, err)
		}
		return json.Marshal(res)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.canAsk {
		return nil, errors.New("mcpgen: under MCP 2026-07-28, only tool and prompt handlers can ask the client (elicitation, sampling, roots)")
	}
	c.asked++
	id := "mcpgen-" + strconv.Itoa(c.asked)
	if k, ok := ctx.Value(inputKeyCtx{}).(string); ok && k != "" {
		id = k
	}
	if raw, ok := c.answers[id]; ok {
		if c.used == nil {
			c.used = map[string]bool{}
		}
		c.used[id] = true
		return raw, nil
	}
	if c.pending == nil {
		c.pending = mcp.InputRequestMap{}
	}
	c.pending[id] = req
	return nil, ErrInputRequired
}

// askable returns the method of req, or an error when the client did not
// declare the capability it needs: a client is never sent a request it
// said it cannot answer.
func (c *Call) askable(req mcp.InputRequest) (string, error) {
	caps := c.ClientCapabilities()
	switch req.(type) {
	case *mcp.ElicitParams:
		if caps.Elicitation == nil {
			return "", c.missingCapability("elicitation",
				"mcpgen: the client did not declare the elicitation capability, so it cannot be asked for input; ask in the tool's arguments or result instead")
		}
		return "elicitation/create", nil
	case *mcp.CreateMessageParams, *mcp.CreateMessageWithToolsParams:
		if caps.Sampling == nil {
			return "", c.missingCapability("sampling",
				"mcpgen: the client did not declare the sampling capability, so it cannot be asked to sample a model")
		}
		return "sampling/createMessage", nil
	case *mcp.ListRootsParams:
		if caps.RootsV2 == nil {
			return "", c.missingCapability("roots",
				"mcpgen: the client did not declare the roots capability, so it cannot be asked for its roots")
		}
		return "roots/list", nil
	}
	return "", fmt.Errorf("mcpgen: cannot ask the client %T", req)
}

// ClientCapabilities returns what the client declared it can do: in this
// request's _meta under MCP 2026-07-28, at initialize before. It is never
// nil.
func (c *Call) ClientCapabilities() *mcp.ClientCapabilities {
	var caps *mcp.ClientCapabilities
	if c != nil {
		if r, ok := c.Request.(interface {
			ClientCapabilities() *mcp.ClientCapabilities
		}); ok {
			caps = r.ClientCapabilities()
		}
	}
	if caps == nil {
		caps = &mcp.ClientCapabilities{}
	}
	return caps
}

// missingCapability is the error of a question the client cannot answer.
// Under MCP 2026-07-28 it is the protocol's error -32021 naming the
// capability (the request fails, HTTP 400); before, the tool's handler
// gets it as a plain error and the client an isError result.
func (c *Call) missingCapability(need, msg string) error {
	if !c.mrtr {
		return errors.New(msg)
	}
	// The data names the capability as the client would declare it,
	// {"requiredCapabilities": {"sampling": {}}}.
	data, _ := json.Marshal(map[string]any{"requiredCapabilities": map[string]any{need: struct{}{}}})
	return &jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities, Message: strings.TrimPrefix(msg, "mcpgen: "), Data: data}
}

// inputKeyCtx carries the id the next question takes (WithInputKey).
type inputKeyCtx struct{}

// WithInputKey returns ctx under which the next question a handler asks
// takes key as its id in the input-required result (MCP 2026-07-28)
// instead of the runtime's own "mcpgen-N". The client answers under the
// same key; keys must differ within one call.
func WithInputKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, inputKeyCtx{}, key)
}

// errSessionClosed ends the questions of a session the client closed.
var errSessionClosed = errors.New("the session was closed")

// errShuttingDown ends every question when the server stops.
var errShuttingDown = errors.New("the server is shutting down")

// askError explains why a request to the client failed. The client's own
// JSON-RPC error becomes plain text: it is the answer to the handler's
// question, not an error of the request the handler serves.
func askError(ctx context.Context, method string, timeout time.Duration, err error) error {
	if cause := context.Cause(ctx); cause != nil {
		switch {
		case errors.Is(cause, context.DeadlineExceeded):
			return fmt.Errorf("mcpgen: the client did not answer %s within %s", method, timeout)
		case errors.Is(cause, errSessionClosed), errors.Is(cause, errShuttingDown):
			return fmt.Errorf("mcpgen: %s unanswered: %v", method, cause)
		}
		return fmt.Errorf("mcpgen: %s unanswered: %v", method, cause)
	}
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return fmt.Errorf("mcpgen: the client refused %s: %s (code %d)", method, je.Message, je.Code)
	}
	return fmt.Errorf("mcpgen: %s failed: %s", method, err.Error())
}

// askRegistry holds the cancel functions of requests to clients awaiting
// their answers, by session, so that closing a session or stopping the
// server ends them at once instead of waiting for their timeouts.
type askRegistry struct {
	mu     sync.Mutex
	asks   map[string]map[*askEntry]struct{}
	closed error
}

type askEntry struct{ cancel context.CancelCauseFunc }

func newAskRegistry() *askRegistry {
	return &askRegistry{asks: map[string]map[*askEntry]struct{}{}}
}

// start returns ctx bounded by timeout and registered under session; call
// done when the answer came.
func (r *askRegistry) start(ctx context.Context, session string, timeout time.Duration) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	ctx, stop := context.WithTimeoutCause(ctx, timeout, context.DeadlineExceeded)
	e := &askEntry{cancel: cancel}
	r.mu.Lock()
	if r.closed != nil {
		cancel(r.closed)
	} else {
		if r.asks[session] == nil {
			r.asks[session] = map[*askEntry]struct{}{}
		}
		r.asks[session][e] = struct{}{}
	}
	r.mu.Unlock()
	return ctx, func() {
		stop()
		cancel(nil)
		r.mu.Lock()
		delete(r.asks[session], e)
		if len(r.asks[session]) == 0 {
			delete(r.asks, session)
		}
		r.mu.Unlock()
	}
}

// cancelSession ends the questions of one session.
func (r *askRegistry) cancelSession(session string, cause error) {
	r.mu.Lock()
	es := r.asks[session]
	delete(r.asks, session)
	r.mu.Unlock()
	for e := range es {
		e.cancel(cause)
	}
}

// closeAll ends every question, and every later one at once.
func (r *askRegistry) closeAll(cause error) {
	r.mu.Lock()
	all := r.asks
	r.asks = map[string]map[*askEntry]struct{}{}
	r.closed = cause
	r.mu.Unlock()
	for _, es := range all {
		for e := range es {
			e.cancel(cause)
		}
	}
}

// stateKeyName names, in the state store's secrets, the key that signs
// requestState when WithStateKey gives none: replicas sharing a store
// share it.
const stateKeyName = "requestState"

// stateKeySize is the size in bytes of that key (HMAC-SHA256).
const stateKeySize = 32

// roundState is what a tool call carries from one round trip to the next:
// the answers of earlier rounds. It travels through the client as
// requestState, signed so that a client cannot forge answers.
type roundState struct {
	Tool    string                     `json:"t"`
	Answers map[string]json.RawMessage `json:"a"`
}

func (s *Server) signState(st roundState) (string, error) {
	b, err := json.Marshal(st)
	if err != nil {
		return "", err
	}
	mac := hmac.New(sha256.New, s.stateKey)
	mac.Write(b)
	enc := base64.RawURLEncoding
	return enc.EncodeToString(b) + "." + enc.EncodeToString(mac.Sum(nil)), nil
}

func (s *Server) openState(tool, state string) (map[string]json.RawMessage, error) {
	if state == "" {
		return nil, nil
	}
	enc := base64.RawURLEncoding
	payload, sig, ok := strings.Cut(state, ".")
	b, err1 := enc.DecodeString(payload)
	got, err2 := enc.DecodeString(sig)
	if !ok || err1 != nil || err2 != nil {
		return nil, errors.New("invalid requestState")
	}
	signed := false
	for _, k := range append([][]byte{s.stateKey}, s.opts.oldStateKeys...) {
		mac := hmac.New(sha256.New, k)
		mac.Write(b)
		signed = signed || hmac.Equal(got, mac.Sum(nil))
	}
	if !signed {
		return nil, errors.New("invalid requestState: it was not issued by this server (or the server restarted)")
	}
	var st roundState
	if err := json.Unmarshal(b, &st); err != nil || st.Tool != tool {
		return nil, errors.New("invalid requestState: it belongs to another tool call")
	}
	return st.Answers, nil
}

// prepareRounds loads the answers of earlier rounds into c. A requestState
// this server did not issue, or issued for another call, is refused with
// -32602: the client (or someone on the way) changed it.
func (t *tool) prepareRounds(c *Call, p *mcp.CallToolParamsRaw) error {
	return t.s.prepareRounds(c, "tool "+t.def.Name, p.RequestState, p.InputResponses)
}

// prepareRounds loads into c the answers of earlier rounds of the call of
// what (a tool or a prompt).
func (s *Server) prepareRounds(c *Call, what, requestState string, responses mcp.InputResponseMap) error {
	c.mrtr = multiRoundTrip(c.Session) && c.parked == nil // a parked session is at 2025-11-25 or before
	c.canAsk = true
	if !c.mrtr {
		return nil
	}
	answers, err := s.openState(what, requestState)
	if err != nil {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
	}
	for id, r := range responses {
		b, err := json.Marshal(r)
		if err != nil {
			return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("inputResponses[%q]: %v", id, err)}
		}
		if answers == nil {
			answers = map[string]json.RawMessage{}
		}
		answers[id] = b
	}
	c.answers = answers
	return nil
}

// inputRequired returns the input-required result when the handler asked
// the client something not yet answered, or nil.
func (t *tool) inputRequired(c *Call) (*mcp.CallToolResult, error) {
	pending, state, err := t.s.pendingRound(c, "tool "+t.def.Name)
	if pending == nil || err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{InputRequests: pending, RequestState: state}, nil
}

// pendingRound returns the questions c's handler asked and the client has
// not answered yet, with the signed state the client sends back with its
// answers; nil when there are none.
func (s *Server) pendingRound(c *Call, what string) (mcp.InputRequestMap, string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending == nil {
		return nil, "", nil
	}
	// Only the answers the handler used travel on: a key the client added
	// is dropped, so it cannot grow the state round after round.
	used := map[string]json.RawMessage{}
	for k, v := range c.answers {
		if c.used[k] {
			used[k] = v
		}
	}
	state, err := s.signState(roundState{Tool: what, Answers: used})
	if err != nil {
		return nil, "", err
	}
	return c.pending, state, nil
}
