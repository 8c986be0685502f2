package httpedge

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
)

func TestClientHost(t *testing.T) {
	lb := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("fd00::/8")}
	for _, c := range []struct {
		name, peer string
		hdr        map[string]string
		ranges     []netip.Prefix
		want       string
	}{
		{"no proxies: header ignored", "203.0.113.9:1", map[string]string{"X-Forwarded-For": "198.51.100.1"}, nil, "203.0.113.9"},
		{"untrusted peer forges XFF", "203.0.113.9:1", map[string]string{"X-Forwarded-For": "198.51.100.1"}, lb, "203.0.113.9"},
		{"untrusted peer forges Forwarded", "203.0.113.9:1", map[string]string{"Forwarded": "for=198.51.100.1"}, lb, "203.0.113.9"},
		{"trusted peer, XFF", "10.1.1.1:5", map[string]string{"X-Forwarded-For": "198.51.100.1"}, lb, "198.51.100.1"},
		{"client prepends a forged hop", "10.1.1.1:5", map[string]string{"X-Forwarded-For": "1.2.3.4, 198.51.100.1"}, lb, "198.51.100.1"},
		{"chain of trusted proxies", "10.1.1.1:5", map[string]string{"X-Forwarded-For": "198.51.100.1, 10.2.2.2"}, lb, "198.51.100.1"},
		{"Forwarded wins over XFF", "10.1.1.1:5", map[string]string{"Forwarded": `for="[2001:db8::7]:443";proto=https, for=10.3.3.3`, "X-Forwarded-For": "1.1.1.1"}, lb, "2001:db8::7"},
		{"Forwarded unknown: peer", "10.1.1.1:5", map[string]string{"Forwarded": "for=unknown"}, lb, "10.1.1.1"},
		{"XFF garbage: peer", "10.1.1.1:5", map[string]string{"X-Forwarded-For": "198.51.100.1, evil"}, lb, "10.1.1.1"},
		{"all trusted: leftmost", "10.1.1.1:5", map[string]string{"X-Forwarded-For": "10.9.9.9"}, lb, "10.9.9.9"},
		{"IPv4-mapped peer", "[::ffff:10.1.1.1]:5", map[string]string{"X-Forwarded-For": "198.51.100.2"}, lb, "198.51.100.2"},
	} {
		r := &http.Request{RemoteAddr: c.peer, Header: http.Header{}}
		for k, v := range c.hdr {
			r.Header.Set(k, v)
		}
		if got := ClientHost(r, c.ranges); got != c.want {
			t.Errorf("%s: clientHost = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestParseTrustedProxies(t *testing.T) {
	got, err := ParseTrustedProxies([]string{"10.0.0.0/8", " 192.168.1.7 ", "fd00::/8"})
	if err != nil || len(got) != 3 || got[1].String() != "192.168.1.7/32" {
		t.Errorf("parseTrustedProxies = %v, %v", got, err)
	}
	if _, err := ParseTrustedProxies([]string{"10.0.0.0/33"}); err == nil || !strings.Contains(err.Error(), `--trusted-proxy "10.0.0.0/33"`) {
		t.Errorf("bad range: %v", err)
	}
}

func FuzzClientHost(f *testing.F) {
	f.Add("10.1.1.1:5", "198.51.100.1, 10.2.2.2", `for="[2001:db8::7]:443";proto=https`)
	f.Add("203.0.113.9:1", "1.2.3.4", "for=1.2.3.4")
	f.Add("10.0.0.1:1", "", `for="\"a,b";by=x, for=_hidden`)
	lb := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	f.Fuzz(func(t *testing.T, peer, xff, fwd string) {
		r := &http.Request{RemoteAddr: peer, Header: http.Header{}}
		if xff != "" {
			r.Header.Set("X-Forwarded-For", xff)
		}
		if fwd != "" {
			r.Header.Set("Forwarded", fwd)
		}
		got := ClientHost(r, lb)
		plain := ClientHost(&http.Request{RemoteAddr: peer}, lb)
		host, _, err := net.SplitHostPort(peer)
		if err != nil {
			host = peer
		}
		a, err := netip.ParseAddr(host)
		if err != nil || !trusted(lb, a) {
			if got != plain {
				t.Fatalf("untrusted peer %q: headers changed the caller to %q (want %q)", peer, got, plain)
			}
			return
		}
		if _, err := netip.ParseAddr(got); err != nil {
			t.Fatalf("trusted peer %q: caller %q is not an address", peer, got)
		}
	})
}
