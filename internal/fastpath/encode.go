package fastpath

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/internal/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// listEra says which tools/list a request gets: the sessions' (up to
// 2025-06-18, or without a session), 2026-07-28's, or that of a session at
// 2025-11-25, whose tools show their execution.taskSupport.
type listEra int

const (
	listSessions listEra = iota
	listStateless
	listTasksV1
)

func (f *Handler) listEraOf(stateless bool, fs *fastSession) listEra {
	switch {
	case stateless:
		return listStateless
	case fs != nil:
		if _, ok := f.d.(TaskTools); ok {
			if fs.version == wire.TasksV1Version {
				return listTasksV1
			}
		}
	}
	return listSessions
}

// listResponse is the answer to tools/list: every tool on one page, as
// the go-sdk lists them (by name), encoded once per era until the tools
// change (ToolsChanged).
func (f *Handler) listResponse(id json.RawMessage, era listEra) []byte {
	stateless := era == listStateless
	b := f.lists[era].Load()
	if b == nil {
		res := &mcp.ListToolsResult{Tools: []*mcp.Tool{}, Cacheable: mcp.Cacheable{CacheScope: "public"}}
		res.Tools = append(res.Tools, f.d.Tools()...)
		slices.SortFunc(res.Tools, func(a, b *mcp.Tool) int { return strings.Compare(a.Name, b.Name) })
		if stateless {
			res.ResultType = "complete"
			res.Meta = mcp.Meta{mcp.MetaKeyServerInfo: f.cfg.Impl}
		}
		var v any = res
		if tt, ok := f.d.(TaskTools); ok && era == listTasksV1 {
			v = wire.ListToolsV1(res, tt.TaskSupport)
		}
		enc, err := json.Marshal(v)
		if err != nil {
			return wire.ErrorResponse(id, err)
		}
		b = &enc
		f.lists[era].Store(b)
	}
	out := make([]byte, 0, len(*b)+len(id)+32)
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, id...)
	out = append(out, `,"result":`...)
	out = append(out, *b...)
	return append(out, '}')
}

// ToolsChanged drops the encoded tool lists: what Dispatcher.Tools
// returns has changed.
func (f *Handler) ToolsChanged() {
	for i := range f.lists {
		f.lists[i].Store(nil)
	}
}

// otherResponse encodes the result of a method other than tools/call as
// the go-sdk does: cacheable results public by default, and under
// 2026-07-28 the server's identity and the result type.
func (f *Handler) otherResponse(id json.RawMessage, res mcp.Result, stateless bool) []byte {
	if rr, ok := res.(*mcp.ReadResourceResult); ok && rr != nil && rr.CacheScope == "" {
		cp := *rr
		cp.CacheScope = "public"
		res = &cp
	}
	if stateless && res != nil {
		m := make(mcp.Meta, len(res.GetMeta())+1)
		for k, v := range res.GetMeta() {
			m[k] = v
		}
		if _, ok := m[mcp.MetaKeyServerInfo]; !ok {
			m[mcp.MetaKeyServerInfo] = f.cfg.Impl
		}
		res.SetMeta(m)
	}
	rb, err := json.Marshal(res)
	if err != nil {
		return wire.ErrorResponse(id, err)
	}
	if stateless && len(rb) > 2 && !bytes.Contains(rb, []byte(`"resultType":`)) {
		rb = append(rb[:len(rb)-1], `,"resultType":"complete"}`...)
	}
	out := make([]byte, 0, len(rb)+len(id)+32)
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, id...)
	out = append(out, `,"result":`...)
	out = append(out, rb...)
	return append(out, '}')
}

// resultResponse encodes the JSON-RPC response holding res. The common
// shape (text blocks, structured content already encoded by the runtime)
// is written directly; anything else goes through the go-sdk's encoding.
func (f *Handler) resultResponse(id json.RawMessage, res *mcp.CallToolResult, stateless bool) []byte {
	if res == nil {
		res = &mcp.CallToolResult{}
	}
	if res.Content == nil && res.InputRequests == nil {
		res.Content = []mcp.Content{}
	}
	b := make([]byte, 0, 256+2*textSize(res))
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"result":`...)
	if enc, ok := f.encodeSimple(b, res, stateless); ok {
		return append(enc, '}')
	}
	if stateless {
		cp := *res
		cp.Meta = make(mcp.Meta, len(res.Meta)+1)
		for k, v := range res.Meta {
			cp.Meta[k] = v
		}
		if _, ok := cp.Meta[mcp.MetaKeyServerInfo]; !ok {
			cp.Meta[mcp.MetaKeyServerInfo] = f.cfg.Impl
		}
		res = &cp
	}
	rb, err := json.Marshal(res)
	if err != nil {
		return wire.ErrorResponse(id, err)
	}
	if stateless && len(rb) > 1 {
		kind := `"complete"`
		if res.InputRequests != nil {
			kind = `"input_required"`
		}
		if len(rb) > 2 {
			rb = append(rb[:len(rb)-1], `,"resultType":`...)
		} else {
			rb = append(rb[:len(rb)-1], `"resultType":`...)
		}
		rb = append(append(rb, kind...), '}')
	}
	b = append(b, rb...)
	return append(b, '}')
}

// encodeSimple appends res when it has the shape the runtime builds for
// struct and text results: text blocks without annotations or _meta, and
// structured content already encoded. It reports false for anything else.
func (f *Handler) encodeSimple(b []byte, res *mcp.CallToolResult, stateless bool) ([]byte, bool) {
	if res.Meta != nil || res.InputRequests != nil || res.RequestState != "" {
		return b, false
	}
	var sc json.RawMessage
	switch x := res.StructuredContent.(type) {
	case nil:
	case json.RawMessage:
		if len(x) == 0 {
			return b, false
		}
		sc = x
	default:
		return b, false
	}
	for _, c := range res.Content {
		tc, ok := c.(*mcp.TextContent)
		if !ok || tc == nil || tc.Meta != nil || tc.Annotations != nil {
			return b, false
		}
	}
	b = append(b, '{')
	if stateless {
		b = append(b, `"_meta":{"`+mcp.MetaKeyServerInfo+`":`...)
		b = append(b, f.implJSON...)
		b = append(b, `},`...)
	}
	b = append(b, `"content":[`...)
	for i, c := range res.Content {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"type":"text","text":`...)
		b = wire.AppendString(b, c.(*mcp.TextContent).Text)
		b = append(b, '}')
	}
	b = append(b, ']')
	if sc != nil {
		b = append(b, `,"structuredContent":`...)
		b = append(b, sc...)
	}
	if res.IsError {
		b = append(b, `,"isError":true`...)
	}
	if stateless {
		b = append(b, `,"resultType":"complete"`...)
	}
	return append(b, '}'), true
}

func textSize(res *mcp.CallToolResult) int {
	n := 0
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok && tc != nil {
			n += len(tc.Text)
		}
	}
	return n
}
