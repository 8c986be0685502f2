package dev

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpgen/mcpgen/generator/ir"
)

// childProtocol is the protocol version the front speaks to the connector:
// the session-based revision, so server-to-client requests (sampling,
// elicitation) and notifications have a session to travel on.
const childProtocol = "2025-11-25"

// front is the long-lived server a host connects to. It mirrors the tools,
// resources, templates and prompts of the current connector process, serves
// the views itself (so a view edit never restarts the connector), and
// forwards calls and the server-to-client traffic between each host session
// and a session of its own with the connector.
type front struct {
	srv    *mcp.Server
	events chan<- event // to the dev loop: the connector's lists changed
	key    string       // this run's secret for the connector (auth.go)

	started *startGate  // open once the first build is done
	closing atomic.Bool // mcpgen dev is stopping

	mu    sync.Mutex
	cur   *conn              // current connector; nil until a build succeeds
	snap  *snapshot          // what cur lists
	views map[string]ir.View // by name: the views the front serves
	old   map[string]string  // superseded view URI → view name, still readable
	subs  map[string]int     // connector URIs hosts subscribe to → count
	tools map[string]string  // served tool name → its JSON
	res   map[string]string  // served resource URI → JSON
	tmpl  map[string]string  // served template → JSON
	proms map[string]string  // served prompt name → JSON
}

// snapshot is everything one connector process lists.
type snapshot struct {
	tools     []*mcp.Tool
	resources []*mcp.Resource
	templates []*mcp.ResourceTemplate
	prompts   []*mcp.Prompt
}

// conn is the front's link to one connector process: a control session
// (lists, subscriptions, completions) and one session per host session.
type conn struct {
	child    *child
	client   *http.Client // nil: the SDK's default
	schemas  *schemaBytes // the listed tools' schemas as sent (order.go)
	control  *mcp.ClientSession
	caps     *mcp.ServerCapabilities
	inflight sync.WaitGroup

	mu     sync.Mutex
	closed bool
	hosts  map[*mcp.ServerSession]*hostLink
}

// hostLink is the connector session that belongs to one host session.
type hostLink struct {
	ready chan struct{}
	cs    *mcp.ClientSession
	err   error

	mu    sync.Mutex
	calls []context.Context // the host's requests being forwarded, oldest first
}

// track records ctx, the context of a host request being forwarded, until
// the returned func is called.
func (l *hostLink) track(ctx context.Context) func() {
	l.mu.Lock()
	l.calls = append(l.calls, ctx)
	l.mu.Unlock()
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		for i, c := range l.calls {
			if c == ctx {
				l.calls = slices.Delete(l.calls, i, i+1)
				break
			}
		}
	}
}

// relate returns a context for sending a message to the host on behalf of
// the connector. Over Streamable HTTP, a server-to-client message belongs on
// the stream of the host request that caused it, and the SDK finds that
// stream through the request's context; so the message is sent in the
// context of the newest host request still being forwarded (with ctx's
// cancellation), or in ctx when there is none.
func (l *hostLink) relate(ctx context.Context) (context.Context, context.CancelFunc) {
	l.mu.Lock()
	var call context.Context
	if n := len(l.calls); n > 0 {
		call = l.calls[n-1]
	}
	l.mu.Unlock()
	if call == nil {
		return ctx, func() {}
	}
	rctx, cancel := context.WithCancel(call)
	stop := context.AfterFunc(ctx, cancel)
	return rctx, func() { stop(); cancel() }
}

// errNotRunning is what a host sees when no build has succeeded yet.
var errNotRunning = errors.New("the connector is not running: its last build failed; fix the errors mcpgen dev printed and save")

func newFront(name, version string, events chan<- event) *front {
	f := &front{
		events: events,
		views:  map[string]ir.View{},
		old:    map[string]string{},
		subs:   map[string]int{},
		tools:  map[string]string{},
		res:    map[string]string{},
		tmpl:   map[string]string{},
		proms:  map[string]string{},
	}
	f.srv = mcp.NewServer(&mcp.Implementation{Name: name, Version: version}, &mcp.ServerOptions{
		// Advertise every list up front: a rebuild may add the first tool,
		// resource or prompt, and the host must already know to listen.
		Capabilities: &mcp.ServerCapabilities{
			Tools:       &mcp.ToolCapabilities{ListChanged: true},
			Resources:   &mcp.ResourceCapabilities{ListChanged: true, Subscribe: true},
			Prompts:     &mcp.PromptCapabilities{ListChanged: true},
			Logging:     &mcp.LoggingCapabilities{},
			Completions: &mcp.CompletionCapabilities{},
		},
		CompletionHandler:  f.complete,
		SubscribeHandler:   f.subscribe,
		UnsubscribeHandler: f.unsubscribe,
	})
	f.started = newStartGate()
	f.srv.AddReceivingMiddleware(f.readOldViews, f.awaitFirstBuild)
	return f
}

