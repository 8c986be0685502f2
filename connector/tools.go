package connector

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpgen/mcpgen/internal/argcheck"
	"github.com/mcpgen/mcpgen/internal/authgate"
	"github.com/mcpgen/mcpgen/internal/taskctx"
	"github.com/mcpgen/mcpgen/internal/toolname"
	"github.com/mcpgen/mcpgen/internal/viewmeta"
)

// tool is a registered tool with its precomputed wire form.
type tool struct {
	s        *Server
	def      *Tool
	input    json.RawMessage
	output   json.RawMessage
	maxChars int
	explicit bool        // the cap was set by the App or the tool: advertise it
	hidden   atomic.Bool // taken off the list by SetToolEnabled
	// headerParams: the input schema mirrors arguments into Mcp-Param
	// headers (x-mcp-header), which the go-sdk checks.
	headerParams bool
	// fast is the tool's handler as the fast path runs it: inside the
	// receiving middleware (fastDispatcher.Tool), made once in NewServer.
	fast mcp.MethodHandler

	// args checks the arguments of a call, compiled from input on the
	// first call.
	argsOnce sync.Once
	args     *argcheck.Schema
	argsErr  error
}

func (s *Server) addTool(t *Tool, errs *errList) {
	if why := toolname.Check(t.Name); why != "" {
		errs.addf("tool %q: a tool name is 1 to 128 characters of A-Z a-z 0-9 _ - . (%s)", t.Name, why)
		return
	}
	if _, dup := s.tools[t.Name]; dup {
		errs.addf("tool %q: registered twice; tool names must be unique", t.Name)
		return
	}
	if t.Handler == nil {
		errs.addf("tool %q: no Handler", t.Name)
		return
	}
	in, err := objectSchema(t.InputSchema)
	if err != nil {
		errs.addf("tool %q: input schema: %v", t.Name, err)
		return
	}
	var out json.RawMessage
	if t.OutputSchema != "" {
		if out, err = objectSchema(t.OutputSchema); err != nil {
			errs.addf("tool %q: output schema: %v", t.Name, err)
			return
		}
	}
	if t.UI != "" {
		if _, ok := s.views[t.UI]; !ok {
			errs.addf("tool %q: ui=%s names no view; known views: %s", t.Name, t.UI, s.viewNames())
			return
		}
	}
	tt := &tool{s: s, def: t, input: in, output: out,
		headerParams: bytes.Contains(in, []byte(`"x-mcp-header"`))}
	switch {
	case t.MaxResultChars > 0:
		tt.maxChars, tt.explicit = t.MaxResultChars, true
	case s.app.MaxResultChars > 0:
		tt.maxChars, tt.explicit = s.app.MaxResultChars, true
	case s.opts.maxResultChars > 0:
		tt.maxChars, tt.explicit = s.opts.maxResultChars, true
	default:
		tt.maxChars = defaultMaxResultChars
	}
	s.tools[t.Name] = tt
}

