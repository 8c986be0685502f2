// Package fastpath turns the HTTP requests at a connector's /mcp whose
// answer can only be their result (most tools/call, tools/list, and
// resources/read of a fixed resource) into that answer, without the
// go-sdk's JSON-RPC layer: one plain JSON response (or, in a session at
// 2025-11-25 or later, for a call still running after primeDelay or a
// large answer, one resumable event stream), the arguments decoded
// once, the result encoded once. Every other request, and every one that
// might need more than its result, it declines: it goes on to the handler
// behind (the endpoint and its go-sdk handlers) untouched, its body as it
// came.
//
// A call "can send nothing but its result" when:
//   - it carries no progress token;
//   - under MCP 2026-07-28, it asks for no log messages (no logLevel in
//     its _meta); questions to the client travel as input-required
//     results, which are results like any other;
//   - in a session, the session has not set a log level, and its client
//     declared neither sampling nor elicitation, so the server cannot ask it
//     anything during the call. (Roots are not counted: mcpgen has no
//     helper for them, and a handler that lists them through Session gets
//     its answer on the session's GET stream.)
//   - without a session at 2025-11-25 or earlier (a client that never
//     initialized, or any client of a server run with --stateless), the
//     tool is NeverAsks: the go-sdk would serve it on a session of its own
//     for this one request, whose client declared nothing and whose log
//     level is info. Log messages at info and above then travel as there,
//     on the answer: it turns into an event stream at the first one
//     (logStream).
//
// What a handler sees is the same as through the go-sdk (a
// *mcp.CallToolRequest with the session, the parameters, the HTTP header
// and the bearer token's info), and the same runtime code validates,
// applies defaults, runs the handler under its timeout, turns panics into
// tool errors, caps the result and writes the request log line: the
// Dispatcher's handlers, inside its middleware. Only CloseStream differs:
// a plain JSON response has no stream to close, so it reports false and
// the result comes in the response as usual.
//
// The reason is cost: the go-sdk decodes every JSON value through a
// streaming decoder that allocates a 32 KiB buffer (several per request),
// answers every call with an event stream, a priming event and an event
// store entry, and re-compacts the result JSON; see docs/benchmarks.md.
//
// The fast path gains no features: what is new goes into the go-sdk path,
// and the fast path declines the requests it does not fully handle. The
// connector's wire transcripts run every HTTP rule against both paths.
package fastpath

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpgen/mcpgen/internal/httpedge"
	"github.com/mcpgen/mcpgen/internal/wire"
)

// Config is what the fast path serves by; it does not change.
type Config struct {
	// Stateless: the server keeps no sessions (--stateless). A request
	// naming a session then goes to the go-sdk, whose answer depends on
	// its compatibility settings.
	Stateless bool
	// MaxBody is the limit on one request body; larger ones are answered
	// 413. It must be positive.
	MaxBody int64
	// PageSize is how many items one page of a list holds; 0 means the
	// go-sdk's default (mcp.DefaultPageSize). tools/list is answered here
	// only when every tool fits on one page.
	PageSize int
	// Impl is the server's identity, which every result under 2026-07-28
	// carries (_meta serverInfo).
	Impl *mcp.Implementation
	// Logger receives what fails while a resumable answer is stored or its
	// stream closed; nil means slog.Default().
	Logger *slog.Logger
}

