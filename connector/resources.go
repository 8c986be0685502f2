package connector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/internal/viewmeta"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"
)

// ErrNotFound reports that a resource does not exist. A resource handler
// returns it (or an error wrapping it, or fs.ErrNotExist) to answer
// resources/read with the MCP "resource not found" error (-32002).
var ErrNotFound = errors.New("not found")

// ViewMIMEType is the MIME type of MCP Apps view resources.
const ViewMIMEType = "text/html;profile=mcp-app"

type resourceTemplate struct {
	def *Resource
	tpl *uritemplate.Template
}

func (s *Server) addResource(r *Resource, errs *errList) {
	if r.Handler == nil {
		errs.addf("resource %q: no Handler", r.URI)
		return
	}
	if r.URI == "" {
		errs.addf("resource %q: no URI", r.Name)
		return
	}
	if r.Template {
		tpl, err := uritemplate.New(r.URI)
		if err != nil {
			errs.addf("resource %q: invalid URI template: %v", r.URI, err)
			return
		}
		for _, t := range s.templates {
			if t.def.URI == r.URI {
				errs.addf("resource template %q: registered twice", r.URI)
				return
			}
		}
		rt := &resourceTemplate{def: r, tpl: tpl}
		s.templates = append(s.templates, rt)
		s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{
			URITemplate: r.URI,
			Name:        orDefault(r.Name, r.URI),
			Title:       r.Title,
			Description: r.Description,
			MIMEType:    r.MIMEType,
			Meta:        scopesMeta(r.Scopes),
		}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			uri := req.Params.URI
			vars := map[string]string{}
			if m := tpl.Match(uri); m != nil {
				for _, name := range tpl.Varnames() {
					if v := m.Get(name); v.Valid() {
						vars[name] = v.String()
					}
				}
			}
			return s.readResource(ctx, req, r, vars)
		})
		return
	}
	if _, dup := s.resources[r.URI]; dup {
		errs.addf("resource %q: registered twice", r.URI)
		return
	}
	s.resources[r.URI] = r
	s.mcp.AddResource(&mcp.Resource{
		URI:         r.URI,
		Name:        orDefault(r.Name, r.URI),
		Title:       r.Title,
		Description: r.Description,
		MIMEType:    r.MIMEType,
		Meta:        scopesMeta(r.Scopes),
	}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return s.readResource(ctx, req, r, nil)
	})
}

func (s *Server) readResource(ctx context.Context, req *mcp.ReadResourceRequest, r *Resource, vars map[string]string) (res *mcp.ReadResourceResult, err error) {
	uri := req.Params.URI
	if err := s.authorize(req, "resource "+r.URI, r.Scopes); err != nil {
		return nil, err
	}
	c := newCall(ctx, s, req.Session, req)
	c.Resource = r.URI
	ctx = withCall(ctx, c)
	defer func() {
		if p := recover(); p != nil {
			s.logger.Error("panic in resource", "uri", uri, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("internal error reading %s: %v", uri, p)}
		}
	}()
	v, err := r.Handler(ctx, uri, vars)
	if err != nil {
		var we *jsonrpc.Error
		switch {
		case errors.As(err, &we):
			return nil, we
		case errors.Is(err, ErrNotFound), errors.Is(err, fs.ErrNotExist):
			return nil, mcp.ResourceNotFoundError(uri)
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("reading %s: %v", uri, err)}
	}
	mime := r.MIMEType
	switch x := v.(type) {
	case *mcp.ReadResourceResult:
		if x == nil {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		return x, nil
	case string:
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: orDefault(mime, "text/plain"), Text: x}}}, nil
	case []byte:
		if x == nil {
			x = []byte{}
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: orDefault(mime, "application/octet-stream"), Blob: x}}}, nil
	case *mcp.ResourceContents:
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{x}}, nil
	case []*mcp.ResourceContents:
		return &mcp.ReadResourceResult{Contents: x}, nil
	case nil:
		return nil, mcp.ResourceNotFoundError(uri)
	}
	switch rv := reflect.ValueOf(v); {
	case rv.Kind() == reflect.String: // a named string type
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: orDefault(mime, "text/plain"), Text: rv.String()}}}, nil
	case rv.Kind() == reflect.Slice && rv.Type().Elem().Kind() == reflect.Uint8: // a named []byte type
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: orDefault(mime, "application/octet-stream"), Blob: append([]byte{}, rv.Bytes()...)}}}, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("reading %s: %v", uri, err)}
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: orDefault(mime, "application/json"), Text: string(b)}}}, nil
}

