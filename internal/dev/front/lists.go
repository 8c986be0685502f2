package front

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/internal/viewmeta"
)

// ViewName returns NAME of a view URI ui://NAME[/HASH], or "".
func ViewName(uri string) string {
	rest, ok := strings.CutPrefix(uri, "ui://")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, "/")
	return name
}

// Changes lists what one Install, SetViews or Relist touched, for the
// terminal.
type Changes struct {
	Added, Changed, Removed []string
}

// Empty reports whether nothing changed.
func (c Changes) Empty() bool { return len(c.Added)+len(c.Changed)+len(c.Removed) == 0 }

// Install makes c (with its snapshot) the connector the front serves, and
// brings the front's lists in line: only items whose JSON changed are
// replaced, so a host sees list_changed only for real changes. It returns
// the previous connector, if any, for the caller to retire.
func (f *Front) Install(c *Conn, snap *Snapshot) (prev *Conn, ch Changes) {
	f.mu.Lock()
	prev, f.cur, f.snap = f.cur, c, snap
	f.mu.Unlock()
	return prev, f.sync()
}

// SetViews replaces the views the front serves and re-links the tools that
// show them. It returns the superseded URIs of the views that changed.
func (f *Front) SetViews(views []ir.View) (changed []string, ch Changes) {
	f.mu.Lock()
	next := map[string]ir.View{}
	for _, v := range views {
		next[v.Name] = v
		if old, ok := f.views[v.Name]; ok && old.URI != v.URI {
			changed = append(changed, old.URI)
			f.old[old.URI] = v.Name
		}
	}
	for name, old := range f.views {
		if _, ok := next[name]; !ok {
			changed = append(changed, old.URI)
		}
	}
	f.views = next
	f.mu.Unlock()
	return changed, f.sync()
}

// Views returns the views the front serves, sorted by name.
func (f *Front) Views() []ir.View {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []ir.View
	for _, n := range sortedKeys(f.views) {
		out = append(out, f.views[n])
	}
	return out
}

// sync brings the front server's lists in line with the current snapshot
// and views.
func (f *Front) sync() Changes {
	f.mu.Lock()
	defer f.mu.Unlock()
	var ch Changes
	snap := f.snap
	if snap == nil {
		snap = &Snapshot{}
	}

	// Tools, with their view links pointing at the front's views.
	want := map[string]*mcp.Tool{}
	for _, t := range snap.Tools {
		want[t.Name] = f.relink(t)
	}
	reconcile(&ch, f.tools, want, f.srv.RemoveTools, func(t *mcp.Tool) error {
		return addTool(f.srv, t, f.callTool)
	})

	// Resources: the connector's, except the views the front serves itself.
	wantRes := map[string]*mcp.Resource{}
	viewURIs := map[string]bool{}
	for _, r := range snap.Resources {
		if _, ok := f.views[ViewName(r.URI)]; ok {
			continue
		}
		wantRes[r.URI] = r
	}
	for _, v := range f.views {
		wantRes[v.URI] = viewResource(v)
		viewURIs[v.URI] = true
	}
	reconcile(&ch, f.res, wantRes, f.srv.RemoveResources, func(r *mcp.Resource) error {
		if viewURIs[r.URI] {
			f.srv.AddResource(r, f.readView)
		} else {
			f.srv.AddResource(r, f.readResource)
		}
		return nil
	})

	// Resource templates.
	wantT := map[string]*mcp.ResourceTemplate{}
	for _, t := range snap.Templates {
		wantT[t.URITemplate] = t
	}
	reconcile(&ch, f.tmpl, wantT, f.srv.RemoveResourceTemplates, func(t *mcp.ResourceTemplate) error {
		f.srv.AddResourceTemplate(t, f.readResource)
		return nil
	})

	// Prompts.
	wantP := map[string]*mcp.Prompt{}
	for _, p := range snap.Prompts {
		wantP[p.Name] = p
	}
	reconcile(&ch, f.proms, wantP, f.srv.RemovePrompts, func(p *mcp.Prompt) error {
		f.srv.AddPrompt(p, f.getPrompt)
		return nil
	})
	return ch
}