// Dispatcher is the server the fast path answers for: what it may serve,
// and how the server runs it. The connector implements it. Its methods
// may be called concurrently, from any request the fast path reads.
type Dispatcher interface {
	// Enabled reports whether the fast path may serve now: when it is
	// false, every request goes on to the handler behind. (The connector
	// turns it off for good once the go-sdk server is handed out, since
	// middleware added there would not run on the fast path.)
	Enabled() bool
	// Tool returns the handler of tools/call of the named tool, as the
	// go-sdk server runs it, inside the receiving middleware (as Wrap
	// would make it, made once); its request is a *mcp.CallToolRequest.
	// neverAsks is true when the tool never sends the client a request
	// during a call. ok is false when the go-sdk must answer: no such
	// tool, one taken off the list, or one whose arguments the go-sdk
	// checks against Mcp-Param headers.
	Tool(name string) (call mcp.MethodHandler, neverAsks, ok bool)
	// Resource returns the handler of resources/read of the fixed
	// resource uri, inside the receiving middleware; its request is a
	// *mcp.ReadResourceRequest. ok is false for any other URI (a
	// template's, a view's, an unknown one): the go-sdk answers it.
	Resource(uri string) (read mcp.MethodHandler, ok bool)
	// ToolCount returns how many tools the server has, listed or not. It
	// does not change; tools/list is answered here only when it is at
	// most the page size, so that no list needs the go-sdk's cursors.
	ToolCount() int
	// Tools returns the tools tools/list shows, in any order (the fast
	// path sorts them by name, as the go-sdk does). What it returns is
	// encoded once, and kept until Handler.ToolsChanged.
	Tools() []*mcp.Tool
	// Wrap returns h inside the receiving middleware the go-sdk server
	// runs (the request log, protocol errors, telemetry), so that a
	// request answered here passes through the same code. The middleware
	// does not change once the fast path serves: what Wrap returns then
	// may be kept.
	Wrap(h mcp.MethodHandler) mcp.MethodHandler
	// Context returns the context a request's handler runs in: ctx,
	// carrying id, the request's JSON-RPC id as sent (telemetry records
	// it), and, when sink is not nil, sink as where the handler's log
	// messages go. sink is set for a request without a session: its log
	// messages travel on its own answer, and once it is answered sink
	// refuses them with an error.
	Context(ctx context.Context, id json.RawMessage, sink func(*mcp.LoggingMessageParams) error) context.Context
	// SessionClosed is told that the go-sdk closed the session id
	// (DELETE, idle timeout, shutdown), after the fast path has forgotten
	// it and ended its calls. It is called only through the event store
	// HookEvents wrapped.
	SessionClosed(id string)
}

// TaskTools is implemented by a Dispatcher some of whose tools run as the
// experimental tasks of MCP 2025-11-25 (SEP-1686): in a session at that
// revision, tools/list shows TaskSupport of each tool ("optional" or
// "required"; "" for none) as its execution.taskSupport.
type TaskTools interface {
	TaskSupport(tool string) string
}

// Handler is the fast path: an http.Handler in front of the endpoint,
// which serves what it declines.
type Handler struct {
	cfg      Config
	d        Dispatcher
	next     http.Handler // the endpoint: everything the fast path declines
	implJSON []byte       // cfg.Impl, encoded

	sessions sync.Map                  // session ID -> *fastSession (sessions era)
	streams  sync.Map                  // stream ID -> *fastStream (resumable answers in progress)
	calls    *callTable                // calls in flight in sessions; primes resumable answers running past primeDelay
	lists    [3]atomic.Pointer[[]byte] // encoded tools/list results, by listEra
	listRun  func() mcp.MethodHandler  // tools/list's handler, in the middleware (New)

	// events is the sessions' event store (nil without one): a call in a
	// session at 2025-11-25 or later is answered as the go-sdk answers it, on
	// a resumable event stream whose events are stored there.
	events mcp.EventStore
	hooked bool // events tells sessionClosed when a session closes

	unpark        func(r *http.Request, id string) *mcp.ServerSession // SetParking
	onInitialized func(id string)                                     // SetParking
}

// New returns the fast path of the server d, configured by cfg. It
// serves once SetNext has given it the handler behind; TrackSessions must
// be receiving middleware on the go-sdk server from the start, so that it
// knows every session.
func New(cfg Config, d Dispatcher) *Handler {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.PageSize <= 0 {
		cfg.PageSize = mcp.DefaultPageSize
	}
	implJSON, _ := json.Marshal(cfg.Impl)
	f := &Handler{cfg: cfg, d: d, implJSON: implJSON, calls: newCallTable(primeDelay, primeDelay/4)}
	// tools/list's answer is known in advance (listResponse), but the
	// request still passes through the middleware (the request log's
	// line). Wrapped at the first request: the middleware is complete by
	// then.
	f.listRun = sync.OnceValue(func() mcp.MethodHandler {
		return d.Wrap(func(context.Context, string, mcp.Request) (mcp.Result, error) {
			return &mcp.ListToolsResult{}, nil
		})
	})
	return f
}

