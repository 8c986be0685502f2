package dev

import (
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpgen/mcpgen/internal/inspector"
	"github.com/mcpgen/mcpgen/runtime"
)

// handler serves the front's MCP endpoint at /mcp behind a Host and Origin
// allow-list, and the inspector at every other path. The SDK's own DNS-rebinding check rejects every non-localhost
// Host, which also rejects a tunnel; this check keeps the protection and
// admits the names the developer allowed.
func (r *runner) handler() http.Handler {
	var mcpH http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return r.front.srv },
		&mcp.StreamableHTTPOptions{DisableLocalhostProtection: true})
	allow := r.opts.AllowHosts
	mux := http.NewServeMux()
	if r.asrv != nil {
		r.asrv.Mount(mux)
	}
	if r.gate != nil {
		mcpH = r.gate.Wrap(mcpH)
		r.gate.Mount(mux)
	}
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, req *http.Request) {
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
		// (forwarding, auth.go); always overwritten, so a client cannot
		// choose its own.
		addr, _, err := net.SplitHostPort(req.RemoteAddr)
		if err != nil {
			addr = req.RemoteAddr
		}
		req.Header.Set(runtime.DevCallerAddrHeader, addr)
		mcpH.ServeHTTP(w, req)
	})
	// Everything else is the inspector, which checks Host and Origin itself.
	mux.Handle("/", r.insp)
	return mux
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
