package connector

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"sync/atomic"

	"github.com/mcpgen/mcpgen/connector/authserver"
	"github.com/mcpgen/mcpgen/internal/authgate"
	"github.com/mcpgen/mcpgen/internal/eraroute"
	"github.com/mcpgen/mcpgen/internal/fastpath"
	"github.com/mcpgen/mcpgen/internal/httpedge"
	"github.com/mcpgen/mcpgen/internal/msgstream"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpgen/mcpgen/connector/store"
	"github.com/mcpgen/mcpgen/connector/telemetry"
)

// Server is a connector's MCP server: the generated App registered on a
// go-sdk server.
type Server struct {
	app    *App
	opts   options
	mcp    *mcp.Server
	logger *slog.Logger

	tools     map[string]*tool // by name, immutable after NewServer
	resources map[string]*Resource
	// fastResources are the fixed resources' handlers as the fast path
	// runs them (wrapFast), by URI.
	fastResources map[string]mcp.MethodHandler
	templates     []*resourceTemplate
	prompts       map[string]*Prompt
	tasks         *taskRunner // tasks.go; nil without task tools
	// hiddenPrompts are the prompts SetPromptEnabled took off the list.
	hiddenPrompts map[string]bool
	completions   map[completionKey]CompletionHandler

	stateKey []byte // signs requestState of multi-round-trip tool calls
	asks     *askRegistry

	handlerOnce sync.Once
	handler     http.Handler

	cardOnce sync.Once // card.go
	card     []byte

	mu    sync.Mutex
	views map[string]View // by name

	auth     *authgate.Gate     // nil when auth is off
	authSrv  *authserver.Server // the connector's own authorization server (WithAuthUpstream), or nil
	state    store.Store        // rate limits, resumption events, shared secrets
	relay    relay              // notifications between replicas (notify.go)
	adopt    adopter            // sessions across replicas (adopt.go)
	park     parking            // sessions at rest without a go-sdk session (park.go)
	sessions *sessionTable      // HTTP sessions: their bounds and idle time

	tel *telemetry.Telemetry // nil when off; observe.go

	fastPath   *fastpath.Handler   // after auth, before the endpoint (initFast)
	middleware []mcp.Middleware    // receiving middleware, as added to the go-sdk server (use)
	impl       *mcp.Implementation // the server's identity (serverInfo)
	mcpExposed atomic.Bool         // MCP() was called: middleware may be added there

	streamsOnce sync.Once
	streamsT    *msgstream.Transports // HTTP+SSE and WebSocket (streamserve.go)
}

