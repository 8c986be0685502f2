package connector_test

import (
	"crypto/rand"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/connector"
	"github.com/mcpgen/mcpgen/internal/authgate"
)

// TestIntrospectionAmplification: with --auth-introspection, made-up
// opaque tokens sent by anyone cost a bounded number of calls to the
// authorization server, counted at a real introspection endpoint: one
// client gets its first tokens checked (401), then 429 with Retry-After;
// another client then meets the bound for all callers (503); and a token
// refused a moment ago is answered from the cache.
func TestIntrospectionAmplification(t *testing.T) {
	t.Parallel()
	is := newAuthIssuer(t)
	var calls atomic.Int32
	intro := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"active":false}`))
	}))
	t.Cleanup(intro.Close)
	base, log := serveAuth(t, authApp(), authgate.Auth{Issuer: is.URL, IntrospectionURL: intro.URL, ClientID: "rs", ClientSecret: "secret",
		IntrospectionCallerLimit: connector.Rate{N: 5, Per: time.Hour}, IntrospectionLimit: connector.Rate{N: 8, Per: time.Hour}})
	from := func(ip string) *http.Client {
		tr := &http.Transport{DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}).DialContext}
		t.Cleanup(tr.CloseIdleConnections)
		return &http.Client{Transport: tr}
	}
	send := func(c *http.Client, token string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(authInitBody))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	count := func(c *http.Client, n int) map[int]int {
		codes := map[int]int{}
		for range n {
			resp := send(c, rand.Text())
			codes[resp.StatusCode]++
			if resp.StatusCode != http.StatusUnauthorized && resp.Header.Get("Retry-After") == "" {
				t.Errorf("%d without Retry-After", resp.StatusCode)
			}
		}
		return codes
	}

	one := from("127.0.0.1")
	if codes := count(one, 100); codes[http.StatusUnauthorized] != 5 || codes[http.StatusTooManyRequests] != 95 {
		t.Errorf("100 made-up tokens from one client: %v; want 5×401 then 95×429", codes)
	}
	if n := calls.Load(); n != 5 {
		t.Errorf("one client's 100 made-up tokens made %d introspection calls, want 5", n)
	}
	if codes := count(from("127.0.0.2"), 20); codes[http.StatusUnauthorized] != 3 || codes[http.StatusServiceUnavailable] != 17 {
		t.Errorf("20 more from another client: %v; want 3×401 (the bound for all: 8) then 17×503", codes)
	}
	if n := calls.Load(); n != 8 {
		t.Errorf("%d introspection calls in all, want 8", n)
	}
	for _, want := range []string{"auth: too many unknown tokens from this caller", "auth: too many unknown tokens from all callers"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the log does not say %q:\n%s", want, log.String())
		}
	}
}

// TestIntrospectionDefaultBound: without any limit set, one client's
// made-up opaque tokens cost at most 60 introspection calls a minute
// (oauth.DefaultIntrospectionCallerLimit); the rest are answered 429.
func TestIntrospectionDefaultBound(t *testing.T) {
	t.Parallel()
	is := newAuthIssuer(t)
	var calls atomic.Int32
	intro := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"active":false}`))
	}))
	t.Cleanup(intro.Close)
	base, _ := serveAuth(t, authApp(), authgate.Auth{Issuer: is.URL, IntrospectionURL: intro.URL, ClientID: "rs", ClientSecret: "secret"})
	codes := map[int]int{}
	for range 80 {
		codes[authPost(t, base+"/mcp", rand.Text(), authInitBody).StatusCode]++
	}
	if n := calls.Load(); n != 60 || codes[http.StatusTooManyRequests] != 20 {
		t.Errorf("80 made-up tokens from one client: %d introspection calls (want 60), answers %v (want 20×429)", n, codes)
	}
}