// addTool adds t, turning the SDK's panic on a malformed schema into an error.
func addTool(srv *mcp.Server, t *mcp.Tool, h mcp.ToolHandler) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	srv.AddTool(t, h)
	return nil
}

// relink returns a copy of t whose view links (_meta.ui.resourceUri and the
// older flat keys) point at the front's current view URIs.
func (f *Front) relink(t *mcp.Tool) *mcp.Tool {
	var c mcp.Tool
	b, _ := json.Marshal(t)
	_ = json.Unmarshal(b, &c)
	// The schemas as the connector sent them (schemas.go), not the
	// decoded copy.
	c.InputSchema, c.OutputSchema = t.InputSchema, t.OutputSchema
	if c.Meta == nil {
		return &c
	}
	swap := func(s string) string {
		if v, ok := f.views[ViewName(s)]; ok {
			return v.URI
		}
		return s
	}
	viewmeta.Relink(c.Meta, swap)
	return &c
}

func viewResource(v ir.View) *mcp.Resource {
	r := &mcp.Resource{URI: v.URI, Name: v.Name, MIMEType: viewMIME, Title: v.Meta.Title, Description: v.Meta.Description}
	if m := viewMeta(v.Meta); m != nil {
		r.Meta = mcp.Meta{"ui": m}
	}
	return r
}

// viewMeta is the resource's _meta.ui, or nil when there is nothing to say.
func viewMeta(m ir.ViewMeta) map[string]any { return viewmeta.UI(viewmeta.Meta(m)) }

// readView serves a view from the front's latest bundle.
func (f *Front) readView(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	f.mu.Lock()
	name := ViewName(req.Params.URI)
	if n, ok := f.old[req.Params.URI]; ok {
		name = n
	}
	v, ok := f.views[name]
	f.mu.Unlock()
	if !ok {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	c := &mcp.ResourceContents{URI: req.Params.URI, MIMEType: viewMIME, Text: v.HTML}
	if m := viewMeta(v.Meta); m != nil {
		c.Meta = mcp.Meta{"ui": m}
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{c}}, nil
}

// readOldViews answers reads of a superseded view URI with the view's
// current bundle: a host that cached the old URI, or that re-reads it after
// notifications/resources/updated, gets fresh content instead of an error.
func (f *Front) readOldViews(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "resources/read" {
			if p, ok := req.GetParams().(*mcp.ReadResourceParams); ok {
				f.mu.Lock()
				_, old := f.old[p.URI]
				f.mu.Unlock()
				if old {
					return f.readView(ctx, &mcp.ReadResourceRequest{Params: p})
				}
			}
		}
		return next(ctx, method, req)
	}
}

func (f *Front) isView(uri string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, cur := f.views[ViewName(uri)]
	_, old := f.old[uri]
	return (cur && strings.HasPrefix(uri, "ui://")) || old
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// reconcile brings one list of the front server (have: key → the JSON last
// registered) in line with want, touching only what changed so that hosts
// see list_changed for real changes only, and records what it did in ch.
// An item add refuses is reported as removed, with the reason.
func reconcile[T any](ch *Changes, have map[string]string, want map[string]T, remove func(...string), add func(T) error) {
	var gone []string
	for key := range have {
		if _, ok := want[key]; !ok {
			gone = append(gone, key)
		}
	}
	if len(gone) > 0 {
		sort.Strings(gone)
		remove(gone...)
		for _, key := range gone {
			delete(have, key)
		}
		ch.Removed = append(ch.Removed, gone...)
	}
	for _, key := range sortedKeys(want) {
		item := want[key]
		j := jsonOf(item)
		old, had := have[key]
		if had && old == j {
			continue
		}
		if err := add(item); err != nil {
			ch.Removed = append(ch.Removed, key+" ("+err.Error()+")")
			continue
		}
		have[key] = j
		if had {
			ch.Changed = append(ch.Changed, key)
		} else {
			ch.Added = append(ch.Added, key)
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