// SetNext sets the handler of every request the fast path declines: the
// endpoint. It must be called once, before f serves.
func (f *Handler) SetNext(next http.Handler) { f.next = next }

// Session returns the go-sdk session id from its initialize until it
// closes, else nil; nil too while the session is parked (park.go). (Under
// 2026-07-28 there are no sessions.)
func (f *Handler) Session(id string) *mcp.ServerSession {
	if x, ok := f.sessions.Load(id); ok {
		return x.(*fastSession).ss.Load()
	}
	return nil
}

// SessionVersion returns the protocol version the client of session id
// asked for in its initialize, parked or not, or "" for a session the
// fast path does not know.
func (f *Handler) SessionVersion(id string) string {
	if x, ok := f.sessions.Load(id); ok {
		return x.(*fastSession).version
	}
	return ""
}

// SessionUser returns the subject whose token opened session id ("" for
// a session opened without auth), and false when the fast path does not
// know the session: a request for it with another subject's token is
// refused (the go-sdk answers 403).
func (f *Handler) SessionUser(id string) (string, bool) {
	if x, ok := f.sessions.Load(id); ok {
		return x.(*fastSession).userID, true
	}
	return "", false
}

// SessionCount returns how many sessions the fast path knows of.
func (f *Handler) SessionCount() int {
	n := 0
	f.sessions.Range(func(any, any) bool { n++; return true })
	return n
}

// fastSession is what the fast path knows of a go-sdk session.
type fastSession struct {
	id string
	// ss is the go-sdk session; nil while the session is parked.
	ss atomic.Pointer[mcp.ServerSession]
	// version is the protocol version the client asked for; init is its
	// initialize request, made again to bring a parked session back.
	version string
	init    []byte
	// initialized is set once the client's notifications/initialized
	// has been handled: the session may then be parked.
	initialized atomic.Bool
	// parking is set while the go-sdk session is being closed to park
	// it: the close is not the session's end.
	parking atomic.Bool
	// parkedOnce is set when the session was first parked, right after
	// its initialization; later it is parked after an idle spell.
	parkedOnce atomic.Bool
	// pinned is set once the go-sdk session holds what making its
	// initialize again would not bring back (a task): it is not parked
	// again.
	pinned atomic.Bool
	// subs are the resources the go-sdk session is subscribed to: while
	// there are any, it is not parked again.
	subsMu sync.Mutex
	subs   map[string]struct{}
	// ctx is cancelled when the session closes: calls on resumable
	// streams outlive their HTTP request, as through the go-sdk.
	ctx    context.Context
	cancel context.CancelFunc
	// eligible is false when the session's client declared a capability
	// that lets the server send it requests during a call: then only
	// tools marked NeverAsks are called here.
	eligible bool
	// logging is set once the client chose a log level (logging/setLevel):
	// handlers' log messages then travel on the call's stream.
	logging atomic.Bool
	// userID is the subject whose token opened the session (with auth):
	// the go-sdk refuses the session to anyone else.
	userID string
}

type inflightKey struct {
	session string
	id      string // the JSON-RPC id as sent
}

// primeDelay is how long a call in a session at 2025-11-25 or later runs
// before its priming event goes out (up to a quarter more: callTable), so
// that its client can resume the answer if the connection drops. A call
// that ends sooner is answered whole (serveStream).
const primeDelay = 20 * time.Millisecond

// plainMax is the largest answer to such a call that ends within
// primeDelay sent as plain JSON, without an event id or anything stored;
// a larger one goes out on a resumable event stream, since a connection
// may drop part way through a long write.
const plainMax = 16 << 10

// fastRequest is a JSON-RPC request as the fast path reads it: with
// wire.ScanRequest, or else encoding/json.
type fastRequest wire.Request

