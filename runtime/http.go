package runtime

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// guard rejects browser requests from foreign origins (DNS rebinding and
// cross-site requests) before they reach the MCP handler. The SDK handler
// itself rejects a non-loopback Host on a loopback listener.
type guard struct {
	next    http.Handler
	allowed []string
}

func (g *guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if origin := r.Header.Get("Origin"); origin != "" && !g.originAllowed(origin, r) {
		http.Error(w, fmt.Sprintf("Forbidden: origin %q may not call this MCP server", origin), http.StatusForbidden)
		return
	}
	if !hostAllowed(r) {
		http.Error(w, fmt.Sprintf("Forbidden: invalid Host header %q", r.Host), http.StatusForbidden)
		return
	}
	g.next.ServeHTTP(w, r)
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

// hostAllowed requires a loopback Host header when the connection came in
// on a loopback address: a DNS-rebinding page reaches 127.0.0.1 under its
// own name.
func hostAllowed(r *http.Request) bool {
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

func isLoopbackHost(h string) bool {
	h = strings.Trim(h, "[]")
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