// acquire returns the current connector, counted as busy until done is called.
func (f *front) acquire() (*conn, func(), error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.cur
	if c == nil {
		return nil, nil, errNotRunning
	}
	c.inflight.Add(1)
	return c, c.inflight.Done, nil
}

// session returns the connector session paired with host, connecting it on
// first use. A nil host gets the control session.
func (f *front) session(ctx context.Context, c *conn, host *mcp.ServerSession) (*hostLink, error) {
	if host == nil {
		l := &hostLink{cs: c.control, ready: make(chan struct{})}
		close(l.ready)
		return l, nil
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, errors.New("the connector is restarting; try again")
	}
	l := c.hosts[host]
	if l == nil {
		l = &hostLink{ready: make(chan struct{})}
		c.hosts[host] = l
		c.mu.Unlock()
		l.cs, l.err = connectForHost(ctx, c, host, l)
		close(l.ready)
		if l.err == nil {
			go func() {
				// The host session ended: end its connector session too.
				_ = host.Wait()
				c.mu.Lock()
				if c.hosts[host] == l {
					delete(c.hosts, host)
				}
				c.mu.Unlock()
				l.cs.Close()
			}()
		} else {
			c.mu.Lock()
			delete(c.hosts, host)
			c.mu.Unlock()
		}
	} else {
		c.mu.Unlock()
		select {
		case <-l.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if l.err != nil {
		return nil, l.err
	}
	return l, nil
}

// connectForHost opens a connector session on behalf of one host session:
// it claims the host's capabilities (so the connector asks for sampling or
// elicitation only when the host can answer) and relays what the connector
// sends back to that host.
func connectForHost(ctx context.Context, c *conn, host *mcp.ServerSession, l *hostLink) (*mcp.ClientSession, error) {
	var hc mcp.ClientCapabilities
	if ip := host.InitializeParams(); ip != nil && ip.Capabilities != nil {
		hc = *ip.Capabilities
	}
	opts := &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{
			Extensions:  hc.Extensions,
			Sampling:    hc.Sampling,
			Elicitation: hc.Elicitation,
		},
		ProgressNotificationHandler: func(ctx context.Context, r *mcp.ProgressNotificationClientRequest) {
			ctx, done := l.relate(ctx)
			defer done()
			_ = host.NotifyProgress(ctx, r.Params)
		},
		LoggingMessageHandler: func(ctx context.Context, r *mcp.LoggingMessageRequest) {
			ctx, done := l.relate(ctx)
			defer done()
			_ = host.Log(ctx, r.Params)
		},
		ElicitationCompleteHandler: func(ctx context.Context, r *mcp.ElicitationCompleteNotificationRequest) {
			_ = host.NotifyElicitationComplete(ctx, r.Params)
		},
	}
	if hc.Sampling != nil {
		opts.CreateMessageHandler = func(ctx context.Context, r *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			ctx, done := l.relate(ctx)
			defer done()
			return host.CreateMessage(ctx, r.Params)
		}
	}
	if hc.Elicitation != nil {
		opts.ElicitationHandler = func(ctx context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			ctx, done := l.relate(ctx)
			defer done()
			return host.Elicit(ctx, r.Params)
		}
	}
	name := "mcpgen-dev"
	if ip := host.InitializeParams(); ip != nil && ip.ClientInfo != nil {
		name = ip.ClientInfo.Name
	}
	cl := mcp.NewClient(&mcp.Implementation{Name: name, Version: "dev"}, opts)
	// The session outlives the host request that opened it, and the SDK
	// keeps the connect context's values for the session's lifetime: a
	// clean context keeps that request's identity out of later messages.
	// Its set-up is the front's own (devlink.OwnHeader): left out of
	// the connector's request log.
	cctx, cancel := context.WithTimeout(own(context.Background()), 15*time.Second)
	defer cancel()
	defer context.AfterFunc(ctx, cancel)()
	cs, err := cl.Connect(cctx, &mcp.StreamableClientTransport{Endpoint: c.child.url(), MaxRetries: -1, HTTPClient: c.client},
		&mcp.ClientSessionOptions{ProtocolVersion: childProtocol})
	if err != nil {
		return nil, fmt.Errorf("connecting to the connector: %w", err)
	}
	// The connector sends every level; the front's session filters by the
	// level this host asked for.
	if c.caps != nil && c.caps.Logging != nil {
		_ = cs.SetLoggingLevel(cctx, &mcp.SetLoggingLevelParams{Level: "debug"})
	}
	return cs, nil
}

// connect opens the control session with a freshly started connector and
// lists what it serves.
func (f *front) connect(ctx context.Context, ch *child) (*conn, *snapshot, error) {
	ctx = own(ctx) // the control session's requests are no host's
	notify := func(e event) {
		select {
		case f.events <- e:
		default:
		}
	}
	c := &conn{child: ch, hosts: map[*mcp.ServerSession]*hostLink{}, schemas: &schemaBytes{}}
	c.client = f.client(c.schemas)
	cl := mcp.NewClient(&mcp.Implementation{Name: "mcpgen-dev", Version: "dev"}, &mcp.ClientOptions{
		Capabilities:               &mcp.ClientCapabilities{},
		ToolListChangedHandler:     func(context.Context, *mcp.ToolListChangedRequest) { notify(event{relist: ch}) },
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { notify(event{relist: ch}) },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { notify(event{relist: ch}) },
		ResourceUpdatedHandler: func(ctx context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
			_ = f.srv.ResourceUpdated(ctx, r.Params)
		},
	})
	cs, err := cl.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ch.url(), MaxRetries: -1, HTTPClient: c.client},
		&mcp.ClientSessionOptions{ProtocolVersion: childProtocol})
	if err != nil {
		return nil, nil, fmt.Errorf("connecting to the connector: %w", err)
	}
	c.control = cs
	if ir := cs.InitializeResult(); ir != nil {
		c.caps = ir.Capabilities
	}
	snap, err := list(ctx, c)
	if err != nil {
		cs.Close()
		return nil, nil, err
	}
	f.mu.Lock()
	uris := slices.Collect(maps.Keys(f.subs))
	f.mu.Unlock()
	for _, u := range uris {
		_ = cs.Subscribe(ctx, &mcp.SubscribeParams{URI: u})
	}
	return c, snap, nil
}

