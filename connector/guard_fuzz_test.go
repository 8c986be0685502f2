package connector

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzGuardHost checks the Host and Origin checks against any header
// values and admitted names: they never panic, a loopback listener never
// admits a Host that is neither loopback nor admitted, and a foreign Origin
// is admitted only when listed.
func FuzzGuardHost(f *testing.F) {
	for _, seed := range [][4]string{
		{"connector.example.test", "", "connector.example.test", ""},
		{"Connector.Example.Test:443", "https://app.example.test", "connector.example.test", "https://app.example.test"},
		{"evil.test", "", "connector.example.test", ""},
		{"a.tunnel.test", "", "*.tunnel.test", ""},
		{"tunnel.test", "", "*.tunnel.test", ""},
		{"x.tunnel.test.evil", "", "*.tunnel.test", ""},
		{"[::1]:80", "http://[::1]:80", "", ""},
		{"localhost.evil.test", "http://localhost.evil.test", "", ""},
		{"", "null", "", ""},
		{"127.0.0.1:8080", "https://evil.test", "", "https://app.test"},
	} {
		f.Add(seed[0], seed[1], seed[2], seed[3])
	}
	f.Fuzz(func(t *testing.T, host, origin, allowHost, allowOrigin string) {
		var hosts, origins []string
		if allowHost != "" {
			n, err := hostName(allowHost)
			if err != nil {
				return
			}
			hosts = []string{n}
		}
		if allowOrigin != "" {
			n, err := normalOrigin(allowOrigin)
			if err != nil {
				return
			}
			origins = []string{n}
		}
		passed := false
		g := &guard{next: http.HandlerFunc(func(http.ResponseWriter, *http.Request) { passed = true }), allowed: origins, hosts: hosts}
		r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8080/mcp", nil)
		r.Host = host
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		la := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}
		r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, la))
		w := httptest.NewRecorder()
		g.ServeHTTP(w, r)
		if !passed {
			if w.Code != http.StatusForbidden {
				t.Fatalf("refused with %d", w.Code)
			}
			return
		}
		h := host
		if hh, _, err := net.SplitHostPort(h); err == nil {
			h = hh
		}
		h = strings.TrimSuffix(strings.ToLower(strings.Trim(h, "[]")), ".")
		admitted := isLoopbackHost(h)
		for _, a := range hosts {
			admitted = admitted || a == "*" || a == h || (strings.HasPrefix(a, "*.") && strings.HasSuffix(h, a[1:]))
		}
		if !admitted {
			t.Fatalf("Host %q admitted on a loopback listener with --allow-host %q", host, allowHost)
		}
		if origin != "" && !strings.EqualFold(origin, "null") {
			for _, o := range origins {
				if o == "*" || strings.EqualFold(o, origin) {
					return
				}
			}
			// Otherwise only a loopback origin or the request's own host.
			if !strings.Contains(strings.ToLower(origin), strings.ToLower(host)) && !strings.Contains(strings.ToLower(origin), "localhost") && !strings.Contains(origin, "127.") && !strings.Contains(origin, "::1") && !strings.Contains(origin, "[0:0:0:0:0:0:0:1]") {
				t.Fatalf("Origin %q admitted for Host %q with --allow-origin %q", origin, host, allowOrigin)
			}
		}
	})
}
