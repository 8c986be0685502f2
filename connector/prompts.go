package connector

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func (s *Server) addPrompt(p *Prompt, errs *errList) {
	if p.Name == "" || p.Handler == nil {
		errs.addf("prompt %q: a prompt needs a Name and a Handler", p.Name)
		return
	}
	if _, dup := s.prompts[p.Name]; dup {
		errs.addf("prompt %q: registered twice", p.Name)
		return
	}
	s.prompts[p.Name] = p
	s.addSDKPrompt(p) // dynamic.go
}

func (s *Server) getPrompt(ctx context.Context, req *mcp.GetPromptRequest, p *Prompt) (res *mcp.GetPromptResult, err error) {
	if err := s.authorize(req, "prompt "+p.Name, p.Scopes); err != nil {
		return nil, err
	}
	args := req.Params.Arguments
	if args == nil {
		args = map[string]string{}
	}
	var missing []string
	for _, a := range p.Arguments {
		if _, ok := args[a.Name]; a.Required && !ok {
			missing = append(missing, fmt.Sprintf("%q", a.Name))
		}
	}
	if len(missing) > 0 {
		return nil, &jsonrpc.Error{
			Code:    jsonrpc.CodeInvalidParams,
			Message: fmt.Sprintf("prompt %q: missing required argument %s", p.Name, strings.Join(missing, ", ")),
		}
	}
	c := &Call{Server: s, Session: req.Session, Request: req, Prompt: p.Name}
	if err := s.prepareRounds(c, "prompt "+p.Name, req.Params.RequestState, req.Params.InputResponses); err != nil {
		return nil, err
	}
	ctx = withCall(ctx, c)
	defer func() {
		if r := recover(); r != nil {
			s.logger.Error("panic in prompt", "prompt", p.Name, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("internal error in prompt %s: %v", p.Name, r)}
		}
	}()
	v, err := p.Handler(ctx, args)
	if c.mrtr {
		// The handler asked the client something: the answer to prompts/get
		// is the question (MCP 2026-07-28 multi-round trip).
		if pending, state, perr := s.pendingRound(c, "prompt "+p.Name); pending != nil || perr != nil {
			if perr != nil {
				return nil, perr
			}
			return &mcp.GetPromptResult{InputRequests: pending, RequestState: state}, nil
		}
	}
	if err != nil {
		var we *jsonrpc.Error
		if errors.As(err, &we) {
			return nil, we
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("prompt %s: %v", p.Name, err)}
	}
	switch x := v.(type) {
	case *mcp.GetPromptResult:
		if x != nil {
			if x.Description == "" {
				x.Description = p.Description
			}
			if x.Messages == nil {
				x.Messages = []*mcp.PromptMessage{}
			}
			return x, nil
		}
		res = &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{}}
	case string:
		res = &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: x}}}}
	case mcp.Content:
		res = &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: x}}}
	case []*mcp.PromptMessage:
		res = &mcp.GetPromptResult{Messages: x}
	case *mcp.PromptMessage:
		res = &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{x}}
	case nil:
		res = &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{}}
	default:
		if ms, ok := messageSlice(v); ok {
			res = &mcp.GetPromptResult{Messages: ms}
		} else if rv := reflect.ValueOf(v); rv.Kind() == reflect.String {
			res = &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: rv.String()}}}}
		} else {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("prompt %s: unsupported result type %T", p.Name, v)}
		}
	}
	if res.Messages == nil {
		res.Messages = []*mcp.PromptMessage{}
	}
	res.Description = p.Description
	return res, nil
}

// messageSlice accepts a named slice type of *mcp.PromptMessage.
func messageSlice(v any) ([]*mcp.PromptMessage, bool) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice || rv.Type().Elem() != reflect.TypeFor[*mcp.PromptMessage]() {
		return nil, false
	}
	return rv.Convert(reflect.TypeFor[[]*mcp.PromptMessage]()).Interface().([]*mcp.PromptMessage), true
}