// list reads every list the connector serves.
func list(ctx context.Context, c *conn) (*snapshot, error) {
	s := &snapshot{}
	caps := c.caps
	if caps == nil {
		caps = &mcp.ServerCapabilities{}
	}
	cs := c.control
	if caps.Tools != nil {
		for t, err := range cs.Tools(ctx, nil) {
			if err != nil {
				return nil, fmt.Errorf("tools/list: %w", err)
			}
			c.schemas.restore(t)
			s.tools = append(s.tools, t)
		}
	}
	if caps.Resources != nil {
		for r, err := range cs.Resources(ctx, nil) {
			if err != nil {
				return nil, fmt.Errorf("resources/list: %w", err)
			}
			s.resources = append(s.resources, r)
		}
		for t, err := range cs.ResourceTemplates(ctx, nil) {
			if err != nil {
				return nil, fmt.Errorf("resources/templates/list: %w", err)
			}
			s.templates = append(s.templates, t)
		}
	}
	if caps.Prompts != nil {
		for p, err := range cs.Prompts(ctx, nil) {
			if err != nil {
				return nil, fmt.Errorf("prompts/list: %w", err)
			}
			s.prompts = append(s.prompts, p)
		}
	}
	return s, nil
}

// retire waits for the calls a connector is serving (up to grace), then
// closes its sessions and stops it.
func (c *conn) retire(grace time.Duration) {
	done := make(chan struct{})
	go func() { c.inflight.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(grace):
	}
	c.mu.Lock()
	c.closed = true
	links := slices.Collect(maps.Values(c.hosts))
	c.hosts = nil
	c.mu.Unlock()
	for _, l := range links {
		<-l.ready
		if l.cs != nil {
			l.cs.Close()
		}
	}
	if c.control != nil {
		c.control.Close()
	}
	c.child.stop(2 * time.Second)
}

// viewName returns NAME of a view URI ui://NAME[/HASH], or "".
func viewName(uri string) string {
	rest, ok := strings.CutPrefix(uri, "ui://")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, "/")
	return name
}

// changes lists what one apply touched, for the terminal.
type changes struct {
	added, changed, removed []string
}

func (c *changes) empty() bool { return len(c.added)+len(c.changed)+len(c.removed) == 0 }

// install makes c (with its snapshot) the connector the front serves, and
// brings the front's lists in line: only items whose JSON changed are
// replaced, so a host sees list_changed only for real changes. It returns
// the previous connector, if any, for the caller to retire.
func (f *front) install(c *conn, snap *snapshot) (prev *conn, ch changes) {
	f.mu.Lock()
	prev, f.cur, f.snap = f.cur, c, snap
	f.mu.Unlock()
	return prev, f.sync()
}