// NewServer registers app's tools, resources, prompts, completions and views
// on a new go-sdk server. It reports every invalid registration (a bad schema,
// a duplicate name, a tool naming an unknown view) in one error.
func NewServer(app *App, opts ...Option) (*Server, error) {
	if app == nil {
		return nil, fmt.Errorf("mcpgen runtime: NewServer needs an App, got nil")
	}
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if o.logger == nil {
		o.logger = slog.New(slog.NewTextHandler(stderr(), nil))
	}
	if o.maxBodyBytes == 0 {
		o.maxBodyBytes = defaultMaxBodyBytes
	}
	if o.instructions == "" {
		o.instructions = app.Instructions
	}
	switch {
	case o.sessionIdle == 0:
		o.sessionIdle = defaultSessionIdle
	case o.sessionIdle < 0:
		o.sessionIdle = 0 // the SDK's "never"
	}
	o.maxSessions = sessionBound(o.maxSessions, defaultMaxSessions)
	o.maxSessionsPerCaller = sessionBound(o.maxSessionsPerCaller, defaultMaxSessionsPerCaller)
	if o.askTimeout <= 0 {
		o.askTimeout = defaultClientRequestTimeout
	}
	if o.readTimeout <= 0 {
		o.readTimeout = defaultReadTimeout
	}
	if o.idleTimeout <= 0 {
		o.idleTimeout = defaultIdleTimeout
	}
	s := &Server{
		app:         app,
		opts:        o,
		logger:      o.logger,
		tools:       make(map[string]*tool),
		resources:   make(map[string]*Resource),
		prompts:     make(map[string]*Prompt),
		completions: make(map[completionKey]CompletionHandler),
		views:       make(map[string]View),
		stateKey:    o.stateKey,
		asks:        newAskRegistry(),
		state:       o.state,
	}
	if s.state == nil {
		s.state = store.NewMemory(store.MemoryOptions{Now: o.now})
	}
	// With telemetry on, a networked store's round trips are spans
	// (observe.go); the memory store is left as it is.
	s.state = o.telemetry.Store(s.state)
	if s.stateKey == nil {
		key, err := s.state.Secrets().Key(context.Background(), stateKeyName, stateKeySize)
		if err != nil {
			return nil, fmt.Errorf("the key that signs requestState: %w", err)
		}
		s.stateKey = key
	}
	sopts := &mcp.ServerOptions{
		GetSessionID: s.nextSessionID, // adopt.go
		Instructions: o.instructions,
		Logger:       slog.New(minLevel{o.logger.Handler(), slog.LevelWarn}),
		PageSize:     o.pageSize,
	}
	hasSubscribable := false
	for i := range app.Resources {
		if !app.Resources[i].Template {
			hasSubscribable = true
		}
	}
	if hasSubscribable {
		sopts.SubscribeHandler = s.subscribe
		sopts.UnsubscribeHandler = func(context.Context, *mcp.UnsubscribeRequest) error { return nil }
	}
	if len(app.Completions) > 0 {
		sopts.CompletionHandler = s.complete
	}
	name, version := app.Name, appVersion(app)
	if name == "" {
		name = "mcpgen-connector"
	}
	for i := range app.Tools {
		if app.Tools[i].Task != TaskNever {
			// server/discover lists the tasks extension (tasks.go).
			sopts.Capabilities = &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{},
				Extensions: map[string]any{tasksExtension: map[string]any{}}}
			break
		}
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: name, Version: version}, sopts)
	s.initFast(name, version)
	s.use(s.requestLog)     // reqlog.go
	s.use(s.protocolErrors) // wire.go
	s.sessions = newSessionTable(o.maxSessions, o.maxSessionsPerCaller, o.sessionIdle, o.logger)
	s.mcp.AddReceivingMiddleware(s.sessions.bindSessions) // sessions.go: only initialize
	s.mcp.AddReceivingMiddleware(s.shareLevel)            // adoptlevel.go: only logging/setLevel

	var errs errList
	for _, v := range app.Views {
		if v.Name == "" || v.URI == "" {
			errs.addf("view %q: a view needs a Name and a URI", v.Name)
			continue
		}
		s.views[v.Name] = v
	}
	for i := range app.Tools {
		s.addTool(&app.Tools[i], &errs)
	}
	for i := range app.Resources {
		s.addResource(&app.Resources[i], &errs)
	}
	for i := range app.Prompts {
		s.addPrompt(&app.Prompts[i], &errs)
	}
	for _, c := range app.Completions {
		s.addCompletion(c, &errs)
	}
	if err := errs.err(); err != nil {
		return nil, err
	}
	for _, v := range app.Views {
		s.addViewResource(v)
	}
	for _, t := range s.sortedTools() {
		s.mcp.AddTool(s.sdkTool(t), t.handle)
	}
	if s.hasTaskTools() {
		s.mcp.AddReceivingMiddleware(s.announceTasksV1) // tasks_v1.go
	}
	if err := s.setupAuth(); err != nil {
		return nil, err
	}
	if err := s.observe(); err != nil { // observe.go
		return nil, err
	}
	s.wrapFast()
	return s, nil
}

// wrapFast makes the handlers the fast path runs, each inside the
// receiving middleware, all of which has been added by now: once, rather
// than a chain of closures per request.
func (s *Server) wrapFast() {
	d := fastDispatcher{s}
	for _, t := range s.tools {
		t.fast = d.Wrap(func(ctx context.Context, _ string, req mcp.Request) (mcp.Result, error) {
			return t.handle(ctx, req.(*mcp.CallToolRequest))
		})
	}
	s.fastResources = make(map[string]mcp.MethodHandler, len(s.resources))
	for uri, r := range s.resources {
		s.fastResources[uri] = d.Wrap(func(ctx context.Context, _ string, req mcp.Request) (mcp.Result, error) {
			return s.readResource(ctx, req.(*mcp.ReadResourceRequest), r, nil)
		})
	}
}

