package connector

import (
	"net"
	"net/http"
	"net/netip"
	"os"
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
		if got := clientHost(r, c.ranges); got != c.want {
			t.Errorf("%s: clientHost = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestParseTrustedProxies(t *testing.T) {
	got, err := parseTrustedProxies([]string{"10.0.0.0/8", " 192.168.1.7 ", "fd00::/8"})
	if err != nil || len(got) != 3 || got[1].String() != "192.168.1.7/32" {
		t.Errorf("parseTrustedProxies = %v, %v", got, err)
	}
	if _, err := parseTrustedProxies([]string{"10.0.0.0/33"}); err == nil || !strings.Contains(err.Error(), `--trusted-proxy "10.0.0.0/33"`) {
		t.Errorf("bad range: %v", err)
	}
}

// FuzzClientHost: whatever the headers, the caller is the peer unless the
// peer is trusted, and is always an address.
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
		got := clientHost(r, lb)
		plain := clientHost(&http.Request{RemoteAddr: peer}, lb)
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

func TestParseStateKeys(t *testing.T) {
	file := t.TempDir() + "/key"
	if err := os.WriteFile(file, []byte("  file-key-0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	keys, err := parseStateKeys("new-key-0123456789abcdef,@" + file)
	if err != nil || len(keys) != 2 || string(keys[0]) != "new-key-0123456789abcdef" || string(keys[1]) != "file-key-0123456789abcdef" {
		t.Fatalf("parseStateKeys = %q, %v", keys, err)
	}
	for v, want := range map[string]string{
		"short":                     "key 1 is 5 bytes; want at least 16",
		"new-key-0123456789abcdef,": "key 2 is 0 bytes",
		"@/nonexistent/key":         "--state-key: key 1: open /nonexistent/key",
	} {
		if _, err := parseStateKeys(v); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parseStateKeys(%q) = %v; want %q", v, err, want)
		}
	}
}

// TestStateKeyRotation: requestState signed with an old key is accepted
// by a server that signs with a new one, and one signed with an unknown
// key is refused.
func TestStateKeyRotation(t *testing.T) {
	old := &Server{stateKey: []byte("old-key-0123456789abcdef")}
	st, err := old.signState(roundState{Tool: "t"})
	if err != nil {
		t.Fatal(err)
	}
	rotated := &Server{stateKey: []byte("new-key-0123456789abcdef"), opts: options{oldStateKeys: [][]byte{old.stateKey}}}
	if _, err := rotated.openState("t", st); err != nil {
		t.Errorf("state signed with the old key refused after rotation: %v", err)
	}
	other := &Server{stateKey: []byte("new-key-0123456789abcdef")}
	if _, err := other.openState("t", st); err == nil {
		t.Error("state signed with a key the server does not hold was accepted")
	}
}