// servedMethods are the methods the fast path may serve.
var servedMethods = []string{"tools/call", "tools/list", "resources/read"}

func (f *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && r.Header.Get("Last-Event-ID") != "" && f.resume(w, r) {
		return
	}
	if r.Method != http.MethodPost || !f.d.Enabled() || r.Body == nil {
		f.next.ServeHTTP(w, r)
		return
	}
	h := r.Header
	v := h.Get("Mcp-Protocol-Version")
	stateless := v >= wire.StatelessVersion
	sid := h.Get("Mcp-Session-Id")
	switch {
	case v != "" && !wire.Supported(v):
		// The endpoint answers unsupported versions.
		f.next.ServeHTTP(w, r)
		return
	case stateless:
		if m := h.Get("Mcp-Method"); m != "tools/call" && m != "tools/list" && m != "resources/read" {
			f.next.ServeHTTP(w, r)
			return
		}
	case sid != "" && f.cfg.Stateless:
		// What the go-sdk makes of a session ID without sessions depends
		// on its compatibility settings: it answers.
		f.next.ServeHTTP(w, r)
		return
	}
	if !acceptsBoth(h) || !isJSON(h.Get("Content-Type")) {
		f.next.ServeHTTP(w, r) // the go-sdk answers what is wrong
		return
	}
	body, ok := httpedge.ReadBody(w, r, f.cfg.MaxBody)
	if !ok {
		return
	}
	if !f.serve(w, r, body, stateless, sid) {
		r.Body = httpedge.NewBody(body) // the endpoint takes the bytes
		f.next.ServeHTTP(w, r)
	}
}

// serve answers r when it is a tools/call the fast path can serve, and
// reports whether it did. It has written nothing when it returns false.
//
// What decides is prepare's, and what follows the handler is answer's or
// the stream's: the functions on the stack while a handler runs keep
// small frames, so that a handler's own deep calls (decoding its input)
// fit in its goroutine's first stack rather than make the runtime copy
// it to a larger one.
func (f *Handler) serve(w http.ResponseWriter, r *http.Request, body []byte, stateless bool, sid string) bool {
	c, run, mreq := f.prepare(w, r, body, stateless, sid)
	switch {
	case c == nil:
		return false
	case run == nil: // answered already
	case c.resumable:
		c.serveStream(r, run, mreq)
	default:
		c.serveJSON(run, mreq)
	}
	return true
}

