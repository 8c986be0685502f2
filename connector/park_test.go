package connector_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/connector"
	"github.com/mcpgen/mcpgen/internal/authgate"
)

// parkApp is testApp with a tool, served by the fast path, that reads the
// go-sdk session of its call.
func parkApp() *connector.App {
	app := testApp(newProbe())
	app.Tools = append(app.Tools, connector.Tool{
		Name: "whoami", Description: "Names the session.", InputSchema: emptyInput, Result: connector.ResultText, NeverAsks: true,
		Handler: noInput(func(ctx context.Context) (any, error) {
			c := connector.CallFrom(ctx)
			ss := c.ClientSession()
			if ss == nil {
				return "no session", nil
			}
			return "session " + ss.ID() + " as " + c.SessionID(), nil
		}),
	})
	return app
}

// parkedSession serves parkApp with opts and opens a session, returned
// once it is parked: the server, the client and the session's headers.
func parkedSession(t *testing.T, opts ...connector.Option) (*connector.Server, *sessionClient, map[string]string) {
	t.Helper()
	s, err := connector.NewServer(parkApp(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	c := newSessionClient(t, ts.URL, "127.0.0.1")
	h, resp, body := c.open()
	if h == nil {
		t.Fatalf("initialize: %s %s", resp.Status, body)
	}
	waitFor(t, "the session parked", func() bool { return connector.ParkedCount(s) == 1 })
	return s, c, h
}

// TestSessionParked checks parking: once initialized, a session at rest
// keeps no go-sdk session; the fast path still answers its calls, and the
// request log and its handler still know the session; what the fast path
// declines brings it back first, under the same id, transparently; and
// a handler that asks for the session brings it back too.
func TestSessionParked(t *testing.T) {
	t.Parallel()
	var log syncBuffer
	s, c, h := parkedSession(t, connector.WithLogger(quietLogger(&log)))
	sid := h["Mcp-Session-Id"]
	if n := connector.SDKSessionCount(s); n != 0 {
		t.Fatalf("%d go-sdk sessions while the only session is parked, want 0", n)
	}

	// A call the fast path answers: the session stays parked.
	resp, body := c.do("POST", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"find_orders","arguments":{"customer":"C1"}}}`, h)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"result"`) || strings.Contains(body, `"isError":true`) {
		t.Fatalf("tools/call in a parked session: %s %s", resp.Status, body)
	}
	if connector.ParkedCount(s) != 1 || connector.SDKSessionCount(s) != 0 {
		t.Fatal("a call the fast path answered brought the session back")
	}
	if !strings.Contains(log.String(), "tool=find_orders session="+sid) {
		t.Errorf("the request line of a parked session's call does not name the session:\n%s", log.String())
	}

	// What the fast path declines (a prompt) is answered as before, the
	// session brought back under its id.
	resp, body = c.do("POST", `{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"greet","arguments":{"name":"Ada"}}}`, h)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "Ada") {
		t.Fatalf("prompts/get in a parked session: %s %s", resp.Status, body)
	}
	if connector.ParkedCount(s) != 0 || connector.SDKSessionCount(s) != 1 {
		t.Fatalf("after a declined request: %d parked, %d go-sdk sessions; want 0 and 1", connector.ParkedCount(s), connector.SDKSessionCount(s))
	}
	if strings.Count(log.String(), "method=initialize") != 1 {
		t.Errorf("bringing the session back logged its initialize again:\n%s", log.String())
	}
	// It is not parked again: calls still work, on the go-sdk session.
	resp, body = c.do("POST", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`, h)
	if want := "session " + sid + " as " + sid; !strings.Contains(body, want) {
		t.Fatalf("whoami after coming back: %s %s, want %q", resp.Status, body, want)
	}
	time.Sleep(50 * time.Millisecond)
	if connector.ParkedCount(s) != 0 {
		t.Error("a session brought back was parked again")
	}

	// A handler that asks for the session of its call brings it back.
	h2, _, _ := c.open()
	sid2 := h2["Mcp-Session-Id"]
	waitFor(t, "the second session parked", func() bool { return connector.ParkedCount(s) == 1 })
	resp, body = c.do("POST", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`, h2)
	if want := "session " + sid2 + " as " + sid2; !strings.Contains(body, want) {
		t.Fatalf("whoami in a parked session: %s %s, want %q", resp.Status, body, want)
	}
	if connector.ParkedCount(s) != 0 || connector.SDKSessionCount(s) != 2 {
		t.Errorf("after mcpgen.Session in a parked session: %d parked, %d go-sdk sessions; want 0 and 2", connector.ParkedCount(s), connector.SDKSessionCount(s))
	}
}