// MCP returns the underlying go-sdk server, for anything mcpgen does not
// cover (middleware, extra features).
func (s *Server) MCP() *mcp.Server {
	s.mcpExposed.Store(true) // middleware added there must see every request
	return s.mcp
}

// Logger returns the server's logger.
func (s *Server) Logger() *slog.Logger { return s.logger }

// Handler returns the Streamable HTTP handler (mount it at /mcp); every
// call returns the same handler, which holds the HTTP sessions. It rejects
// foreign Host and Origin headers with 403 (DNS-rebinding protection) and
// bodies over the size limit with 413.
func (s *Server) Handler() http.Handler {
	s.handlerOnce.Do(func() { s.handler = s.newHandler() })
	return s.handler
}

func (s *Server) newHandler() http.Handler {
	o := eraroute.Options{
		Logger:  slog.New(minLevel{s.logger.Handler(), slog.LevelWarn}),
		MaxBody: s.opts.maxBodyBytes,
		Hooks:   eraroute.Hooks{Admit: s.admitSession, Closing: s.closingSession}, // sessions.go
	}
	if !s.opts.stateless {
		// No SessionTimeout: the session table closes idle sessions,
		// counting open event streams as activity (sessions.go).
		o.Sessions = &mcp.StreamableHTTPOptions{}
		if !s.opts.noEventStore {
			o.Sessions.EventStore = s.opts.eventStore
			if o.Sessions.EventStore == nil {
				o.Sessions.EventStore = s.state.Events()
			}
		}
		if o.Sessions.EventStore != nil && s.sharedStore() {
			// A stopping replica waits for the answers of calls whose
			// client has gone to reach the store (adoptdrain.go).
			o.Sessions.EventStore = answerHook{o.Sessions.EventStore, &s.adopt.answers}
		}
		// The fast path stores its resumable answers in the event store,
		// and learns there when a session closes, as the session table
		// then does (fastDispatcher.SessionClosed).
		o.Sessions.EventStore = s.fastPath.HookEvents(o.Sessions.EventStore)
		s.sessions.hooked = o.Sessions.EventStore != nil
	}
	e := eraroute.New(s.mcp, o)
	s.fastPath.SetNext(s.parkSessions(e)) // park.go
	var h http.Handler = s.fastPath       // after auth, before the endpoint
	h = s.wrapTasks(h)                    // tasks.go: tools that run as tasks, tasks/*
	h = s.adoptSessions(h)                // adopt.go: sessions across replicas
	h = s.sessions.track(h)               // sessions.go: what keeps a session alive
	return s.protect(h)
}

// protect puts the checks every MCP endpoint shares in front of h: Host
// and Origin, then the token (or mcpgen dev's front key), with the
// client's address for per-caller limits.
func (s *Server) protect(h http.Handler) http.Handler { return s.protectWith(h, s.auth) }

// protectWith is protect with the auth gate g (nil: none).
func (s *Server) protectWith(h http.Handler, g *authgate.Gate) http.Handler {
	switch {
	case s.opts.devFrontKey != "":
		h = s.devFront(h)
	case g != nil:
		h = g.Wrap(h)
	}
	h = httpedge.CallerAddr(h, s.opts.trustedProxies)
	return &guard{next: h, allowed: s.opts.allowedOrigins, hosts: s.opts.allowedHosts, logger: s.logger, sessionVersion: s.sessionVersion}
}

// sessionVersion returns the protocol version the client of session id
// asked for in initialize, or "".
func (s *Server) sessionVersion(id string) string {
	// The fast path tracks every session from its initialize, parked or
	// not (a map lookup, where s.mcp.Sessions() would walk them all).
	return s.fastPath.SessionVersion(id)
}