type completionKey struct{ kind, ref, arg string }

func (s *Server) addCompletion(c Completion, errs *errList) {
	if c.Handler == nil {
		errs.addf("completion %s %q argument %q: no Handler", c.RefKind, c.Ref, c.Arg)
		return
	}
	switch c.RefKind {
	case "prompt":
		p, ok := s.prompts[c.Ref]
		if !ok {
			errs.addf("completion for prompt %q: no such prompt", c.Ref)
			return
		}
		found := false
		for _, a := range p.Arguments {
			found = found || a.Name == c.Arg
		}
		if !found {
			errs.addf("completion for prompt %q: the prompt has no argument %q", c.Ref, c.Arg)
			return
		}
	case "resource":
		found := false
		for _, t := range s.templates {
			if t.def.URI == c.Ref {
				found = true
				if !slices.Contains(t.tpl.Varnames(), c.Arg) {
					errs.addf("completion for resource template %q: the template has no variable %q (variables: %s)", c.Ref, c.Arg, strings.Join(t.tpl.Varnames(), ", "))
					return
				}
			}
		}
		if !found {
			errs.addf("completion for resource template %q: no such resource template", c.Ref)
			return
		}
	default:
		errs.addf("completion %q: RefKind must be \"prompt\" or \"resource\", got %q", c.Ref, c.RefKind)
		return
	}
	k := completionKey{c.RefKind, c.Ref, c.Arg}
	if _, dup := s.completions[k]; dup {
		errs.addf("completion for %s %q argument %q: registered twice", c.RefKind, c.Ref, c.Arg)
		return
	}
	s.completions[k] = c.Handler
}

// maxCompletionValues is the most values one completion/complete answer
// may hold.
const maxCompletionValues = 100

func (s *Server) complete(ctx context.Context, req *mcp.CompleteRequest) (res *mcp.CompleteResult, err error) {
	p := req.Params
	var k completionKey
	if p.Ref != nil {
		switch p.Ref.Type {
		case "ref/prompt":
			k = completionKey{"prompt", p.Ref.Name, p.Argument.Name}
		case "ref/resource":
			k = completionKey{"resource", p.Ref.URI, p.Argument.Name}
		}
	}
	empty := &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}
	h, ok := s.completions[k]
	if !ok {
		return empty, nil
	}
	if err := s.authorize(req, fmt.Sprintf("completion of %s %s", k.kind, k.ref), s.completionScopes(k)); err != nil {
		return nil, err
	}
	var args map[string]string
	if p.Context != nil {
		args = p.Context.Arguments
	}
	if args == nil {
		args = map[string]string{}
	}
	c := &Call{Server: s, Session: req.Session, Request: req}
	if k.kind == "prompt" {
		c.Prompt = k.ref
	} else {
		c.Resource = k.ref
	}
	ctx = withCall(ctx, c)
	defer func() {
		if r := recover(); r != nil {
			s.logger.Error("panic in completion", "ref", k.ref, "arg", k.arg, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("internal error completing %q: %v", k.arg, r)}
		}
	}()
	values, err := h(ctx, p.Argument.Value, args)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("completing %q: %v", k.arg, err)}
	}
	res = &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values, Total: len(values)}}
	if values == nil {
		res.Completion.Values = []string{}
	}
	if len(values) > maxCompletionValues {
		res.Completion.Values = values[:maxCompletionValues]
		res.Completion.HasMore = true
	}
	return res, nil
}

// completionScopes returns the scopes completing an argument of k's
// prompt or resource template needs: those of the prompt or template
// itself, since its completions tell what it holds.
func (s *Server) completionScopes(k completionKey) []string {
	if k.kind == "prompt" {
		if p, ok := s.prompts[k.ref]; ok {
			return p.Scopes
		}
		return nil
	}
	for _, t := range s.templates {
		if t.def.URI == k.ref {
			return t.def.Scopes
		}
	}
	return nil
}
