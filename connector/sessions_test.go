package connector_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/connector"
	"github.com/mcpgen/mcpgen/internal/authgate"
	"github.com/mcpgen/mcpgen/internal/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionClient is an HTTP client whose connections come from one
// loopback address: one caller, for the per-caller session bounds.
type sessionClient struct {
	t   *testing.T
	url string
	hc  *http.Client
}

func newSessionClient(t *testing.T, url, from string) *sessionClient {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	tr := &http.Transport{DialContext: d.DialContext}
	t.Cleanup(tr.CloseIdleConnections)
	return &sessionClient{t: t, url: url, hc: &http.Client{Transport: tr, Timeout: 20 * time.Second}}
}

func (c *sessionClient) do(method, body string, h map[string]string) (*http.Response, string) {
	c.t.Helper()
	req, _ := http.NewRequest(method, c.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range h {
		req.Header.Set(k, v)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

// open initializes a session; it returns the headers that address it, or
// nil and the refusal.
func (c *sessionClient) open() (map[string]string, *http.Response, string) {
	c.t.Helper()
	resp, body := c.do("POST", initBody, nil)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		return nil, resp, body
	}
	h := map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25"}
	c.do("POST", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, h)
	return h, resp, body
}

// listen opens the session's GET event stream and keeps it open until the
// test ends.
func (c *sessionClient) listen(h map[string]string) {
	c.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", c.url, nil)
	req.Header.Set("Accept", "text/event-stream")
	for k, v := range h {
		req.Header.Set(k, v)
	}
	tr := c.hc.Transport.(*http.Transport).Clone() // a connection of its own
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		cancel()
		c.t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		cancel()
		c.t.Fatalf("GET stream: %s", resp.Status)
	}
	c.t.Cleanup(func() { cancel(); resp.Body.Close(); tr.CloseIdleConnections() })
}

// alive reports whether the session still serves.
func (c *sessionClient) alive(h map[string]string) bool {
	c.t.Helper()
	resp, body := c.do("POST", `{"jsonrpc":"2.0","id":7,"method":"ping"}`, h)
	if resp.StatusCode == http.StatusNotFound && strings.Contains(body, "-32001") {
		return false
	}
	if resp.StatusCode != http.StatusOK {
		c.t.Fatalf("ping: %s %s", resp.Status, body)
	}
	return true
}

// wantRetryLater checks the answer to a refused initialize: status,
// Retry-After and a JSON-RPC error a client understands, naming the
// request.
func wantRetryLater(t *testing.T, what string, resp *http.Response, body string, status int) {
	t.Helper()
	if resp.StatusCode != status {
		t.Fatalf("%s: %s %s, want %d", what, resp.Status, body, status)
	}
	if resp.Header.Get("Retry-After") == "" {
		t.Errorf("%s: no Retry-After", what)
	}
	var r rpcReply
	if err := json.Unmarshal([]byte(body), &r); err != nil || r.Error == nil || r.Error.Code != wire.CodeRetryLater || string(r.ID) != "1" {
		t.Errorf("%s: body %s, want a JSON-RPC error %d for id 1", what, body, wire.CodeRetryLater)
	}
}

// TestSessionBounds checks the bounds on sessions: a caller over its bound
// loses its least recently used idle session, or is refused (429) when all
// of its sessions are in use; past the total bound every caller is
// refused (503); and a session given back makes room.
func TestSessionBounds(t *testing.T) {
	t.Parallel()
	s, err := connector.NewServer(testApp(newProbe()), connector.WithLogger(quietLogger(nil)), connector.WithMaxSessions(6, 3))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	a := newSessionClient(t, ts.URL, "127.0.0.1")
	b := newSessionClient(t, ts.URL, "127.0.0.2")
	c := newSessionClient(t, ts.URL, "127.0.0.3")

	var as []map[string]string
	for range 3 {
		h, resp, body := a.open()
		if h == nil {
			t.Fatalf("session within the bounds: %s %s", resp.Status, body)
		}
		as = append(as, h)
	}
	a.listen(as[1])
	a.listen(as[2])
	// A fourth session of a: its idle one (as[0]) makes room.
	h, resp, body := a.open()
	if h == nil {
		t.Fatalf("a fourth session with one idle: %s %s", resp.Status, body)
	}
	if a.alive(as[0]) {
		t.Error("the least recently used idle session is still open")
	}
	if !a.alive(as[1]) || !a.alive(as[2]) {
		t.Error("a session with an open stream was closed")
	}
	a.listen(h)
	// A fifth, with all three in use: refused.
	_, resp, body = a.open()
	wantRetryLater(t, "a caller over its bound", resp, body, http.StatusTooManyRequests)

	// Another caller has sessions of its own, up to the total bound.
	var bs []map[string]string
	for range 3 {
		h, resp, body := b.open()
		if h == nil {
			t.Fatalf("another caller: %s %s", resp.Status, body)
		}
		bs = append(bs, h)
	}
	_, resp, body = c.open()
	wantRetryLater(t, "past the total bound", resp, body, http.StatusServiceUnavailable)
	if n := connector.SessionCount(s); n != 6 {
		t.Errorf("%d sessions open, want 6", n)
	}
	// A session closed (DELETE) makes room.
	if resp, body := b.do("DELETE", "", bs[0]); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %s %s", resp.Status, body)
	}
	waitFor(t, "the closed session's slot", func() bool {
		h, _, _ := c.open()
		return h != nil
	})
}