// prepare decodes and checks r, and returns its call, ready to run with
// run and mreq; a nil call when the fast path does not serve r (nothing
// written), and a nil run when prepare answered it (a duplicate id).
func (f *Handler) prepare(w http.ResponseWriter, r *http.Request, body []byte, stateless bool, sid string) (c *fastCall, run mcp.MethodHandler, mreq mcp.Request) {
	if !bytes.Contains(body, []byte(`"tools/call"`)) && !bytes.Contains(body, []byte(`"tools/list"`)) && !bytes.Contains(body, []byte(`"resources/read"`)) {
		if sid != "" && bytes.Contains(body, []byte(`"notifications/cancelled"`)) {
			f.cancelled(sid, body)
		}
		return nil, nil, nil
	}
	c = &fastCall{f: f, stateless: stateless}
	req := &c.msg
	if m, ok := wire.ScanRequest(body, servedMethods...); ok {
		*req = fastRequest(m)
	} else if json.Unmarshal(body, req) != nil {
		return nil, nil, nil
	}
	if req.JSONRPC != "2.0" || !wire.ValidID(req.ID) {
		return nil, nil, nil
	}
	if stateless && r.Header.Get("Mcp-Method") != req.Method {
		return nil, nil, nil
	}
	// What the request is, and what it needs to be answered here.
	var (
		meta   mcp.Meta
		name   string // what Mcp-Name must say (2026-07-28)
		mayAsk bool   // the handler may send the client requests
		mayLog bool   // the handler may send log messages
	)
	c.extra = mcp.RequestExtra{TokenInfo: auth.TokenInfoFromContext(r.Context()), Header: r.Header}
	switch req.Method {
	case "tools/call":
		if !c.callParams() {
			return nil, nil, nil
		}
		handle, neverAsks, ok := f.d.Tool(c.params.Name)
		if !ok {
			// The go-sdk's unknown-tool error; or its check of the
			// Mcp-Param headers of the tool's arguments (SEP-2243).
			return nil, nil, nil
		}
		meta, name, mayAsk, mayLog = c.params.Meta, c.params.Name, !neverAsks, true
		c.tool = mcp.CallToolRequest{Params: &c.params, Extra: &c.extra}
		mreq, run = &c.tool, handle
	case "tools/list":
		var params mcp.ListToolsParams
		if len(req.Params) > 0 && json.Unmarshal(req.Params, &params) != nil {
			return nil, nil, nil
		}
		if params.Cursor != "" || f.d.ToolCount() > f.cfg.PageSize {
			return nil, nil, nil // pages: the go-sdk's cursors
		}
		meta, c.listOnly = params.Meta, true
		mreq = &mcp.ListToolsRequest{Params: &params, Extra: &c.extra}
		run = f.listRun()
	case "resources/read":
		var params mcp.ReadResourceParams
		if json.Unmarshal(req.Params, &params) != nil {
			return nil, nil, nil
		}
		read, ok := f.d.Resource(params.URI)
		if !ok {
			return nil, nil, nil // templates, views, not found: the go-sdk
		}
		meta, name, mayLog = params.Meta, params.URI, true
		mreq = &mcp.ReadResourceRequest{Params: &params, Extra: &c.extra}
		run = read
	default:
		return nil, nil, nil
	}
	if _, ok := meta["progressToken"]; ok {
		return nil, nil, nil
	}
	switch {
	case stateless:
		if !f.statelessOK(r.Header, meta, name) {
			return nil, nil, nil
		}
	case sid == "":
		// A 2025 client without a session (or any client under
		// --stateless): the go-sdk serves it on a session of its own for
		// this one request, whose client declared nothing and whose log
		// level is info, so the handler's log messages travel on the
		// answer. A tool that might ask the client goes there.
		if _, ok := meta[mcp.MetaKeyProtocolVersion]; ok || mayAsk {
			return nil, nil, nil
		}
		c.log.w = w
		c.logs = &c.log
	default:
		if _, ok := meta[mcp.MetaKeyProtocolVersion]; ok {
			return nil, nil, nil // the go-sdk refuses 2026-07-28 _meta in a session
		}
		x, ok := f.sessions.Load(sid)
		if !ok {
			return nil, nil, nil // unknown or expired: the endpoint answers 404
		}
		c.fs = x.(*fastSession)
		if (mayAsk && !c.fs.eligible) || (mayLog && c.fs.logging.Load()) {
			return nil, nil, nil
		}
		if !OwnedBy(c.fs.userID, auth.TokenInfoFromContext(r.Context())) {
			return nil, nil, nil // the go-sdk answers 403
		}
	}

	ctx := r.Context()
	wh := w.Header()
	wh["Cache-Control"] = noCache
	resumable := false
	if fs := c.fs; fs != nil {
		ss := fs.ss.Load()
		switch x := mreq.(type) {
		case *mcp.CallToolRequest:
			x.Session = ss
		case *mcp.ReadResourceRequest:
			x.Session = ss
		case *mcp.ListToolsRequest:
			x.Session = ss
		}
		if ss == nil {
			// Parked: the handler's ctx names the session, and brings it
			// back if the handler asks for it (CallSession.Live).
			c.parked = CallSession{ID: sid, f: f, fs: fs, r: r}
			ctx = context.WithValue(ctx, callSessionKey{}, &c.parked)
		}
		// As through the go-sdk, a call in a session at 2025-11-25 or later
		// is answered on a resumable event stream: it goes on if the
		// connection drops, and its result waits in the event store for
		// the client to resume the stream (Last-Event-ID).
		resumable = f.events != nil && r.Header.Get("Mcp-Protocol-Version") >= wire.ResumableVersion
		if resumable {
			ctx = context.WithoutCancel(ctx)
		}
		ctx, c.cancel = context.WithCancel(ctx)
	}
	var sink func(*mcp.LoggingMessageParams) error
	if c.logs != nil {
		sink = c.logs.send
	}
	c.ctx = f.d.Context(ctx, req.ID, sink)
	c.w, c.sid = w, sid
	if c.fs != nil {
		// Entered in the table once complete: its ticker may prime the
		// call from another goroutine.
		c.key, c.resumable = inflightKey{sid, string(req.ID)}, resumable
		if !f.calls.add(c) {
			c.cancel()
			wh["Content-Type"] = contentJSON
			w.WriteHeader(http.StatusBadRequest)
			w.Write(wire.ErrorResponse(req.ID, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "duplicate in-flight request ID " + string(req.ID)}))
			return c, nil, nil
		}
		c.listed = true
		// The session's end cancels its calls in flight (endSession); one
		// that ended before this call was registered is seen here.
		if c.fs.ctx.Err() != nil {
			c.cancel()
		}
	}
	return c, run, mreq
}

