package connector

import (
	"log/slog"
	"net/netip"
	"time"

	"github.com/mcpgen/mcpgen/connector/store"
	"github.com/mcpgen/mcpgen/connector/telemetry"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type options struct {
	logger         *slog.Logger
	maxResultChars int
	stateless      bool
	eventStore     mcp.EventStore
	state          store.Store
	noEventStore   bool
	instructions   string
	openAI         bool
	maxBodyBytes   int64
	allowedOrigins []string
	allowedHosts   []string                    // deploy.go
	publicURL      string                      // deploy.go; also the OAuth resource
	lookupEnv      func(string) (string, bool) // Run only
	pageSize       int
	stateKey       []byte
	oldStateKeys   [][]byte // also accepted (WithStateKeys)
	trustedProxies []netip.Prefix
	sessionIdle    time.Duration
	askTimeout     time.Duration
	auth           *Auth            // auth.go
	authUpstream   *AuthUpstream    // authupstream.go
	rateLimit      Rate             // ratelimit.go
	now            func() time.Time // the memory state store; time.Now when nil
	maxLineBytes   int
	devFrontKey    string // devfront.go
	readTimeout    time.Duration
	idleTimeout    time.Duration
	streams        streamOptions        // streamserve.go
	telemetry      *telemetry.Telemetry // observe.go

	maxSessions, maxSessionsPerCaller int // sessions.go
}

// Option configures NewServer.
type Option func(*options)

// WithAllowedHosts adds host names (such as a proxy's public name) the
// HTTP endpoint answers besides loopback names; "*" admits every name. With
// none, a request that came in on a loopback address must carry a loopback
// Host (DNS-rebinding protection) and other requests may carry any; with
// some, every request must carry a loopback or an admitted Host.
func WithAllowedHosts(hosts ...string) Option {
	return func(o *options) { o.allowedHosts = append(o.allowedHosts, hosts...) }
}

// WithAllowedOrigins adds browser origins (such as "https://app.example.com")
// allowed to call the HTTP endpoint ("*" allows every origin). Loopback
// origins and the server's own host are always allowed; any other Origin is
// answered 403.
func WithAllowedOrigins(origins ...string) Option {
	return func(o *options) { o.allowedOrigins = append(o.allowedOrigins, origins...) }
}

// WithAuth requires a valid bearer token on every HTTP request, serves the
// protected-resource metadata (RFC 9728), answers tools/call, resources/read
// and prompts/get lacking a declared scope with 403 insufficient_scope, and
// makes the caller's Identity available to handlers. It needs the public
// URL (WithPublicURL), which names the protected resource. stdio is not
// affected: a process the host spawns has no tokens.
func WithAuth(a Auth) Option { return func(o *options) { o.auth = &a } }

// WithAuthUpstream makes the connector its own authorization server in
// front of an upstream identity provider: it serves the OAuth metadata,
// registration, authorize, token and revocation endpoints, and requires
// its own access tokens on every HTTP request as WithAuth does. It needs
// the public URL (WithPublicURL) and excludes WithAuth. The flow's state
// is in the server's store (WithStore), so replicas sharing one may each
// serve a leg of a sign-in.
func WithAuthUpstream(u AuthUpstream) Option { return func(o *options) { o.authUpstream = &u } }

// WithClientRequestTimeout bounds how long a request to the client
// (sampling, elicitation) waits for its answer (defaultClientRequestTimeout
// when unset); the handler then gets an error.
func WithClientRequestTimeout(d time.Duration) Option { return func(o *options) { o.askTimeout = d } }

// withDevFront makes the server trust the identity mcpgen dev's front
// forwards, on requests proving they come from it with key. Run sets it
// from $MCPGEN_DEV_FRONT_KEY.
func withDevFront(key string) Option { return func(o *options) { o.devFrontKey = key } }

// WithEnv sets how Run reads environment variables (os.LookupEnv by
// default), for tests and for programs that embed a connector.
func WithEnv(lookup func(string) (string, bool)) Option {
	return func(o *options) { o.lookupEnv = lookup }
}

// WithEventStore sets where HTTP stream events are kept for resumption
// (Last-Event-ID). The default is an in-memory store; nil disables
// resumption.
func WithEventStore(store mcp.EventStore) Option {
	return func(o *options) { o.eventStore = store; o.noEventStore = store == nil }
}

// WithHTTPTimeouts sets how long the connector binary's HTTP server waits
// for a request with its body (defaultReadTimeout when 0) and keeps an idle
// connection (defaultIdleTimeout when 0). Event streams are not bounded:
// they stay open while their clients keep them.
func WithHTTPTimeouts(read, idle time.Duration) Option {
	return func(o *options) { o.readTimeout, o.idleTimeout = read, idle }
}

// WithInstructions sets the server instructions sent to clients at
// initialization, overriding App.Instructions.
func WithInstructions(s string) Option { return func(o *options) { o.instructions = s } }

// WithLogger sets the logger for server activity (errors, panics with their
// stack). The default writes text to stderr at level Info.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// WithMaxBodyBytes limits the size of one HTTP request body
// (defaultMaxBodyBytes when unset); larger bodies are answered 413.
func WithMaxBodyBytes(n int64) Option { return func(o *options) { o.maxBodyBytes = n } }

// WithMaxLineBytes sets the limit on one line read by ServeIO and
// ServeStdio (defaultMaxLineBytes when unset).
func WithMaxLineBytes(n int) Option { return func(o *options) { o.maxLineBytes = n } }

// WithMaxResultChars sets the default cap on the text of one tool result
// (defaultMaxResultChars when unset). App.MaxResultChars and a tool's own
// MaxResultChars take precedence.
func WithMaxResultChars(n int) Option { return func(o *options) { o.maxResultChars = n } }

// WithMaxSessions bounds the HTTP sessions held at once: total in all
// (defaultMaxSessions when 0) and perCaller for one caller, the verified
// subject with auth or the client address without
// (defaultMaxSessionsPerCaller when 0); a negative value sets no bound.
//
// An initialize over the caller's bound first closes that caller's least
// recently used idle session (one with no request in progress and no open
// event stream: a client that restarted and left it behind); when every
// one of them is in use, the initialize is answered 429. One over the
// total bound is answered 503: the server never closes one caller's
// session for another. Both answers carry Retry-After and a JSON-RPC
// error with code wire.CodeRetryLater.
func WithMaxSessions(total, perCaller int) Option {
	return func(o *options) { o.maxSessions, o.maxSessionsPerCaller = total, perCaller }
}

// WithOpenAIMeta also emits the keys older ChatGPT hosts read
// (_meta["openai/outputTemplate"] on tools with a view).
func WithOpenAIMeta(on bool) Option { return func(o *options) { o.openAI = on } }

// WithPageSize sets how many items one page of tools/list, resources/list
// and prompts/list holds.
func WithPageSize(n int) Option { return func(o *options) { o.pageSize = n } }

// WithPublicURL sets the URL clients use to reach the server, such as
// https://mcp.example.com behind a proxy (--public-url). Its host and
// origin are admitted by the Host and Origin checks, and OAuth metadata
// names it as the protected resource.
func WithPublicURL(u string) Option { return func(o *options) { o.publicURL = u } }

// WithRateLimit limits tools/call per caller across all tools: per
// subject with auth, per client address without (--rate-limit). A call
// over the limit gets an isError result saying when to retry.
func WithRateLimit(r Rate) Option { return func(o *options) { o.rateLimit = r } }

// WithSSE turns the HTTP+SSE transport of 2024-11-05 at /sse on or off
// (on by default; off with WithStateless, whose replicas cannot route a
// POST to the process holding its stream).
func WithSSE(on bool) Option { return func(o *options) { o.streams.noSSE = !on } }

// WithSessionIdle closes HTTP sessions that receive no request for d
// (defaultSessionIdle when unset; a negative d keeps idle sessions forever).
// A session is idle while no request of it is in progress and it has no
// event stream open: a client listening for notifications on its GET
// stream keeps its session. A client that comes back after that gets 404
// with JSON-RPC error -32001 and starts a new session.
func WithSessionIdle(d time.Duration) Option { return func(o *options) { o.sessionIdle = d } }

// WithStateKey sets the secret that signs the requestState of tool calls
// that ask the client questions under MCP 2026-07-28. By default it is a
// random key kept in the state store (see WithStore): one per process with
// the in-memory store, one for every replica sharing a store. Replicas
// behind one load balancer need the same key.
func WithStateKey(key []byte) Option { return func(o *options) { o.stateKey = key } }

// WithStateKeys is WithStateKey for a key rotation: requestState is signed
// with the first key, and one signed with any of them is accepted.
func WithStateKeys(keys ...[]byte) Option {
	return func(o *options) {
		if len(keys) > 0 {
			o.stateKey, o.oldStateKeys = keys[0], keys[1:]
		}
	}
}

// WithStateless serves HTTP without sessions (MCP 2026-07-28 stateless
// mode): each request stands alone, so resource subscriptions, server-to-
// client requests (sampling, elicitation), stream resumption and a per-
// session log level are unavailable.
func WithStateless(stateless bool) Option { return func(o *options) { o.stateless = stateless } }

// WithStore sets where the server keeps its state: rate-limit buckets, task
// records (so that any replica sharing the store answers for a task), the
// events kept for resumption (unless WithEventStore says otherwise) and
// the key that signs requestState (unless WithStateKey gives one). The
// default is an in-memory store of its own (store.NewMemory). The server
// does not close it.
func WithStore(st store.Store) Option { return func(o *options) { o.state = st } }

// WithStreamTimeouts sets how long one message to an HTTP+SSE or
// WebSocket client may take to write (defaultStreamWriteTimeout when 0)
// and how often idle streams and sockets get a keep-alive
// (defaultStreamKeepAlive when 0). Their sessions count toward
// WithMaxSessions with those of /mcp.
func WithStreamTimeouts(writeTimeout, keepAlive time.Duration) Option {
	return func(o *options) { o.streams.writeTimeout, o.streams.keepAlive = writeTimeout, keepAlive }
}

// WithTelemetry records a span and metrics for every request through t
// (see package telemetry). Without it, or with nil, the server records
// nothing and pays nothing for it.
func WithTelemetry(t *telemetry.Telemetry) Option { return func(o *options) { o.telemetry = t } }

// WithTrustedProxies names the reverse proxies and load balancers in front
// of the server: only a request whose TCP peer is inside one of these
// ranges has its caller (for rate limits and per-caller bounds) taken from
// its Forwarded or X-Forwarded-For header, else the header is ignored, so
// a forged one from anyone else changes nothing.
func WithTrustedProxies(ranges []netip.Prefix) Option {
	return func(o *options) { o.trustedProxies = ranges }
}

// WithWebSocket turns the WebSocket transport at /ws on or off (on by
// default).
func WithWebSocket(on bool) Option { return func(o *options) { o.streams.noWebSocket = !on } }

// defaultDrain is how long a connector binary lets calls in flight finish
// after SIGTERM or SIGINT (--drain). It stays under the 30 s that Docker,
// Kubernetes and systemd wait before they kill a process.
const defaultDrain = 25 * time.Second

// defaultEventStoreBytes is how much stream data the default event store
// keeps for resumption, over all sessions.
const defaultEventStoreBytes = store.DefaultEventBytes

// defaultEventStoreStreams is how many response streams of one session the
// default event store keeps for resumption; older ones are dropped.
const defaultEventStoreStreams = store.DefaultEventStreams

// defaultAddr is where a connector binary serves HTTP unless --addr,
// MCPGEN_ADDR or PORT says otherwise.
const defaultAddr = "127.0.0.1:8080"

// defaultMaxResultChars is the default cap on the text of one tool result:
// about 25,000 tokens at four characters a token, the hard limit chat hosts
// apply by default. Text beyond it is cut with a notice, never an error.
const defaultMaxResultChars = 100_000

// defaultMaxBodyBytes is the default limit on one HTTP request body; larger
// bodies are answered 413.
const defaultMaxBodyBytes = 4 << 20

// defaultSessionIdle is how long an HTTP session may go without a request
// before it is closed and its memory released.
const defaultSessionIdle = 30 * time.Minute

// defaultClientRequestTimeout is how long a request to the client
// (sampling, elicitation, roots) waits for its answer.
const defaultClientRequestTimeout = 5 * time.Minute

// defaultReadTimeout bounds how long a connector binary waits for one
// HTTP request, body included: a client sending its body slowly cannot
// hold a connection for longer.
const defaultReadTimeout = 30 * time.Second

// defaultIdleTimeout is how long a connector binary keeps an idle
// keep-alive HTTP connection open.
const defaultIdleTimeout = 2 * time.Minute

// defaultMaxSessions is how many HTTP sessions a server holds at once
// unless WithMaxSessions says otherwise. A session costs some 20 KiB (heap
// and goroutine stacks), so the default holds about 100 MB.
const defaultMaxSessions = 5000

// defaultMaxSessionsPerCaller is how many HTTP sessions one caller (a
// token's subject with auth, a client address without) holds at once
// unless WithMaxSessions says otherwise.
const defaultMaxSessionsPerCaller = 100

// defaultMaxLineBytes is the default limit on one line of JSON-RPC read in
// --stdio mode (--stdio-max-line). A longer line is answered with an error
// and skipped; the connector goes on serving.
const defaultMaxLineBytes = 16 << 20