// TestSessionFlood is the attack: one client opens sessions as fast as it
// can and abandons them. With the default bounds it never holds more than
// defaultMaxSessionsPerCaller of them, in the go-sdk and in the fast
// path's tables, and every initialize is answered.
func TestSessionFlood(t *testing.T) {
	t.Parallel()
	t.Run("event store", func(t *testing.T) { t.Parallel(); sessionFlood(t) })
	// Without one, the table learns of closed sessions another way.
	t.Run("no event store", func(t *testing.T) { t.Parallel(); sessionFlood(t, connector.WithEventStore(nil)) })
}

func sessionFlood(t *testing.T, opts ...connector.Option) {
	s, err := connector.NewServer(testApp(newProbe()), append(opts, connector.WithLogger(quietLogger(nil)))...)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	a := newSessionClient(t, ts.URL, "127.0.0.1")
	const n = 3 * connector.DefaultMaxSessionsPerCaller
	for i := range n {
		resp, body := a.do("POST", initBody, nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("initialize %d: %s %s", i, resp.Status, body)
		}
	}
	waitFor(t, "the evicted sessions to close", func() bool {
		return connector.SessionCount(s) <= connector.DefaultMaxSessionsPerCaller && connector.FastSessionCount(s) <= connector.DefaultMaxSessionsPerCaller
	})
	t.Logf("%d initializes from one caller: %d sessions open", n, connector.SessionCount(s))
}

// TestListeningKeepsSession checks that a session whose client only
// listens (a GET event stream, subscribed to a resource) outlives the idle
// timeout with its subscription, while a session without a stream expires.
func TestListeningKeepsSession(t *testing.T) {
	t.Parallel()
	url := serveHTTP(t, testApp(newProbe()), connector.WithSessionIdle(300*time.Millisecond))
	updated := make(chan string, 8)
	listener := httpClient(t, url, "2025-11-25", &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) { updated <- r.Params.URI },
	})
	if err := listener.Subscribe(context.Background(), &mcp.SubscribeParams{URI: "test://watched"}); err != nil {
		t.Fatal(err)
	}
	// A change made by another session reaches the listener: its stream is
	// open.
	other := httpClient(t, url, "2025-11-25", nil)
	call(t, other, "touch", nil)
	select {
	case <-updated:
	case <-time.After(10 * time.Second):
		t.Fatal("no notification on the listener's stream")
	}
	// A session opened after the listener's last request expires: the
	// listener has been idle for longer than that, requests counted alone.
	c := newSessionClient(t, url, "127.0.0.1")
	h, resp, body := c.open()
	if h == nil {
		t.Fatalf("%s %s", resp.Status, body)
	}
	deadline := time.Now().Add(10 * time.Second)
	for c.alive(h) {
		if time.Now().After(deadline) {
			t.Fatal("a session without requests or streams did not expire")
		}
		time.Sleep(400 * time.Millisecond) // longer than the idle timeout
	}
	// A change made by another session (a new one: the first expired too)
	// still reaches the listener.
	call(t, httpClient(t, url, "2025-11-25", nil), "touch", nil)
	select {
	case <-updated:
	case <-time.After(10 * time.Second):
		t.Fatal("the listening session lost its subscription: it was closed while its stream was open")
	}
	if err := listener.Ping(context.Background(), nil); err != nil {
		t.Errorf("the listening session: %v", err)
	}
}