// TestSessionParkedTelemetry checks that bringing a parked session back
// is not traced as the client's requests: the initialize made again gets
// no span.
func TestSessionParkedTelemetry(t *testing.T) {
	t.Parallel()
	tel, rec, _ := observed(t)
	s, c, h := parkedSession(t, connector.WithLogger(quietLogger(io.Discard)), connector.WithTelemetry(tel))
	resp, body := c.do("POST", `{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"greet","arguments":{"name":"Ada"}}}`, h)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "Ada") || connector.ParkedCount(s) != 0 {
		t.Fatalf("prompts/get in a parked session: %s %s", resp.Status, body)
	}
	var inits, prompts int
	for _, sp := range rec.Ended() {
		switch {
		case strings.HasPrefix(sp.Name(), "initialize"):
			inits++
		case strings.HasPrefix(sp.Name(), "prompts/get"):
			prompts++
		}
	}
	if inits != 1 || prompts != 1 {
		t.Errorf("spans %v: want one initialize (the client's) and one prompts/get", names(rec.Ended()))
	}
}

// TestSessionParkedEnds checks how a parked session ends: DELETE ends it
// (and a request after it is told so), the idle timeout ends it and gives
// its slot back, and a GET stream brings it back and keeps it.
func TestSessionParkedEnds(t *testing.T) {
	t.Parallel()
	s, err := connector.NewServer(testApp(newProbe()), connector.WithLogger(quietLogger(nil)),
		connector.WithSessionIdle(300*time.Millisecond), connector.WithMaxSessions(2, 2))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	c := newSessionClient(t, ts.URL, "127.0.0.1")

	h, _, _ := c.open()
	waitFor(t, "the session parked", func() bool { return connector.ParkedCount(s) == 1 })
	if resp, body := c.do("DELETE", "", h); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE of a parked session: %s %s", resp.Status, body)
	}
	if c.alive(h) {
		t.Fatal("a deleted session still serves")
	}
	if n := connector.SessionCount(s); n != 0 {
		t.Fatalf("%d sessions after DELETE, want 0", n)
	}

	// Idle: the parked session ends, and its slot is free again.
	h1, _, _ := c.open()
	h2, _, _ := c.open()
	if h1 == nil || h2 == nil {
		t.Fatal("two sessions within the bound of two were refused")
	}
	waitFor(t, "both parked", func() bool { return connector.ParkedCount(s) == 2 })
	waitFor(t, "the idle parked sessions to end", func() bool { return connector.SessionCount(s) == 0 })
	resp, body := c.do("POST", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, h1)
	var reply struct {
		Error *struct{ Code int } `json:"error"`
	}
	json.Unmarshal([]byte(body), &reply)
	if resp.StatusCode != http.StatusNotFound || reply.Error == nil || reply.Error.Code != -32001 {
		t.Fatalf("a call in an ended parked session: %s %s, want 404 and -32001", resp.Status, body)
	}
	h3, resp, body := c.open()
	if h3 == nil {
		t.Fatalf("a new session after the parked ones ended: %s %s", resp.Status, body)
	}

	// A GET stream brings it back; open, the session is not idle.
	waitFor(t, "the new session parked", func() bool { return connector.ParkedCount(s) == 1 })
	c.listen(h3)
	if connector.ParkedCount(s) != 0 {
		t.Fatal("a GET stream did not bring the session back")
	}
	time.Sleep(600 * time.Millisecond)
	if !c.alive(h3) {
		t.Error("a session with its stream open ended as idle")
	}
}

// TestSessionParkedOwner checks that a parked session stays its owner's:
// another subject's token is refused (403, as for a session that is not
// parked) on a call the fast path would answer and on a request that would
// bring the session back, which it does not; the owner goes on.
func TestSessionParkedOwner(t *testing.T) {
	t.Parallel()
	o := newParkedOwner(t)
	whoami := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`
	for _, body := range []string{whoami, `{"jsonrpc":"2.0","id":3,"method":"ping"}`} {
		if resp, got := o.post(o.token(t, "bob"), body); resp.StatusCode != http.StatusForbidden {
			t.Errorf("bob's token on ann's parked session, %s: %s %s; want 403", body, resp.Status, got)
		}
	}
	if connector.ParkedCount(o.s) != 1 {
		t.Error("another subject's request brought the session back")
	}
	if resp, got := o.post(o.token(t, "ann"), whoami); resp.StatusCode != http.StatusOK || !strings.Contains(got, "ann") {
		t.Errorf("ann on her parked session: %s %s", resp.Status, got)
	}
}

// FuzzSessionParkedOwner sends a request, with a token of any subject, to
// a parked session of ann's: what is served is what the owner check
// allows. Only ann is answered, by the session, as ann; anyone else is
// refused and leaves the session parked.
func FuzzSessionParkedOwner(f *testing.F) {
	for _, sub := range []string{"bob", "Ann", "ann ", " ann", "", "ann\x00", "annie", "ann"} {
		f.Add(sub, true)
		f.Add(sub, false) // ann's ping, last, brings the session back
	}
	o := newParkedOwner(f)
	f.Fuzz(func(t *testing.T, sub string, call bool) {
		if sub == "" {
			return // a token names a subject
		}
		body := `{"jsonrpc":"2.0","id":3,"method":"ping"}`
		if call {
			body = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`
		}
		resp, got := o.post(o.token(t, sub), body)
		switch {
		case sub == "ann" && resp.StatusCode != http.StatusOK:
			t.Fatalf("ann on her session: %s %s", resp.Status, got)
		case sub == "ann" && call && !strings.Contains(got, `"ann `):
			t.Fatalf("ann's call answered %s", got)
		case sub != "ann" && resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusUnauthorized:
			t.Fatalf("subject %q on ann's session: %s %s; want 403 (or 401 for a token refused)", sub, resp.Status, got)
		case sub != "ann" && connector.ParkedCount(o.s) != 1 && !o.back:
			t.Fatalf("subject %q brought ann's session back", sub)
		}
		if sub == "ann" && !call {
			o.back = true // a ping brings it back; the owner check is the go-sdk's from then on
		}
	})
}