// serveJSON runs a call answered with one JSON message (or, for a 2025
// request without a session whose handler logs, an event stream).
func (c *fastCall) serveJSON(run mcp.MethodHandler, mreq mcp.Request) {
	defer c.cleanup()
	res, err := run(c.ctx, c.msg.Method, mreq)
	c.answer(res, err)
}

// answer writes the answer of a call that ended with res and err.
func (c *fastCall) answer(res mcp.Result, err error) {
	w := c.w
	wh := w.Header()
	if c.wasCancelled() {
		// The client cancelled the call: it gets no response. The
		// POST is still answered as a request's POST must be (202 is
		// for notifications and responses): with an event stream,
		// here one without events, as through the go-sdk.
		if !c.logs.end(nil) {
			wh["Content-Type"] = contentSSE
			w.WriteHeader(http.StatusOK)
		}
		return
	}
	out := c.encode(res, err)
	if c.logs.end(out) {
		return // the answer was an event stream already
	}
	wh["Content-Type"] = contentJSON
	w.WriteHeader(wire.ErrorStatus(c.stateless, err))
	w.Write(out)
}

// The header values the fast path sets, shared by every answer: net/http
// only reads them, and a handler that adds a value to one (Header.Add)
// appends to a full slice, which copies it.
var (
	noCache     = []string{"no-cache, no-transform"}
	contentJSON = []string{"application/json"}
	contentSSE  = []string{"text/event-stream"}
)

// fastCall is one request the fast path answers, from its decoding to its
// answer: the message, the handler's request (for tools/call), the
// call's context and entry in the in-flight table (in a session), and its
// resumable answer's state (serveStream), in one allocation.
type fastCall struct {
	f         *Handler
	msg       fastRequest
	extra     mcp.RequestExtra
	params    mcp.CallToolParamsRaw // tools/call
	tool      mcp.CallToolRequest   // tools/call
	stateless bool                  // a request at 2026-07-28
	listOnly  bool                  // tools/list: the answer is known in advance
	fs        *fastSession          // the call's session, if any
	parked    CallSession           // its CallSession, when fs is parked
	logs      *logStream            // a 2025 request without a session: &log
	log       logStream

	ctx        context.Context    // the handler's
	cancel     context.CancelFunc // a session's call: its context's
	cancelled  atomic.Bool        // notifications/cancelled named the call
	key        inflightKey        // a session's call: its key in f.calls
	listed     bool               // it is in f.calls
	resumable  bool               // its answer may be a resumable event stream (serveStream)
	added      time.Time          // when it entered f.calls
	primeTaken bool               // f.calls has had it primed (runLater); guarded by f.calls.mu

	// A resumable answer (serveStream).
	w       http.ResponseWriter
	sid     string
	mu      sync.Mutex // guards w, ended, closed, started and primed
	stream  string     // the event stream's id, drawn when it is first needed
	ended   bool       // the call has ended
	closed  bool       // CloseStream ended the response
	started bool       // the event stream has begun: its header and priming event are written
	primed  bool       // the stream is open with its priming event stored
	st      *fastStream
}

