package front

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func (f *Front) callTool(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	c, done, err := f.acquire()
	if err != nil {
		return errorResult(err), nil
	}
	defer done()
	l, err := f.session(ctx, c, req.Session)
	if err != nil {
		return errorResult(err), nil
	}
	defer l.track(ctx)()
	ctx = forwarding(ctx, req.Extra)
	res, err := l.cs.CallTool(ctx, &mcp.CallToolParams{Meta: childMeta(req.Params.Meta), Name: req.Params.Name, Arguments: req.Params.Arguments})
	if err != nil {
		return f.callFailed(ctx, c, err)
	}
	return res, nil
}

// childMeta returns a host request's _meta as it goes to the connector: a
// 2026-07-28 request carries its protocol version, client and capabilities
// there, which belong to the host's request, not to the front's session with
// the connector (which would refuse a session request claiming 2026-07-28).
func childMeta(m mcp.Meta) mcp.Meta {
	if m == nil {
		return nil
	}
	out := mcp.Meta{}
	for k, v := range m {
		switch k {
		case mcp.MetaKeyProtocolVersion, mcp.MetaKeyClientInfo, mcp.MetaKeyClientCapabilities, mcp.MetaKeyLogLevel:
			continue
		}
		out[k] = v
	}
	return out
}

func errorResult(err error) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "mcpgen dev: " + err.Error()}}}
}

func (f *Front) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	c, done, err := f.acquire()
	if err != nil {
		return nil, err
	}
	defer done()
	l, err := f.session(ctx, c, req.Session)
	if err != nil {
		return nil, err
	}
	defer l.track(ctx)()
	ctx = forwarding(ctx, req.Extra)
	res, err := l.cs.ReadResource(ctx, &mcp.ReadResourceParams{Meta: childMeta(req.Params.Meta), URI: req.Params.URI})
	if err != nil {
		if e := f.failure(ctx, c, err, "read the resource"); e != nil {
			return nil, e
		}
	}
	return res, err
}

func (f *Front) getPrompt(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	c, done, err := f.acquire()
	if err != nil {
		return nil, err
	}
	defer done()
	l, err := f.session(ctx, c, req.Session)
	if err != nil {
		return nil, err
	}
	defer l.track(ctx)()
	ctx = forwarding(ctx, req.Extra)
	res, err := l.cs.GetPrompt(ctx, &mcp.GetPromptParams{Meta: childMeta(req.Params.Meta), Name: req.Params.Name, Arguments: req.Params.Arguments})
	if err != nil {
		if e := f.failure(ctx, c, err, "get the prompt"); e != nil {
			return nil, e
		}
	}
	return res, err
}

func (f *Front) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	empty := &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}
	c, done, err := f.acquire()
	if err != nil {
		return empty, nil
	}
	defer done()
	if c.caps == nil || c.caps.Completions == nil {
		return empty, nil
	}
	p := *req.Params
	p.Meta = childMeta(p.Meta)
	return c.control.Complete(ctx, &p)
}

func (f *Front) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	if f.isView(uri) {
		return nil
	}
	f.mu.Lock()
	f.subs[uri]++
	first := f.subs[uri] == 1
	c := f.cur
	f.mu.Unlock()
	if first && c != nil {
		if c.caps == nil || c.caps.Resources == nil || !c.caps.Resources.Subscribe {
			f.mu.Lock()
			f.subs[uri]--
			if f.subs[uri] <= 0 {
				delete(f.subs, uri)
			}
			f.mu.Unlock()
			return fmt.Errorf("the connector does not support resource subscriptions")
		}
		return c.control.Subscribe(ctx, &mcp.SubscribeParams{URI: uri})
	}
	return nil
}

func (f *Front) unsubscribe(ctx context.Context, req *mcp.UnsubscribeRequest) error {
	uri := req.Params.URI
	if f.isView(uri) {
		return nil
	}
	f.mu.Lock()
	n := f.subs[uri] - 1
	if n <= 0 {
		delete(f.subs, uri)
	} else {
		f.subs[uri] = n
	}
	c := f.cur
	f.mu.Unlock()
	if n == 0 && c != nil {
		return c.control.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri})
	}
	return nil
}
