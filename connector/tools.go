package connector

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpgen/mcpgen/internal/authgate"
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
	defaults bool        // the input schema declares defaults
	hidden   atomic.Bool // taken off the list by SetToolEnabled
	// headerParams: the input schema mirrors arguments into Mcp-Param
	// headers (x-mcp-header), which the go-sdk checks.
	headerParams bool

	resolveOnce sync.Once
	resolved    *jsonschema.Resolved
	schema      *jsonschema.Schema // the unresolved input schema, walked for defaults and formats
	formats     bool               // the input schema gives a format somewhere
	resolveErr  error
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
	tt := &tool{s: s, def: t, input: in, output: out, defaults: bytes.Contains(in, []byte(`"default"`)),
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
func (t *tool) handle(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if err := t.s.authorize(req, "tool "+t.def.Name, t.def.Scopes); err != nil {
		return nil, err
	}
	if res := t.rateLimited(ctx, req); res != nil {
		t.s.tel.RateLimited(ctx, t.def.Name) // observe.go
		return res, nil
	}
	args, err := t.validate(req.Params.Arguments)
	if err != nil {
		return errorResult(err.Error()), nil
	}
	c := &Call{Server: t.s, Session: req.Session, Request: req, Tool: t.def.Name}
	if err := t.prepareRounds(c, req.Params); err != nil {
		return nil, err
	}
	ctx = withCall(ctx, c)
	var v any
	if t.def.Timeout > 0 {
		v, err = t.callWithTimeout(ctx, args)
	} else {
		v, err = t.call(ctx, args)
	}
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
	t.resolveOnce.Do(func() {
		var sch jsonschema.Schema
		if err := json.Unmarshal(t.input, &sch); err != nil {
			t.resolveErr = err
			return
		}
		t.schema = &sch
		t.formats = hasFormat(t.input)
		t.resolved, t.resolveErr = sch.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	})
	if t.resolveErr != nil {
		t.s.logger.Error("tool input schema", "tool", t.def.Name, "err", t.resolveErr)
		return nil, fmt.Errorf("internal error in tool %s: its input schema is invalid: %v", t.def.Name, t.resolveErr)
	}
	m := map[string]any{}
	if trimmed := bytes.TrimSpace(args); len(trimmed) > 0 && !bytes.Equal(trimmed, []byte("null")) {
		if err := json.Unmarshal(trimmed, &m); err != nil {
			return nil, fmt.Errorf("invalid arguments: must be a JSON object: %v", err)
		}
	}
	var inst any = m
	var sent []string // the members the client sent
	if t.defaults {
		sent = make([]string, 0, len(m))
		for k := range m {
			sent = append(sent, k)
		}
		applyDefaults(t.schema, inst)
	}
	if err := t.resolved.Validate(&inst); err != nil {
		return nil, fmt.Errorf("invalid arguments: %s", explainValidation(err))
	}
	if t.formats {
		if msg := checkFormats(t.schema, t.schema, inst, nil, 0); msg != "" {
			return nil, fmt.Errorf("invalid arguments: %s", msg)
		}
	}
	if t.defaults {
		// Splice the defaults into the client's JSON rather than marshal
		// the decoded map: float64 would round integers beyond 2^53.
		if !hasObject(m) {
			return appendDefaults(bytes.TrimSpace(args), m, sent)
		}
		return withDefaults(bytes.TrimSpace(args), inst)
	}
	if len(m) == 0 {
		return json.RawMessage("{}"), nil
	}
	return args, nil
}

// appendDefaults adds to the JSON object orig the members of defaulted
// (orig with the schema's defaults applied, no nested objects or arrays)
// that the client did not send: the common case, without decoding orig
// again.
func appendDefaults(orig json.RawMessage, defaulted map[string]any, sent []string) (json.RawMessage, error) {
	if len(defaulted) == len(sent) {
		if len(orig) == 0 || bytes.Equal(orig, []byte("null")) {
			return json.RawMessage("{}"), nil
		}
		return orig, nil
	}
	added := make([]string, 0, len(defaulted)-len(sent))
	for k := range defaulted {
		if !slices.Contains(sent, k) {
			added = append(added, k)
		}
	}
	slices.Sort(added)
	out := make([]byte, 0, len(orig)+16*len(added))
	if len(orig) == 0 || bytes.Equal(orig, []byte("null")) {
		out = append(out, '{')
	} else {
		out = append(out, orig[:len(orig)-1]...) // without its closing brace
	}
	for i, k := range added {
		if i > 0 || len(sent) > 0 {
			out = append(out, ',')
		}
		kb, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		vb, err := json.Marshal(defaulted[k])
		if err != nil {
			return nil, err
		}
		out = append(append(append(out, kb...), ':'), vb...)
	}
	return append(out, '}'), nil
}

// withDefaults returns the JSON object orig with the members that
// defaulted (the same object after the schema's defaults were applied)
// has and orig lacks, at any depth of nested objects.
func withDefaults(orig json.RawMessage, defaulted any) (json.RawMessage, error) {
	if da, ok := defaulted.([]any); ok {
		return withDefaultsArray(orig, da)
	}
	dm, ok := defaulted.(map[string]any)
	if !ok {
		return orig, nil
	}
	var om map[string]json.RawMessage
	if len(orig) > 0 && !bytes.Equal(orig, []byte("null")) {
		if err := json.Unmarshal(orig, &om); err != nil {
			return orig, nil // not an object: validation has already said so
		}
	}
	if len(om) == len(dm) && !hasObject(dm) {
		return orig, nil // nothing was added
	}
	out := make(map[string]json.RawMessage, len(dm))
	for k, v := range dm {
		if raw, ok := om[k]; ok {
			merged, err := withDefaults(raw, v)
			if err != nil {
				return nil, err
			}
			out[k] = merged
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		out[k] = b
	}
	return json.Marshal(out)
}

// withDefaultsArray merges element by element, for defaults inside the
// objects of an array.
func withDefaultsArray(orig json.RawMessage, da []any) (json.RawMessage, error) {
	var oa []json.RawMessage
	if err := json.Unmarshal(orig, &oa); err != nil || len(oa) != len(da) {
		return orig, nil
	}
	changed := false
	for i := range oa {
		merged, err := withDefaults(oa[i], da[i])
		if err != nil {
			return nil, err
		}
		if !bytes.Equal(merged, oa[i]) {
			oa[i], changed = merged, true
		}
	}
	if !changed {
		return orig, nil
	}
	return json.Marshal(oa)
}

func hasObject(m map[string]any) bool {
	for _, v := range m {
		switch v.(type) {
		case map[string]any, []any:
			return true
		}
	}
	return false
}