// callParams reads tools/call's params into c.params: with
// wire.ScanCallParams, or else encoding/json. It reports false for params
// encoding/json would not decode.
func (c *fastCall) callParams() bool {
	p, ok := wire.ScanCallParams(c.msg.Params)
	if !ok {
		return json.Unmarshal(c.msg.Params, &c.params) == nil
	}
	c.params.Name, c.params.Arguments = p.Name, p.Arguments
	if p.Meta == nil {
		return true
	}
	if m, ok := wire.ScanObject(p.Meta); ok {
		c.params.Meta = m
		return true
	}
	return json.Unmarshal(p.Meta, &c.params.Meta) == nil
}

// cleanup undoes, once the call has ended, what was set up for it.
func (c *fastCall) cleanup() {
	if c.listed {
		c.f.calls.remove(c)
	}
	if c.cancel != nil {
		c.cancel()
	}
}

// wasCancelled reports whether the client cancelled the call.
func (c *fastCall) wasCancelled() bool {
	return c.cancelled.Load() || wire.CancelledByClient(c.ctx)
}

// encode is the JSON-RPC response to the call that ended with res and err.
func (c *fastCall) encode(res mcp.Result, err error) []byte {
	f, id := c.f, c.msg.ID
	switch {
	case err != nil:
		return wire.ErrorResponse(id, err)
	case c.listOnly:
		return f.listResponse(id, f.listEraOf(c.stateless, c.fs))
	case c.msg.Method == "tools/call":
		ctr, _ := res.(*mcp.CallToolResult)
		return f.resultResponse(id, ctr, c.stateless)
	}
	return f.otherResponse(id, res, c.stateless)
}

// sentLevels are the levels at or above info.
var sentLevels = map[mcp.LoggingLevel]bool{"info": true, "notice": true, "warning": true, "error": true, "critical": true, "alert": true, "emergency": true}

var errAnswered = errors.New("the request has been answered: the log message has no stream to travel on")

// statelessOK checks what the go-sdk checks of a 2026-07-28 request before
// serving it (the _meta triple, the headers that repeat the body) and that
// the call asks for no log messages; a request that fails goes to the
// go-sdk, which answers the error.
func (f *Handler) statelessOK(h http.Header, meta mcp.Meta, name string) bool {
	if v, _ := meta[mcp.MetaKeyProtocolVersion].(string); v != h.Get("Mcp-Protocol-Version") {
		return false
	}
	if _, ok := meta[mcp.MetaKeyClientCapabilities].(map[string]any); !ok {
		return false
	}
	if ci, ok := meta[mcp.MetaKeyClientInfo]; ok {
		if _, ok := ci.(map[string]any); !ok {
			return false
		}
	}
	if _, ok := meta[mcp.MetaKeyLogLevel]; ok {
		return false
	}
	if h.Get("Mcp-Name") != name {
		return false
	}
	for k := range h {
		if strings.HasPrefix(k, "Mcp-Param-") {
			return false
		}
	}
	return true
}

// cancelled cancels the fast-path call a notifications/cancelled names;
// the notification then goes on to the go-sdk as usual.
func (f *Handler) cancelled(sid string, body []byte) {
	var n struct {
		Method string `json:"method"`
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &n) != nil || n.Method != "notifications/cancelled" {
		return
	}
	if c := f.calls.get(inflightKey{sid, string(n.Params.RequestID)}); c != nil {
		c.cancelled.Store(true)
		c.cancel()
	}
}

func acceptsBoth(h http.Header) bool {
	var js, sse bool
	for _, v := range h.Values("Accept") {
		for part := range strings.SplitSeq(v, ",") {
			mt, _, _ := strings.Cut(part, ";")
			switch strings.TrimSpace(mt) {
			case "application/json":
				js = true
			case "text/event-stream":
				sse = true
			case "*/*":
				js, sse = true, true
			}
		}
	}
	return js && sse
}

func isJSON(ct string) bool {
	mt, _, _ := strings.Cut(ct, ";")
	return strings.EqualFold(strings.TrimSpace(mt), "application/json")
}
