package connector

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/internal/hosts"
	"github.com/mcpgen/mcpgen/internal/wire"
)

// guard rejects browser requests from foreign origins (DNS rebinding and
// cross-site requests) before they reach the MCP handler. The SDK handler
// itself rejects a non-loopback Host on a loopback listener.
type guard struct {
	next    http.Handler
	allowed []string
	hosts   []string     // admitted Host names besides loopback ones (WithAllowedHosts)
	logger  *slog.Logger // nil: refusals are not logged
	// sessionVersion returns the protocol version a session's client asked
	// for in initialize, or "" for an unknown session.
	sessionVersion func(id string) string
}

func (g *guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if origin := r.Header.Get("Origin"); origin != "" && !g.originAllowed(origin, r) {
		g.refused(r, "origin not admitted (--allow-origin)")
		http.Error(w, fmt.Sprintf("Forbidden: origin %q may not call this MCP server", origin), http.StatusForbidden)
		return
	}
	if !g.hostAllowed(r) {
		g.refused(r, "Host not admitted (--allow-host, --public-url)")
		http.Error(w, fmt.Sprintf("Forbidden: invalid Host header %q", r.Host), http.StatusForbidden)
		return
	}
	g.alignVersion(r)
	g.next.ServeHTTP(w, r)
}

// refused logs why a request was answered 403, so an operator whose proxy
// sends an unexpected name sees which flag to set.
func (g *guard) refused(r *http.Request, why string) {
	if g.logger != nil {
		g.logger.Info("refused", "why", why, "host", r.Host, "origin", r.Header.Get("Origin"), "remote", r.RemoteAddr)
	}
}

// alignVersion lifts the MCP-Protocol-Version header of a request in a
// session negotiated at 2025-11-25 or later when it names an older version.
// The SDK decides per request, from the header, whether a POST stream gets a
// priming event and a retry field; a client that negotiated resumable
// streams but sends an older header (as some do) would otherwise lose them.
func (g *guard) alignVersion(r *http.Request) {
	if g.sessionVersion == nil || r.Method != http.MethodPost {
		return
	}
	id, hv := r.Header.Get("Mcp-Session-Id"), r.Header.Get("Mcp-Protocol-Version")
	if id == "" || hv == "" || hv >= wire.ResumableVersion || !wire.Supported(hv) {
		return
	}
	if sv := g.sessionVersion(id); sv >= wire.ResumableVersion {
		r.Header.Set("Mcp-Protocol-Version", wire.ResumableVersion)
	}
}

func (g *guard) originAllowed(origin string, r *http.Request) bool {
	if slices.Contains(g.allowed, origin) || slices.Contains(g.allowed, "*") {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	if isLoopbackHost(u.Hostname()) {
		return true
	}
	return strings.EqualFold(u.Host, r.Host)
}

// hostAllowed admits a loopback Host header, and an admitted name
// (--allow-host, --public-url). With no admitted names it requires a
// loopback Host only when the connection came in on a loopback address: a
// DNS-rebinding page reaches 127.0.0.1 under its own name.
func (g *guard) hostAllowed(r *http.Request) bool {
	if len(g.hosts) > 0 {
		h := r.Host
		if hh, _, err := net.SplitHostPort(h); err == nil {
			h = hh
		}
		return hosts.Allowed(h, g.hosts)
	}
	la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || la == nil {
		return true
	}
	host, _, err := net.SplitHostPort(la.String())
	if err != nil || !isLoopbackHost(host) {
		return true
	}
	h := r.Host
	if hh, _, err := net.SplitHostPort(h); err == nil {
		h = hh
	}
	return isLoopbackHost(h)
}

// isLoopbackHost reports whether h (no port) always means this machine
// (hosts.Loopback: localhost, *.localhost, loopback addresses).
func isLoopbackHost(h string) bool { return hosts.Loopback(h) }
