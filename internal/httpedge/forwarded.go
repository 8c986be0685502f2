// Package httpedge is the HTTP edge of a connector: it turns a request as it
// arrives (its peer, the proxies it came through) into the facts the rest
// of the connector acts on, such as the address of the calling client; it
// also holds what several handlers share about a request's body and
// paths, and the --healthcheck probe of a running connector.
package httpedge

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// RemoteHost is the address of the client that sent r: the one CallerAddr
// found (the forwarded one behind a trusted proxy), else the TCP peer's.
func RemoteHost(r *http.Request) string {
	if r == nil {
		return ""
	}
	if a := r.Header.Get(CallerHeader); a != "" {
		return a
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// ParseTrustedProxies reads a --trusted-proxy list: CIDR ranges or single
// addresses.
func ParseTrustedProxies(list []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range list {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(s)
		if err != nil {
			return nil, fmt.Errorf("--trusted-proxy %q: want a CIDR range such as 10.0.0.0/8 or an address such as 10.1.2.3", s)
		}
		out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
	}
	return out, nil
}

func trusted(ranges []netip.Prefix, a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range ranges {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// ClientHost returns the address of who sent r: the TCP peer, or, when the
// peer is a trusted proxy, the nearest address in the forwarding chain
// that is not itself a trusted proxy (read right to left, so that what a
// client wrote into the header before the first trusted proxy cannot
// override what the proxies appended). Forwarded (RFC 7239) is read when
// present, else X-Forwarded-For; a chain that cannot be read is ignored.
func ClientHost(r *http.Request, ranges []netip.Prefix) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	if len(ranges) == 0 {
		return host
	}
	peer, err := netip.ParseAddr(host)
	if err != nil || !trusted(ranges, peer) {
		return host
	}
	var chain []netip.Addr
	var ok bool
	if f := r.Header.Values("Forwarded"); len(f) > 0 {
		chain, ok = forwardedFor(f)
	} else {
		chain, ok = xForwardedFor(r.Header.Values("X-Forwarded-For"))
	}
	if !ok {
		return host
	}
	for i := len(chain) - 1; i >= 0; i-- {
		if !trusted(ranges, chain[i]) {
			return chain[i].Unmap().String()
		}
	}
	if len(chain) > 0 {
		return chain[0].Unmap().String()
	}
	return host
}

// xForwardedFor reads X-Forwarded-For: comma-separated addresses, over one
// or more header lines. It reports false when any element is not an
// address.
func xForwardedFor(lines []string) ([]netip.Addr, bool) {
	var out []netip.Addr
	for _, l := range lines {
		for _, e := range strings.Split(l, ",") {
			a, ok := parseNode(strings.TrimSpace(e))
			if !ok {
				return nil, false
			}
			out = append(out, a)
		}
	}
	return out, len(out) > 0
}

// forwardedFor reads the for= parameters of Forwarded (RFC 7239):
// elements separated by commas, pairs by semicolons, values plain or
// quoted; an IPv6 node is bracketed and may carry a port. It reports false
// when an element has no for= address mcpgen can use (obfuscated
// identifiers, "unknown", malformed syntax).
func forwardedFor(lines []string) ([]netip.Addr, bool) {
	var out []netip.Addr
	for _, l := range lines {
		for _, elem := range splitQuoted(l, ',') {
			found := false
			for _, pair := range splitQuoted(elem, ';') {
				k, v, ok := strings.Cut(strings.TrimSpace(pair), "=")
				if !ok {
					return nil, false
				}
				if !strings.EqualFold(strings.TrimSpace(k), "for") {
					continue
				}
				v = strings.TrimSpace(v)
				if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
					v = v[1 : len(v)-1]
				}
				a, ok := parseNode(v)
				if !ok || found {
					return nil, false
				}
				out = append(out, a)
				found = true
			}
			if !found {
				return nil, false
			}
		}
	}
	return out, len(out) > 0
}

// splitQuoted splits s at sep outside double quotes.
func splitQuoted(s string, sep byte) []string {
	var out []string
	quoted, start := false, 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && quoted:
			i++
		case s[i] == '"':
			quoted = !quoted
		case s[i] == sep && !quoted:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// parseNode reads an address as proxies write it: 192.0.2.1,
// 192.0.2.1:443, 2001:db8::1, [2001:db8::1] or [2001:db8::1]:443.
func parseNode(s string) (netip.Addr, bool) {
	if a, err := netip.ParseAddr(s); err == nil && a.Zone() == "" {
		return a, true
	}
	if ap, err := netip.ParseAddrPort(s); err == nil && ap.Addr().Zone() == "" {
		return ap.Addr(), true
	}
	if len(s) > 2 && s[0] == '[' && s[len(s)-1] == ']' {
		if a, err := netip.ParseAddr(s[1 : len(s)-1]); err == nil && a.Is6() && a.Zone() == "" {
			return a, true
		}
	}
	return netip.Addr{}, false
}

// CallerHeader carries the client's address from the HTTP layer to the
// tool handlers (the SDK passes request headers along). It is always
// overwritten, so a client cannot choose its own.
const CallerHeader = "X-Mcpgen-Caller-Addr"

// CallerAddr sets CallerHeader to the client's address: the TCP peer's,
// or the forwarded one when the peer is a trusted proxy (forwarded.go).
func CallerAddr(next http.Handler, proxies []netip.Prefix) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Set(CallerHeader, ClientHost(r, proxies))
		next.ServeHTTP(w, r)
	})
}

// Paths of the message transports in a connector binary, beside /mcp.
const (
	SSEPath       = "/sse"
	WebSocketPath = "/ws"
)