// objectSchema checks that a generated schema is a JSON object with root
// type "object" ("" stands for the empty object schema). Resolving it for
// validation waits for the first call: most tools of a connector are never
// called in one process, and start-up stays fast.
func objectSchema(src string) (json.RawMessage, error) {
	if strings.TrimSpace(src) == "" {
		return json.RawMessage(`{"type":"object"}`), nil
	}
	var root struct {
		Type any `json:"type"`
	}
	if err := json.Unmarshal([]byte(src), &root); err != nil {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	if root.Type != "object" {
		return nil, fmt.Errorf(`root "type" must be "object", got %v`, root.Type)
	}
	return json.RawMessage(src), nil
}

func (s *Server) sortedTools() []*tool {
	ts := make([]*tool, 0, len(s.tools))
	for i := range s.app.Tools {
		if t, ok := s.tools[s.app.Tools[i].Name]; ok && t.def == &s.app.Tools[i] && !t.hidden.Load() {
			ts = append(ts, t)
		}
	}
	return ts
}

// sdkTool is the tool as tools/list shows it.
func (s *Server) sdkTool(t *tool) *mcp.Tool {
	d := t.def
	ro, de, id, ow := d.Annotations.ReadOnly, d.Annotations.Destructive, d.Annotations.Idempotent, d.Annotations.OpenWorld
	mt := &mcp.Tool{
		Name:        d.Name,
		Title:       d.Title,
		Description: d.Description,
		InputSchema: t.input,
		Annotations: &mcp.ToolAnnotations{
			Title:           d.Title,
			ReadOnlyHint:    ro,
			DestructiveHint: &de,
			IdempotentHint:  id,
			OpenWorldHint:   &ow,
		},
	}
	if mt.Description == "" {
		mt.Description = d.Title
	}
	if mt.Description == "" {
		mt.Description = d.Name
	}
	if t.output != nil {
		mt.OutputSchema = t.output
	}
	meta := mcp.Meta{}
	if len(d.Scopes) > 0 {
		meta[authgate.ScopesMetaKey] = d.Scopes
	}
	if t.explicit {
		meta["anthropic/maxResultSizeChars"] = t.maxChars
	}
	switch d.Task {
	case TaskOptional:
		meta[taskctx.MetaKey] = "optional"
	case TaskRequired:
		meta[taskctx.MetaKey] = "required"
	}
	if d.UI != "" {
		s.mu.Lock()
		v := s.views[d.UI]
		s.mu.Unlock()
		viewmeta.Link(meta, v.URI, d.Visibility, s.opts.openAI)
	}
	if len(meta) > 0 {
		mt.Meta = meta
	}
	return mt
}

// handle serves tools/call for one tool. Whatever the user's code does
// (returns an error, panics, overruns its timeout, returns too much text),
// the client gets a result it can show the model, and the server goes on.
//
// What comes before the user's handler is begin's and what follows is
// end's, so that handle's frame, under the handler's, stays small (see
// fastpath's Handler.serve).
func (t *tool) handle(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	ctx, c, args, res, err := t.begin(ctx, req)
	if res != nil || err != nil {
		return res, err
	}
	var v any
	if t.def.Timeout > 0 {
		v, err = t.callWithTimeout(ctx, args)
	} else {
		v, err = t.call(ctx, args)
	}
	return t.end(c, v, err)
}

// begin checks a call (authorization, rate limit, arguments) and returns
// the ctx and arguments to run the handler with; or the call's answer
// when it is not to run.
func (t *tool) begin(ctx context.Context, req *mcp.CallToolRequest) (context.Context, *Call, json.RawMessage, *mcp.CallToolResult, error) {
	if err := t.s.authorize(req, "tool "+t.def.Name, t.def.Scopes); err != nil {
		return nil, nil, nil, nil, err
	}
	if res := t.rateLimited(ctx, req); res != nil {
		t.s.tel.RateLimited(ctx, t.def.Name) // observe.go
		return nil, nil, nil, res, nil
	}
	args, err := t.validate(req.Params.Arguments)
	if err != nil {
		return nil, nil, nil, errorResult(err.Error()), nil
	}
	c := newCall(ctx, t.s, req.Session, req)
	c.Tool = t.def.Name
	if err := t.prepareRounds(c, req.Params); err != nil {
		return nil, nil, nil, nil, err
	}
	return withCall(ctx, c), c, args, nil, nil
}

// end turns what the handler of call c returned into its answer.
func (t *tool) end(c *Call, v any, err error) (*mcp.CallToolResult, error) {
	if c.mrtr {
		if res, ierr := t.inputRequired(c); res != nil || ierr != nil {
			return res, ierr
		}
	}
	if err != nil {
		var we *jsonrpc.Error
		if errors.As(err, &we) {
			return nil, we
		}
		return errorResult(err.Error()), nil
	}
	res, err := t.result(v)
	if err != nil {
		t.s.logger.Error("tool result", "tool", t.def.Name, "err", err)
		return errorResult(fmt.Sprintf("internal error in tool %s: %v", t.def.Name, err)), nil
	}
	truncate(res, t.maxChars)
	return res, nil
}

// call runs the user's handler, turning a panic into an error.
func (t *tool) call(ctx context.Context, args json.RawMessage) (v any, err error) {
	defer func() {
		if p := recover(); p != nil {
			t.s.logger.Error("panic in tool", "tool", t.def.Name, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			v, err = nil, fmt.Errorf("internal error in tool %s: %v", t.def.Name, p)
		}
	}()
	return t.def.Handler(ctx, args)
}

type callResult struct {
	v   any
	err error
}

// callWithTimeout runs the handler under the tool's deadline. A handler that
// ignores its context keeps running, but the client gets its answer on time.
func (t *tool) callWithTimeout(ctx context.Context, args json.RawMessage) (any, error) {
	ctx, cancel := context.WithTimeout(ctx, t.def.Timeout)
	defer cancel()
	done := make(chan callResult, 1)
	go func() {
		v, err := t.call(ctx, args)
		done <- callResult{v, err}
	}()
	timedOut := func() error {
		return fmt.Errorf("tool %s timed out after %s", t.def.Name, t.def.Timeout)
	}
	select {
	case r := <-done:
		if r.err != nil && errors.Is(r.err, context.DeadlineExceeded) && ctx.Err() == context.DeadlineExceeded {
			return nil, timedOut()
		}
		return r.v, r.err
	case <-ctx.Done():
		if ctx.Err() == context.DeadlineExceeded {
			return nil, timedOut()
		}
		return nil, ctx.Err()
	}
}

// validate checks the arguments against the input schema and applies its
// defaults; the error names the field and the rule.
func (t *tool) validate(args json.RawMessage) (json.RawMessage, error) {
	t.argsOnce.Do(func() { t.args, t.argsErr = argcheck.Compile(t.input) })
	if t.argsErr != nil {
		t.s.logger.Error("tool input schema", "tool", t.def.Name, "err", t.argsErr)
		return nil, fmt.Errorf("internal error in tool %s: its input schema is invalid: %v", t.def.Name, t.argsErr)
	}
	return t.args.Check(args)
}