// setViews replaces the views the front serves and re-links the tools that
// show them. It returns the superseded URIs of the views that changed.
func (f *front) setViews(views []ir.View) (changed []string, ch changes) {
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

// currentViews returns the views the front serves, sorted by name.
func (f *front) currentViews() []ir.View {
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
func (f *front) sync() changes {
	f.mu.Lock()
	defer f.mu.Unlock()
	var ch changes
	snap := f.snap
	if snap == nil {
		snap = &snapshot{}
	}

	// Tools, with their view links pointing at the front's views.
	want := map[string]*mcp.Tool{}
	for _, t := range snap.tools {
		want[t.Name] = f.relink(t)
	}
	reconcile(&ch, f.tools, want, f.srv.RemoveTools, func(t *mcp.Tool) error {
		return addTool(f.srv, t, f.callTool)
	})

	// Resources: the connector's, except the views the front serves itself.
	wantRes := map[string]*mcp.Resource{}
	viewURIs := map[string]bool{}
	for _, r := range snap.resources {
		if _, ok := f.views[viewName(r.URI)]; ok {
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
	for _, t := range snap.templates {
		wantT[t.URITemplate] = t
	}
	reconcile(&ch, f.tmpl, wantT, f.srv.RemoveResourceTemplates, func(t *mcp.ResourceTemplate) error {
		f.srv.AddResourceTemplate(t, f.readResource)
		return nil
	})

	// Prompts.
	wantP := map[string]*mcp.Prompt{}
	for _, p := range snap.prompts {
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
func (f *front) relink(t *mcp.Tool) *mcp.Tool {
	var c mcp.Tool
	b, _ := json.Marshal(t)
	_ = json.Unmarshal(b, &c)
	// The schemas as the connector sent them (order.go), not the
	// decoded copy.
	c.InputSchema, c.OutputSchema = t.InputSchema, t.OutputSchema
	if c.Meta == nil {
		return &c
	}
	swap := func(s string) string {
		if v, ok := f.views[viewName(s)]; ok {
			return v.URI
		}
		return s
	}
	if ui, ok := c.Meta["ui"].(map[string]any); ok {
		if s, ok := ui["resourceUri"].(string); ok {
			ui["resourceUri"] = swap(s)
		}
	}
	for _, k := range []string{"ui/resourceUri", "openai/outputTemplate"} {
		if s, ok := c.Meta[k].(string); ok {
			c.Meta[k] = swap(s)
		}
	}
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
func viewMeta(m ir.ViewMeta) map[string]any {
	out := map[string]any{}
	csp := map[string]any{}
	for k, v := range map[string][]string{
		"connectDomains": m.ConnectDomains, "resourceDomains": m.ResourceDomains,
		"frameDomains": m.FrameDomains, "baseUriDomains": m.BaseURIDomains,
	} {
		if len(v) > 0 {
			csp[k] = v
		}
	}
	if len(csp) > 0 {
		out["csp"] = csp
	}
	if len(m.Permissions) > 0 {
		perms := map[string]any{}
		for _, p := range m.Permissions {
			perms[p] = map[string]any{}
		}
		out["permissions"] = perms
	}
	if m.Domain != "" {
		out["domain"] = m.Domain
	}
	if m.PrefersBorder != nil {
		out["prefersBorder"] = *m.PrefersBorder
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// readView serves a view from the front's latest bundle.
func (f *front) readView(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	f.mu.Lock()
	name := viewName(req.Params.URI)
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
func (f *front) readOldViews(next mcp.MethodHandler) mcp.MethodHandler {
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

func (f *front) isView(uri string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, cur := f.views[viewName(uri)]
	_, old := f.old[uri]
	return (cur && strings.HasPrefix(uri, "ui://")) || old
}

func (f *front) callTool(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
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

func (f *front) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
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

func (f *front) getPrompt(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
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

func (f *front) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
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

func (f *front) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
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

func (f *front) unsubscribe(ctx context.Context, req *mcp.UnsubscribeRequest) error {
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

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// reconcile brings one list of the front server (have: key → the JSON last
// registered) in line with want, touching only what changed so that hosts
// see list_changed for real changes only, and records what it did in ch.
// An item add refuses is reported as removed, with the reason.
func reconcile[T any](ch *changes, have map[string]string, want map[string]T, remove func(...string), add func(T) error) {
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
		ch.removed = append(ch.removed, gone...)
	}
	for _, key := range sortedKeys(want) {
		item := want[key]
		j := jsonOf(item)
		old, had := have[key]
		if had && old == j {
			continue
		}
		if err := add(item); err != nil {
			ch.removed = append(ch.removed, key+" ("+err.Error()+")")
			continue
		}
		have[key] = j
		if had {
			ch.changed = append(ch.changed, key)
		} else {
			ch.added = append(ch.added, key)
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