// initFast makes the fast path (internal/fastpath): it answers, over
// HTTP, the calls whose answer can only be their result without the
// go-sdk's JSON-RPC layer, and declines the rest to the endpoint. It
// learns of every session from their initialize on.
func (s *Server) initFast(name, version string) {
	s.impl = &mcp.Implementation{Name: name, Version: version}
	s.fastPath = fastpath.New(fastpath.Config{
		Stateless: s.opts.stateless,
		MaxBody:   s.opts.maxBodyBytes,
		PageSize:  s.opts.pageSize,
		Impl:      s.impl,
		Logger:    s.logger,
	}, fastDispatcher{s})
	s.mcp.AddReceivingMiddleware(s.fastPath.TrackSessions)
}

// use adds receiving middleware to the go-sdk server, and to the calls the
// fast path serves. mcpgen's own middleware must be added with use, so
// that both paths run it.
func (s *Server) use(mw mcp.Middleware) {
	s.middleware = append(s.middleware, mw)
	s.mcp.AddReceivingMiddleware(mw)
}

// fastDispatcher is the server as the fast path sees it
// (fastpath.Dispatcher).
type fastDispatcher struct{ s *Server }

// Enabled: not once MCP() has given the go-sdk server away, since
// middleware added there would not run on the fast path.
func (d fastDispatcher) Enabled() bool { return !d.s.mcpExposed.Load() }

func (d fastDispatcher) Tool(name string) (mcp.MethodHandler, bool, bool) {
	t, ok := d.s.tools[name]
	if !ok || t.hidden.Load() || t.headerParams {
		return nil, false, false
	}
	return t.fast, t.def.NeverAsks, true // wrapFast
}

func (d fastDispatcher) Resource(uri string) (mcp.MethodHandler, bool) {
	h, ok := d.s.fastResources[uri] // wrapFast
	return h, ok
}

func (d fastDispatcher) ToolCount() int { return len(d.s.tools) }

func (d fastDispatcher) Tools() []*mcp.Tool {
	tools := d.s.sortedTools()
	ts := make([]*mcp.Tool, 0, len(tools))
	for _, t := range tools {
		ts = append(ts, d.s.sdkTool(t))
	}
	return ts
}

// TaskSupport is the tool's execution.taskSupport in tools/list of a
// session at 2025-11-25 (fastpath.TaskTools; tasks_v1.go).
func (d fastDispatcher) TaskSupport(name string) string { return d.s.taskSupport(name) }

// Wrap wraps h in the receiving middleware added with use, as the go-sdk
// runs it (the request log, protocol errors, telemetry).
func (d fastDispatcher) Wrap(h mcp.MethodHandler) mcp.MethodHandler {
	for _, mw := range d.s.middleware {
		h = mw(h)
	}
	return h
}

func (d fastDispatcher) Context(ctx context.Context, id json.RawMessage, sink func(*mcp.LoggingMessageParams) error) context.Context {
	if sink != nil {
		ctx = context.WithValue(ctx, logSinkKey{}, sink) // context.go
	}
	if d.s.tel.Tracing() {
		ctx = telemetry.WithRequestID(ctx, id) // observe.go
	}
	return ctx
}

func (d fastDispatcher) SessionClosed(id string) {
	d.s.sessions.closed(id) // sessions.go
	d.s.forgetLevel(id)     // adoptlevel.go
}

// ServeStdio serves one client over newline-delimited JSON-RPC on the
// process's stdin and stdout until ctx is done or stdin closes.
func (s *Server) ServeStdio(ctx context.Context) error {
	return s.ServeIO(ctx, os.Stdin, os.Stdout)
}

type errList []string

func (e *errList) addf(format string, args ...any) { *e = append(*e, fmt.Sprintf(format, args...)) }

func (e errList) err() error {
	switch len(e) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("mcpgen runtime: %s", e[0])
	}
	msg := fmt.Sprintf("mcpgen runtime: %d problems:", len(e))
	for _, m := range e {
		msg += "\n\t" + m
	}
	return fmt.Errorf("%s", msg)
}

// minLevel drops records below a level: the SDK logs every subscription
// and notification at Info, which is noise in a connector's log.
type minLevel struct {
	slog.Handler
	min slog.Level
}

func (h minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h minLevel) WithAttrs(as []slog.Attr) slog.Handler {
	return minLevel{h.Handler.WithAttrs(as), h.min}
}

func (h minLevel) WithGroup(name string) slog.Handler {
	return minLevel{h.Handler.WithGroup(name), h.min}
}