// TestExpiredSessionsMakeRoom checks that sessions closed by the idle
// timeout give their slots back, with and without an event store.
func TestExpiredSessionsMakeRoom(t *testing.T) {
	t.Parallel()
	for name, opts := range map[string][]connector.Option{"event store": nil, "no event store": {connector.WithEventStore(nil)}} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			url := serveHTTP(t, testApp(newProbe()), append(opts, connector.WithMaxSessions(2, -1), connector.WithSessionIdle(200*time.Millisecond))...)
			c := newSessionClient(t, url, "127.0.0.1")
			for range 2 {
				if h, resp, body := c.open(); h == nil {
					t.Fatalf("%s %s", resp.Status, body)
				}
			}
			_, resp, body := c.open()
			wantRetryLater(t, "a third session", resp, body, http.StatusServiceUnavailable)
			deadline := time.Now().Add(10 * time.Second)
			for {
				h, resp, body := c.open()
				if h != nil {
					break
				}
				if resp.StatusCode != http.StatusServiceUnavailable || time.Now().After(deadline) {
					t.Fatalf("after the idle timeout: %s %s", resp.Status, body)
				}
				time.Sleep(100 * time.Millisecond)
			}
		})
	}
}

// TestSessionBoundsPerSubject checks that with auth the caller is the
// token's subject: two users at one address have a bound each, and one
// user's new session never closes the other's.
func TestSessionBoundsPerSubject(t *testing.T) {
	t.Parallel()
	is := newAuthIssuer(t)
	base, _ := serveAuth(t, authApp(), authgate.Auth{Issuer: is.URL}, connector.WithMaxSessions(-1, 1))
	url := base + "/mcp"
	exp := time.Now().Add(time.Hour)
	tokens := map[string]string{"ann": is.token(t, "ann", url, "", exp), "bob": is.token(t, "bob", url, "", exp)}
	open := func(who string) string {
		t.Helper()
		resp := authPost(t, url, tokens[who], authInitBody)
		sid := resp.Header.Get("Mcp-Session-Id")
		if resp.StatusCode != http.StatusOK || sid == "" {
			t.Fatalf("%s's initialize: %s", who, resp.Status)
		}
		return sid
	}
	alive := func(who, sid string) bool {
		t.Helper()
		req, _ := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Authorization", "Bearer "+tokens[who])
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}
	ann1 := open("ann")
	bob1 := open("bob")
	if !alive("ann", ann1) || !alive("bob", bob1) {
		t.Fatal("two users at one address: a session was closed for the other's")
	}
	ann2 := open("ann") // over ann's bound: her idle session makes room
	if alive("ann", ann1) {
		t.Error("ann's first session is still open past her bound")
	}
	if !alive("ann", ann2) || !alive("bob", bob1) {
		t.Error("ann's new session closed another session than her own")
	}
}

// TestSessionInUseKept checks that a session in use past its idle timeout
// and past the park delay is neither closed nor parked while in use: the
// idle timers, armed once, wait out each spell of activity when they
// fire. Left alone, it is parked, then closed.
func TestSessionInUseKept(t *testing.T) {
	t.Parallel()
	const idle, parkAfter = 1500 * time.Millisecond, 300 * time.Millisecond
	// Parked once initialized; a ping goes to the go-sdk session, which
	// brings it back.
	s, c, h := parkedSession(t, connector.WithLogger(quietLogger(nil)), connector.WithSessionIdle(idle))
	connector.SetParkAfter(s, parkAfter)
	if !c.alive(h) {
		t.Fatal("the session expired at once")
	}
	// The assertions hold only while the test itself keeps the session
	// busy: a stall of the machine longer than half a delay since the
	// last request (measured from the client's side, after the server's
	// end of it) lets the session idle for real.
	last := time.Now()
	for end := time.Now().Add(3 * idle); time.Now().Before(end); time.Sleep(parkAfter / 4) {
		gap := time.Since(last)
		if gap >= idle/2 {
			t.Skipf("the test stalled for %v, long enough for the session to expire", gap)
		}
		if gap < parkAfter/2 && connector.ParkedCount(s) != 0 {
			t.Fatalf("the session was parked while in use (%v since its last request)", gap)
		}
		if !c.alive(h) {
			t.Fatal("the session was closed while in use")
		}
		last = time.Now()
	}
	waitFor(t, "the idle session parked", func() bool { return connector.ParkedCount(s) == 1 })
	waitFor(t, "the idle session closed", func() bool { return connector.SessionCount(s) == 0 })
}
