// Package hosts is the one copy of two rules about Host headers, shared by
// the runtime's DNS-rebinding guard, the inspector and mcpgen dev: which
// host names are this machine (loopback), and which a list of admitted
// names (--allow-host) lets in.
package hosts

import (
	"net"
	"strings"
)

// Loopback reports whether host (a name or IP, without port; brackets
// around an IPv6 address allowed) always means this machine: "localhost"
// and its subdomains ("app.localhost", which RFC 6761 reserves for
// loopback and browsers resolve to it without asking DNS, so no page can
// rebind it), and loopback addresses (127.0.0.0/8, ::1). A trailing dot and
// letter case do not matter.
func Loopback(host string) bool {
	h := normalize(host)
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// Allowed reports whether host (as for Loopback) is loopback or matches one
// of allow: a name ("mcp.example.com"), "*.example.com" for its subdomains
// (not example.com itself), or "*" for any host.
func Allowed(host string, allow []string) bool {
	if Loopback(host) {
		return true
	}
	h := normalize(host)
	for _, a := range allow {
		a = normalize(a)
		switch {
		case a == "*":
			return true
		case strings.HasPrefix(a, "*."):
			if len(h) > len(a)-1 && strings.HasSuffix(h, a[1:]) {
				return true
			}
		case a != "" && a == h:
			return true
		}
	}
	return false
}

func normalize(h string) string {
	h = strings.TrimSpace(h)
	h = strings.TrimPrefix(strings.TrimSuffix(h, "]"), "[")
	return strings.ToLower(strings.TrimSuffix(h, "."))
}
