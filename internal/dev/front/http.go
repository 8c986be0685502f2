package front

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpgen/mcpgen/internal/devlink"
	"github.com/mcpgen/mcpgen/internal/eraroute"
	"github.com/mcpgen/mcpgen/internal/httpedge"
	"github.com/mcpgen/mcpgen/internal/inspector"
	"github.com/mcpgen/mcpgen/internal/msgstream"
)

// maxBody bounds one request body the front holds in memory. The
// connector it runs applies its own limit (--max-body-bytes) when the
// request is forwarded, so this one only needs to be above any limit a
// developer sets.
const maxBody = 64 << 20

// Handler serves the front's MCP endpoint at /mcp, the HTTP+SSE
// transport of 2024-11-05 at /sse and WebSocket at /ws (all three on the
// front's server, so a session on any of them survives rebuilds), behind
// a Host and Origin allow-list (loopback and allow), and rest (the
// inspector) at every other path. The
// SDK's own DNS-rebinding check rejects every non-localhost Host, which
// also rejects a tunnel; this check keeps the protection and admits the
// names the developer allowed.
func (f *Front) Handler(allow []string, rest http.Handler) http.Handler {
	// Both protocol eras, as the built connector serves them: a
	// 2026-07-28 request is served on its own (the front opens a connector
	// session for it), a 2025-11-25 host keeps its session.
	logger := slog.New(slog.NewTextHandler(f.log, &slog.HandlerOptions{Level: slog.LevelWarn}))
	var mcpH http.Handler = eraroute.New(f.srv, eraroute.Options{Sessions: &mcp.StreamableHTTPOptions{}, Logger: logger, MaxBody: maxBody})
	// A task's requests go to the connector as they are (tasks.go).
	mcpH = f.passTasks(mcpH)
	// A call on /sse or /ws is forwarded with its caller's identity like
	// one on /mcp; the connector checks its scopes where it is dispatched.
	cfg := msgstream.Config{Logger: logger}
	streams := msgstream.New(f.srv, cfg)
	sseH, wsH := streams.SSE(), streams.WebSocket()
	mux := http.NewServeMux()
	if f.asrv != nil {
		f.asrv.Mount(mux)
	}
	if f.gate != nil {
		// /sse and /ws are resources of their own, with their own
		// metadata (see authgate.Gate.ForPath).
		sseGate, wsGate := f.gate.ForPath(httpedge.SSEPath), f.gate.ForPath(httpedge.WebSocketPath)
		mcpH, sseH, wsH = f.gate.Wrap(mcpH), sseGate.Wrap(sseH), wsGate.Wrap(wsH)
		f.gate.Mount(mux)
		sseGate.Mount(mux)
		wsGate.Mount(mux)
	}
	mux.Handle("/mcp", guard(allow, mcpH))
	mux.Handle(httpedge.SSEPath, guard(allow, sseH))
	mux.Handle(httpedge.WebSocketPath, guard(allow, wsH))
	// Everything else is the inspector, which checks Host and Origin itself.
	mux.Handle("/", rest)
	return mux
}

// guard admits requests whose Host and Origin are loopback or in allow
// names, and passes the client's address on.
func guard(allow []string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if !hostAllowed(hostOnly(req.Host), allow) {
			http.Error(w, "mcpgen dev: Host "+req.Host+" is not allowed (DNS-rebinding protection); "+
				"start mcpgen dev with --allow-host "+hostOnly(req.Host)+
				" (or MCPGEN_DEV_ALLOW_HOST="+hostOnly(req.Host)+") to accept it", http.StatusForbidden)
			return
		}
		if o := req.Header.Get("Origin"); o != "" {
			name := o
			if u, err := url.Parse(o); err == nil && u.Hostname() != "" {
				name = u.Hostname()
			}
			if !hostAllowed(name, allow) {
				http.Error(w, "mcpgen dev: Origin "+o+" is not allowed; start mcpgen dev with --allow-host "+name+
					" (or MCPGEN_DEV_ALLOW_HOST="+name+") to accept it", http.StatusForbidden)
				return
			}
		}
		// Proxies and tunnels must not buffer the event stream.
		w.Header().Set("X-Accel-Buffering", "no")
		w.Header().Set("Cache-Control", "no-cache")
		// The client's address, for the connector's per-caller limits
		// (forwarding, in auth.go); always overwritten, so a client cannot
		// choose its own.
		addr, _, err := net.SplitHostPort(req.RemoteAddr)
		if err != nil {
			addr = req.RemoteAddr
		}
		req.Header.Set(devlink.CallerAddrHeader, addr)
		next.ServeHTTP(w, req)
	})
}

func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return strings.Trim(hostport, "[]")
}

// hostAllowed reports whether host is loopback or matches an allowed name
// (the same rule as the inspector's routes).
func hostAllowed(host string, allow []string) bool { return inspector.HostAllowed(host, allow) }

// Serve serves one host session over t (stdio, for a host that starts its
// servers itself) until the host or the front ends it.
func (f *Front) Serve(ctx context.Context, t mcp.Transport) (*mcp.ServerSession, error) {
	return f.srv.Connect(ctx, t, nil)
}

// SetStopping tells the front that mcpgen dev is stopping, so a request
// that fails as its connector is stopped says so.
func (f *Front) SetStopping() { f.closing.Store(true) }

// CloseSessions ends every host session, and with it the session's event
// stream (which would otherwise hold an HTTP shutdown for its whole
// timeout).
func (f *Front) CloseSessions() {
	for ss := range f.srv.Sessions() {
		_ = ss.Close()
	}
}

// ResourcesUpdated tells the hosts subscribed to uris that they changed.
func (f *Front) ResourcesUpdated(ctx context.Context, uris []string) {
	for _, u := range uris {
		_ = f.srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: u})
	}
}
