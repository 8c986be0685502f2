// Package front turns whichever connector process is current into one
// long-lived MCP server. Hosts connect to the front; it mirrors the tools,
// resources, templates and prompts of the connector behind it, serves the
// views itself, and forwards calls and the server-to-client traffic, so a
// host's session survives every rebuild, restart and view swap. The dev
// loop (package dev) starts the processes and tells the front which one
// serves; the front never starts one.
package front

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpgen/mcpgen/connector/authserver"
	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/internal/authgate"
)

// childProtocol is the protocol version the front speaks to the connector:
// the session-based revision, so server-to-client requests (sampling,
// elicitation) and notifications have a session to travel on.
const childProtocol = "2025-11-25"

// Process is one running connector process, serving Streamable HTTP, as the
// dev loop started it.
type Process interface {
	// URL is the process's MCP endpoint.
	URL() string
	// Done is closed when the process has exited.
	Done() <-chan struct{}
	// Expected reports whether its exit was asked for (Stop), as opposed
	// to a crash.
	Expected() bool
	// ExitStatus describes how it exited, once Done is closed.
	ExitStatus() string
	// LastLines returns the last lines it wrote, for crash reports.
	LastLines() string
	// Stop ends it: SIGTERM, then SIGKILL after grace.
	Stop(grace time.Duration)
}

// exited reports whether p has exited.
func exited(p Process) bool {
	select {
	case <-p.Done():
		return true
	default:
		return false
	}
}

// Options configure New.
type Options struct {
	// Name and Version are the front's implementation, as hosts see it.
	Name, Version string
	// ListChanged, when set, is called when the connector process p
	// announces that its tools, resources or prompts changed; the caller
	// then calls Relist if p is still the one serving. It must not block.
	ListChanged func(p Process)
	// Log receives the warnings of the HTTP transports and the auth gate.
	// Nil discards.
	Log io.Writer
}

// Front is the long-lived server a host connects to. It mirrors the tools,
// resources, templates and prompts of the current connector process, serves
// the views itself (so a view edit never restarts the connector), and
// forwards calls and the server-to-client traffic between each host session
// and a session of its own with the connector.
type Front struct {
	srv         *mcp.Server
	listChanged func(Process) // to the dev loop: the connector's lists changed
	log         io.Writer
	key         string // this run's secret for the connector (Key)

	gate *authgate.Gate     // nil until Protect
	asrv *authserver.Server // nil without an upstream (Protect)

	started *startGate  // open once the first build is done
	closing atomic.Bool // mcpgen dev is stopping

	mu    sync.Mutex
	cur   *Conn              // current connector; nil until a build succeeds
	snap  *Snapshot          // what cur lists
	views map[string]ir.View // by name: the views the front serves
	old   map[string]string  // superseded view URI → view name, still readable
	subs  map[string]int     // connector URIs hosts subscribe to → count
	tools map[string]string  // served tool name → its JSON
	res   map[string]string  // served resource URI → JSON
	tmpl  map[string]string  // served template → JSON
	proms map[string]string  // served prompt name → JSON
}

// Snapshot is everything one connector process lists.
type Snapshot struct {
	Tools     []*mcp.Tool
	Resources []*mcp.Resource
	Templates []*mcp.ResourceTemplate
	Prompts   []*mcp.Prompt
}

// Conn is the front's link to one connector process: a control session
// (lists, subscriptions, completions) and one session per host session.
type Conn struct {
	proc     Process
	client   *http.Client // nil: the SDK's default
	schemas  *schemaBytes // the listed tools' schemas as sent (schemas.go)
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

// viewMIME is the MIME type of an MCP Apps view resource.
const viewMIME = "text/html;profile=mcp-app"

// errNotRunning is what a host sees when no build has succeeded yet.
var errNotRunning = errors.New("the connector is not running: its last build failed; fix the errors mcpgen dev printed and save")

// New returns a front serving nothing yet: it holds the hosts' requests
// that need a connector until FirstBuildDone, and answers them with an
// error while no connector is installed.
func New(opts Options) *Front {
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	name, version := opts.Name, opts.Version
	f := &Front{
		listChanged: opts.ListChanged,
		log:         opts.Log,
		key:         newDevKey(),
		views:       map[string]ir.View{},
		old:         map[string]string{},
		subs:        map[string]int{},
		tools:       map[string]string{},
		res:         map[string]string{},
		tmpl:        map[string]string{},
		proms:       map[string]string{},
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
func (f *Front) acquire() (*Conn, func(), error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.cur
	if c == nil {
		return nil, nil, errNotRunning
	}
	c.inflight.Add(1)
	return c, c.inflight.Done, nil
}