// subscribe accepts subscriptions to the fixed resources and the views;
// the SDK keeps the subscriber lists. A subscription to a resource that
// declares scopes needs them, as reading it does: of a URI templates
// match, every matching template's (fail closed).
func (s *Server) subscribe(_ context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	if _, ok := s.resources[uri]; ok || s.templateFor(uri) != nil {
		return s.authorize(req, "a subscription to resource "+uri, s.subscriptionScopes(uri))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range s.views {
		if v.URI == uri {
			return nil
		}
	}
	return mcp.ResourceNotFoundError(uri)
}

// subscriptionScopes returns the scopes a subscription to uri needs: the
// resource's, or those of every template matching it (fail closed).
func (s *Server) subscriptionScopes(uri string) []string {
	if r, ok := s.resources[uri]; ok {
		return r.Scopes
	}
	var need []string
	for _, t := range s.templates {
		if t.tpl.Match(uri) != nil {
			need = append(need, t.def.Scopes...)
		}
	}
	slices.Sort(need)
	return slices.Compact(need)
}

// addViewResource serves one view; s.views already holds it.
func (s *Server) addViewResource(v View) {
	meta := viewMeta(v.Meta)
	s.mcp.AddResource(&mcp.Resource{
		URI:         v.URI,
		Name:        v.Name,
		Title:       v.Meta.Title,
		Description: v.Meta.Description,
		MIMEType:    ViewMIMEType,
		Meta:        meta,
	}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
			URI: v.URI, MIMEType: ViewMIMEType, Text: v.HTML, Meta: meta,
		}}}, nil
	})
}

// viewMeta is the resource _meta of a view: {"ui": ...} (package
// viewmeta), nil when the view declares nothing.
func viewMeta(m ViewMeta) mcp.Meta {
	if ui := viewmeta.UI(viewmeta.Meta(m)); ui != nil {
		return mcp.Meta{"ui": ui}
	}
	return nil
}

// SetViews replaces the served views (the dev loop calls it after a
// rebuild): view resources whose URI went away are removed, new ones added,
// and tools linked to a view are re-announced with the new URI. The SDK
// sends resources/list_changed and tools/list_changed. A tool whose view
// is missing from views keeps its last URI.
func (s *Server) SetViews(views []View) {
	s.mu.Lock()
	old := s.views
	s.views = make(map[string]View, len(views))
	for _, v := range views {
		if v.Name != "" && v.URI != "" {
			s.views[v.Name] = v
		}
	}
	for name, v := range old {
		if _, ok := s.views[name]; !ok {
			// Keep serving a view that tools still name.
			for _, t := range s.tools {
				if t.def.UI == name {
					s.views[name] = v
					break
				}
			}
		}
	}
	next := maps.Clone(s.views)
	s.mu.Unlock()

	keep := map[string]bool{}
	for _, v := range next {
		keep[v.URI] = true
	}
	var gone []string
	for _, v := range old {
		if !keep[v.URI] {
			gone = append(gone, v.URI)
		}
	}
	if len(gone) > 0 {
		s.mcp.RemoveResources(gone...)
	}
	for _, name := range slices.Sorted(maps.Keys(next)) {
		v := next[name]
		if ov, ok := old[name]; ok && ov.URI == v.URI && ov.HTML == v.HTML && equalViewMeta(ov.Meta, v.Meta) {
			continue
		}
		s.addViewResource(v)
	}
	for _, t := range s.sortedTools() {
		if t.def.UI == "" {
			continue
		}
		if ov, ok := old[t.def.UI]; ok && ov.URI == next[t.def.UI].URI {
			continue
		}
		s.mcp.AddTool(s.sdkTool(t), t.handle)
	}
	s.fastPath.ToolsChanged()
}

func equalViewMeta(a, b ViewMeta) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

func (s *Server) viewNames() string {
	names := slices.Sorted(maps.Keys(s.views))
	if len(names) == 0 {
		return "(none: add ui/NAME.tsx)"
	}
	return strings.Join(names, ", ")
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