// parkedOwner is a server with auth and one parked session, ann's.
type parkedOwner struct {
	s    *connector.Server
	is   *authIssuer
	url  string
	sid  string
	back bool // the session was brought back
}

func newParkedOwner(t testing.TB) *parkedOwner {
	t.Helper()
	is := newAuthIssuer(t)
	s, base, _ := serveAuthServer(t, authApp(), authgate.Auth{Issuer: is.URL})
	o := &parkedOwner{s: s, is: is, url: base + "/mcp"}
	resp, body := o.post(o.token(t, "ann"), initBody)
	o.sid = resp.Header.Get("Mcp-Session-Id")
	if o.sid == "" {
		t.Fatalf("initialize: %s %s", resp.Status, body)
	}
	o.post(o.token(t, "ann"), `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	waitFor(t, "the session parked", func() bool { return connector.ParkedCount(s) == 1 })
	return o
}

func (o *parkedOwner) token(t testing.TB, sub string) string {
	return o.is.token(t, sub, o.url, "notes:read", time.Now().Add(time.Hour))
}

// post sends body with token, in the session once it has one.
func (o *parkedOwner) post(token, body string) (*http.Response, string) {
	req, _ := http.NewRequest(http.MethodPost, o.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	if o.sid != "" {
		req.Header.Set("Mcp-Session-Id", o.sid)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return &http.Response{Status: err.Error()}, ""
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

// TestSessionParkedAgain checks that a session brought back is parked
// again after an idle spell, unless its go-sdk session holds what its
// initialize would not bring back: a log level, a subscription (until
// it unsubscribes).
func TestSessionParkedAgain(t *testing.T) {
	t.Parallel()
	s, err := connector.NewServer(testApp(newProbe()), connector.WithLogger(quietLogger(nil)))
	if err != nil {
		t.Fatal(err)
	}
	connector.SetParkAfter(s, 150*time.Millisecond)
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	c := newSessionClient(t, ts.URL, "127.0.0.1")
	plain, _, _ := c.open()
	leveled, _, _ := c.open()
	subscribed, _, _ := c.open()
	waitFor(t, "the three sessions parked", func() bool { return connector.ParkedCount(s) == 3 })

	for _, r := range []struct {
		h    map[string]string
		body string
	}{
		{plain, `{"jsonrpc":"2.0","id":2,"method":"prompts/list"}`},
		{leveled, `{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"debug"}}`},
		{subscribed, `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"test://watched"}}`},
	} {
		if resp, body := c.do("POST", r.body, r.h); resp.StatusCode != http.StatusOK || !strings.Contains(body, `"result"`) {
			t.Fatalf("%s: %s %s", r.body, resp.Status, body)
		}
	}
	if n := connector.ParkedCount(s); n != 0 {
		t.Fatalf("%d sessions parked after each was brought back, want 0", n)
	}
	waitFor(t, "the plain session parked again", func() bool { return connector.ParkedCount(s) == 1 })
	time.Sleep(400 * time.Millisecond)
	if n := connector.ParkedCount(s); n != 1 {
		t.Errorf("%d sessions parked; want 1: a session with a log level or a subscription is not parked again", n)
	}
	// The plain one, parked again, still serves, and comes back again.
	if resp, body := c.do("POST", `{"jsonrpc":"2.0","id":3,"method":"prompts/list"}`, plain); resp.StatusCode != http.StatusOK || !strings.Contains(body, "greet") {
		t.Fatalf("prompts/list in a session parked twice: %s %s", resp.Status, body)
	}
	// Once it has unsubscribed, the subscribed one holds nothing more and
	// is parked again too.
	if resp, body := c.do("POST", `{"jsonrpc":"2.0","id":3,"method":"resources/unsubscribe","params":{"uri":"test://watched"}}`, subscribed); resp.StatusCode != http.StatusOK || !strings.Contains(body, `"result"`) {
		t.Fatalf("resources/unsubscribe: %s %s", resp.Status, body)
	}
	waitFor(t, "the unsubscribed session parked again", func() bool { return connector.ParkedCount(s) == 2 })
	time.Sleep(400 * time.Millisecond)
	if n := connector.ParkedCount(s); n != 2 {
		t.Errorf("%d sessions parked; want 2: the one with a log level stays", n)
	}
}
