package connector_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/mcpgen/mcpgen/connector"
	"github.com/mcpgen/mcpgen/internal/authgate"
	"github.com/mcpgen/mcpgen/internal/httpedge"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveStreams serves app's /mcp, /sse and /ws (and the auth metadata) on
// a loopback port and returns the base URL and the server's log.
func serveStreams(t testing.TB, app *connector.App, opts ...connector.Option) (string, *syncBuffer) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	log := &syncBuffer{}
	opts = append([]connector.Option{connector.WithLogger(quietLogger(log)), connector.WithPublicURL(base)}, opts...)
	s, err := connector.NewServer(app, opts...)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	s.MountAuth(mux)
	mux.Handle("/mcp", s.Handler())
	mux.Handle(httpedge.SSEPath, s.SSEHandler())
	mux.Handle(httpedge.WebSocketPath, s.WebSocketHandler())
	ts := &httptest.Server{Listener: ln, Config: &http.Server{Handler: mux}}
	ts.Start()
	t.Cleanup(ts.Close)
	return base, log
}

// wsTransport is an mcp.Transport over a WebSocket (subprotocol mcp, one
// message per text frame), for the Go SDK's client.
type wsTransport struct {
	url    string
	header http.Header
}

func (w *wsTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, _, err := websocket.Dial(ctx, w.url, &websocket.DialOptions{Subprotocols: []string{"mcp"}, HTTPHeader: w.header})
	if err != nil {
		return nil, err
	}
	c.SetReadLimit(64 << 20)
	return &wsConn{c: c}, nil
}

type wsConn struct{ c *websocket.Conn }

func (w *wsConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	_, data, err := w.c.Read(ctx)
	if err != nil {
		return nil, err
	}
	return jsonrpc.DecodeMessage(data)
}

func (w *wsConn) Write(ctx context.Context, m jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(m)
	if err != nil {
		return err
	}
	return w.c.Write(ctx, websocket.MessageText, data)
}

func (w *wsConn) Close() error      { return w.c.Close(websocket.StatusNormalClosure, "") }
func (w *wsConn) SessionID() string { return "" }

// streamClient connects the Go SDK's client to base over transport kind
// ("sse" or "ws"), with header on every request.
func streamClient(t testing.TB, base, kind string, header http.Header, copts *mcp.ClientOptions) (*mcp.ClientSession, error) {
	t.Helper()
	var tr mcp.Transport
	switch kind {
	case "sse":
		hc := &http.Client{Transport: headerTransport{header}}
		tr = &mcp.SSEClientTransport{Endpoint: base + "/sse", HTTPClient: hc}
	case "ws":
		tr = &wsTransport{url: "ws" + strings.TrimPrefix(base, "http") + "/ws", header: header}
	}
	// The go-sdk's SSE client keeps its stream open in the context it
	// connects with.
	cs, err := mcp.NewClient(&mcp.Implementation{Name: kind + "-client", Version: "1"}, copts).Connect(context.Background(), tr, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

type headerTransport struct{ h http.Header }

func (ht headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range ht.h {
		r.Header[k] = v
	}
	return http.DefaultTransport.RoundTrip(r)
}

// Every feature of a session works over both transports: lists, a call
// with progress, an elicitation, a subscription and its notification.
func TestStreamTransportsServeSessions(t *testing.T) {
	t.Parallel()
	base, slog := serveStreams(t, testApp(newProbe()))
	for _, kind := range []string{"sse", "ws"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var progress []float64
			updated := make(chan string, 4)
			copts := &mcp.ClientOptions{
				ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada", "seats": 2, "class": "eco"}}, nil
				},
				ProgressNotificationHandler: func(ctx context.Context, req *mcp.ProgressNotificationClientRequest) {
					mu.Lock()
					progress = append(progress, req.Params.Progress)
					mu.Unlock()
				},
				ResourceUpdatedHandler: func(ctx context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
					updated <- req.Params.URI
				},
			}
			cs, err := streamClient(t, base, kind, nil, copts)
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if t.Failed() {
					t.Logf("server log:\n%s", slog)
				}
			}()
			ctx := context.Background()
			tools, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatalf("tools/list: %v", err)
			}
			if len(tools.Tools) < 10 {
				t.Errorf("tools/list: %d tools", len(tools.Tools))
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "progress", Arguments: map[string]any{}, Meta: mcp.Meta{"progressToken": "p1"}})
			if err != nil || textOf(t, res) != "done" {
				t.Fatalf("progress: %v %v", err, res)
			}
			waitFor(t, "three progress notifications", func() bool { mu.Lock(); defer mu.Unlock(); return len(progress) == 3 })
			if got := textOf(t, call(t, cs, "book", map[string]any{})); !strings.Contains(got, "accept") || !strings.Contains(got, "Ada") {
				t.Errorf("elicitation: %q", got)
			}
			if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://watched"}); err != nil {
				t.Fatal(err)
			}
			call(t, cs, "touch", map[string]any{})
			select {
			case uri := <-updated:
				if uri != "test://watched" {
					t.Errorf("updated %q", uri)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("no notifications/resources/updated")
			}
			// An id beyond 2^53 comes back exact, as over /mcp and stdio.
			if kind == "ws" {
				c := dialWS(t, base, nil)
				c.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":9007199254740993123,"method":"ping"}`))
				_, data, err := c.Read(ctx)
				if err != nil || !strings.Contains(string(data), `"id":9007199254740993123`) {
					t.Errorf("big id: %v %s", err, data)
				}
			}
		})
	}
}

// dialWS opens a raw WebSocket to base's /ws.
func dialWS(t testing.TB, base string, header http.Header) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+"/ws", &websocket.DialOptions{Subprotocols: []string{"mcp"}, HTTPHeader: header})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.CloseNow() })
	return c
}

// A foreign Host or Origin is refused on both transports, as on /mcp; a
// WebSocket without the mcp subprotocol is refused.
func TestStreamTransportsRefuseForeignHostAndOrigin(t *testing.T) {
	t.Parallel()
	base, log := serveStreams(t, testApp(newProbe()))
	ctx := context.Background()
	for _, path := range []string{"/sse", "/ws"} {
		for _, tc := range []struct{ host, origin string }{
			{"evil.example:80", ""},
			{"", "https://evil.example"},
		} {
			req, _ := http.NewRequestWithContext(ctx, "GET", base+path, nil)
			if tc.host != "" {
				req.Host = tc.host
			}
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			req.Header.Set("Sec-WebSocket-Protocol", "mcp")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("%s with Host %q Origin %q: %s, want 403", path, tc.host, tc.origin, resp.Status)
			}
		}
	}
	for _, h := range []http.Header{{"Origin": {"https://evil.example"}}, {"Host": {"evil.example"}}} {
		c, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+"/ws", &websocket.DialOptions{Subprotocols: []string{"mcp"}, HTTPHeader: h, Host: h.Get("Host")})
		if err == nil {
			c.CloseNow()
			t.Errorf("WebSocket with %v was accepted", h)
		} else if resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Errorf("WebSocket with %v: %v, want 403", h, err)
		}
	}
	if _, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+"/ws", nil); err == nil || resp == nil || resp.StatusCode != http.StatusBadRequest {
		t.Errorf("WebSocket without subprotocol mcp: %v, want 400", err)
	}
	if !strings.Contains(log.String(), "refused") {
		t.Errorf("no refusal in the log:\n%s", log)
	}
}

// Messages over the size limit are refused: a POST with 413, a frame by
// closing the WebSocket with 1009; the server goes on serving.
func TestStreamTransportsRefuseOversizedMessages(t *testing.T) {
	t.Parallel()
	base, _ := serveStreams(t, testApp(newProbe()), connector.WithMaxBodyBytes(4096))
	big := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"find_orders","arguments":{"customer":%q}}}`, strings.Repeat("x", 8192))

	endpoint, stream := openSSE(t, base, nil)
	defer stream.Close()
	resp, err := http.Post(base+endpoint, "application/json", strings.NewReader(big))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("SSE POST of %d bytes: %s, want 413", len(big), resp.Status)
	}

	ctx := context.Background()
	c := dialWS(t, base, nil)
	c.Write(ctx, websocket.MessageText, []byte(big))
	_, _, err = c.Read(ctx)
	if s := websocket.CloseStatus(err); s != websocket.StatusMessageTooBig {
		t.Errorf("WebSocket frame of %d bytes: %v (status %d), want close 1009", len(big), err, s)
	}
	for _, kind := range []string{"sse", "ws"} {
		cs, err := streamClient(t, base, kind, nil, nil)
		if err != nil {
			t.Fatalf("%s after the refusal: %v", kind, err)
		}
		if _, err := cs.ListTools(ctx, nil); err != nil {
			t.Errorf("%s after the refusal: %v", kind, err)
		}
	}
}

// openSSE opens an event stream on base's /sse and returns the endpoint
// it announces and the stream's body.
func openSSE(t testing.TB, base string, header http.Header) (string, io.ReadCloser) {
	t.Helper()
	return openSSEWith(t, http.DefaultClient, base, header)
}

// slowReader is an HTTP client whose connections have a small receive
// buffer, so a server writing to it fills the buffer soon.
var slowReader = &http.Client{Transport: &http.Transport{
	DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetReadBuffer(4096)
		}
		return c, err
	},
}}

func openSSEWith(t testing.TB, hc *http.Client, base string, header http.Header) (string, io.ReadCloser) {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/sse", nil)
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		t.Fatalf("GET /sse: %s", resp.Status)
	}
	br := bufio.NewReader(resp.Body)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the endpoint event: %v", err)
		}
		if data, ok := strings.CutPrefix(strings.TrimSpace(line), "data: "); ok {
			return data, resp.Body
		}
	}
}

// A client that stops reading loses its session after the write timeout;
// the number of sessions is bounded in all and per caller.
func TestStreamTransportsBoundSlowAndManyClients(t *testing.T) {
	t.Parallel()
	app := testApp(newProbe())
	app.Tools = append(app.Tools, connector.Tool{
		Name: "huge", Description: "Returns 256 KiB.", InputSchema: emptyInput, Result: connector.ResultText, MaxResultChars: 1 << 20,
		Handler: noInput(func(ctx context.Context) (any, error) { return strings.Repeat("x", 256<<10), nil }),
	})
	base, log := serveStreams(t, app, connector.WithMaxSessions(6, 3), connector.WithStreamTimeouts(300*time.Millisecond, time.Hour))
	ctx := context.Background()
	initMsg := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"slow","version":"1"}}}`
	bigCall := func(i int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"huge","arguments":{}}}`, i)
	}

	// SSE: the client reads the endpoint event, then nothing more.
	endpoint, stream := openSSEWith(t, slowReader, base, nil)
	defer stream.Close()
	post := func(body string) int {
		resp, err := http.Post(base+endpoint, "application/json", strings.NewReader(body))
		if err != nil {
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	post(initMsg)
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	gone := false
	for i, end := 1, time.Now().Add(20*time.Second); !gone && time.Now().Before(end); i++ {
		gone = post(bigCall(i)) == http.StatusNotFound
	}
	if !gone {
		t.Errorf("an SSE client that does not read kept its session for 20 s of answers of 256 KiB; log:\n%s", log)
	}
	waitLong(t, "the slow SSE client's end in the log", func() bool {
		return strings.Contains(log.String(), `did not take a message" transport=sse`)
	})

	// WebSocket: the same.
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+"/ws", &websocket.DialOptions{Subprotocols: []string{"mcp"}, HTTPClient: slowReader})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	c.Write(ctx, websocket.MessageText, []byte(initMsg))
	c.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	for i := 1; i <= 64; i++ {
		wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := c.Write(wctx, websocket.MessageText, []byte(bigCall(i)))
		cancel()
		if err != nil {
			break
		}
	}
	defer func() {
		if t.Failed() {
			t.Logf("log:\n%s", log)
		}
	}()
	waitLong(t, "the slow WebSocket client's session to end", func() bool {
		return strings.Contains(log.String(), `did not take a message" transport=websocket`)
	})
	if n := strings.Count(log.String(), `did not take a message"`); n != 2 {
		t.Errorf("the slow clients' ends were logged %d times, want once each", n)
	}
	waitFor(t, "the slow clients' sessions to be forgotten", func() bool {
		return !strings.Contains(log.String(), "session opened") || strings.Count(log.String(), "session closed") >= 2
	})

	// Many connections from one caller: the fourth is refused, 429.
	var opened []io.Closer
	defer func() {
		for _, c := range opened {
			c.Close()
		}
	}()
	for range 3 {
		_, s := openSSE(t, base, nil)
		opened = append(opened, s)
	}
	req, _ := http.NewRequest("GET", base+"/sse", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("a fourth SSE session of one caller: %s, want 429", resp.Status)
	}
	_, resp, err = websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+"/ws", &websocket.DialOptions{Subprotocols: []string{"mcp"}})
	if err == nil || resp == nil || resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("a fourth WebSocket of one caller: %v, want 429", err)
	}
	// Closing one lets another in.
	opened[0].Close()
	opened = opened[1:]
	waitLong(t, "a closed session to be forgotten", func() bool {
		c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+"/ws", &websocket.DialOptions{Subprotocols: []string{"mcp"}})
		if err == nil {
			c.CloseNow()
		}
		return err == nil
	})
}

// waitLong is waitFor for conditions that take many requests (slower under
// the race detector).
func waitLong(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// With auth, both transports need a token to open a session, a message
// on an open HTTP+SSE session needs a token of the subject that opened it,
// a tool, resource or prompt with scope= needs its scopes as over /mcp,
// and a WebSocket whose token expires is closed at its next message.
func TestStreamTransportsAuth(t *testing.T) {
	t.Parallel()
	is := newAuthIssuer(t)
	base, log := serveStreams(t, authApp(), connector.WithAuth(authgate.Auth{Issuer: is.URL}))
	aud := base + "/mcp"
	ann := is.token(t, "ann", aud, "notes:read", time.Now().Add(time.Hour))
	annWriter := is.token(t, "ann", aud, "notes:read notes:write", time.Now().Add(time.Hour))
	bob := is.token(t, "bob", aud, "notes:read notes:write", time.Now().Add(time.Hour))
	auth := func(tok string) http.Header { return http.Header{"Authorization": {"Bearer " + tok}} }
	ctx := context.Background()

	// No token: 401 with the challenge, on both.
	req, _ := http.NewRequest("GET", base+"/sse", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	// The challenge names the endpoint's own metadata, whose resource is
	// the endpoint (a client checks that it is a prefix of its URL).
	meta := base + "/.well-known/oauth-protected-resource/sse"
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(resp.Header.Get("WWW-Authenticate"), fmt.Sprintf("resource_metadata=%q", meta)) {
		t.Errorf("GET /sse without a token: %s %q, want a challenge naming %s", resp.Status, resp.Header.Get("WWW-Authenticate"), meta)
	}
	for _, path := range []string{"/sse", "/ws"} {
		resp, err := http.Get(base + "/.well-known/oauth-protected-resource" + path)
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			Resource             string   `json:"resource"`
			AuthorizationServers []string `json:"authorization_servers"`
		}
		json.NewDecoder(resp.Body).Decode(&m)
		resp.Body.Close()
		if m.Resource != base+path || len(m.AuthorizationServers) != 1 || m.AuthorizationServers[0] != is.URL {
			t.Errorf("metadata of %s: %+v", path, m)
		}
	}
	// Tokens for any of the connector's three resources are accepted on
	// both; a token for another resource is not.
	for _, kind := range []string{"sse", "ws"} {
		for _, res := range []string{"/sse", "/ws", "/mcp"} {
			tok := is.token(t, "cy", base+res, "", time.Now().Add(time.Hour))
			cs, err := streamClient(t, base, kind, auth(tok), nil)
			if err != nil {
				t.Errorf("%s with a token for %s: %v", kind, res, err)
				continue
			}
			cs.Close()
		}
		if _, err := streamClient(t, base, kind, auth(is.token(t, "cy", "https://other.example.com/sse", "", time.Now().Add(time.Hour))), nil); err == nil {
			t.Errorf("%s accepted a token for another resource", kind)
		}
	}
	if _, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+"/ws", &websocket.DialOptions{Subprotocols: []string{"mcp"}}); err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("WebSocket without a token: %v, want 401", err)
	}

	for _, kind := range []string{"sse", "ws"} {
		cs, err := streamClient(t, base, kind, auth(ann), nil)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if got := textOf(t, call(t, cs, "whoami", map[string]any{})); !strings.HasPrefix(got, "ann notes:read") {
			t.Errorf("%s: whoami = %q", kind, got)
		}
		// add_note needs notes:write: refused, whatever the transport.
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "add_note", Arguments: map[string]any{}})
		if err == nil && !res.IsError {
			t.Errorf("%s: add_note without notes:write ran: %+v", kind, res)
		}
		if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "notes://secret"}); err == nil {
			t.Errorf("%s: notes://secret without notes:admin was read", kind)
		}
		w, err := streamClient(t, base, kind, auth(annWriter), nil)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if got := textOf(t, call(t, w, "add_note", map[string]any{})); got != "added" {
			t.Errorf("%s: add_note with notes:write = %q", kind, got)
		}
	}
	if !strings.Contains(log.String(), "insufficient scope") {
		t.Errorf("no refusal in the log:\n%s", log)
	}

	// Another subject's token on an open HTTP+SSE session: 403; the
	// owner's: 202.
	endpoint, stream := openSSE(t, base, auth(ann))
	defer stream.Close()
	post := func(tok string) int {
		req, _ := http.NewRequest("POST", base+endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if c := post(bob); c != http.StatusForbidden {
		t.Errorf("bob's token on ann's SSE session: %d, want 403", c)
	}
	if c := post(ann); c != http.StatusAccepted {
		t.Errorf("ann's token on her SSE session: %d, want 202", c)
	}

	// A WebSocket opened with a token about to expire is closed, 1008, at
	// its first message after the expiry.
	soon := time.Now().Add(3 * time.Second)
	c := dialWS(t, base, auth(is.token(t, "ann", aud, "notes:read", soon)))
	time.Sleep(time.Until(soon) + 100*time.Millisecond)
	c.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if _, _, err := c.Read(ctx); websocket.CloseStatus(err) != websocket.StatusPolicyViolation {
		t.Errorf("a message after the token expired: %v, want close 1008", err)
	}
}

// A draining connector lets the calls in flight on SSE and WebSocket
// sessions finish, then ends the sessions: the event stream gets a retry
// field, the WebSocket the close code 1012.
func TestStreamTransportsDrain(t *testing.T) {
	t.Parallel()
	started, release := make(chan struct{}, 2), make(chan struct{})
	app := testApp(newProbe())
	app.Tools = append(app.Tools, connector.Tool{
		Name: "nap", Description: "Waits to be released.", InputSchema: emptyInput, Result: connector.ResultText,
		Handler: noInput(func(ctx context.Context) (any, error) {
			started <- struct{}{}
			<-release
			return "rested", nil
		}),
	})
	url, stderr, stop, exit := startRun(t, app, []string{"--addr", "127.0.0.1:0", "--drain", "20s"}, nil)
	base := strings.TrimSuffix(url, "/mcp")
	if !strings.Contains(stderr.String(), "/sse /ws") {
		t.Errorf("the log does not name the extra paths:\n%s", stderr)
	}
	// WebSocket: the Go SDK's client. HTTP+SSE: raw, to read what the
	// stream carries to its end (the Go SDK's SSE client may drop a
	// message that arrives just before its stream ends).
	ws, err := streamClient(t, base, "ws", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	result := make(chan string, 1)
	go func() {
		res, err := ws.CallTool(context.Background(), &mcp.CallToolParams{Name: "nap", Arguments: map[string]any{}})
		if err != nil {
			result <- err.Error()
			return
		}
		result <- textOf(t, res)
	}()
	endpoint, stream := openSSE(t, base, nil)
	defer stream.Close()
	for _, m := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"nap","arguments":{}}}`,
	} {
		resp, err := http.Post(base+endpoint, "application/json", strings.NewReader(m))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("POST %s: %s", m, resp.Status)
		}
	}
	raw := dialWS(t, base, nil)
	<-started
	<-started
	stop() // SIGTERM
	waitFor(t, "the drain to start", func() bool { return strings.Contains(stderr.String(), "draining") })
	close(release)
	if got := <-result; got != "rested" {
		t.Errorf("a WebSocket call in flight during the drain: %s\n%s", got, stderr)
	}
	rest, _ := io.ReadAll(stream)
	answer := strings.Index(string(rest), `"id":2,"result"`)
	retry := strings.Index(string(rest), "retry: ")
	if answer < 0 || retry < answer {
		t.Errorf("the event stream did not carry the answer, then a retry field:\n%s", rest)
	}
	if _, _, err := raw.Read(context.Background()); websocket.CloseStatus(err) != websocket.StatusServiceRestart {
		t.Errorf("the WebSocket ended with %v, want close 1012", err)
	}
	if code := <-exit; code != 0 {
		t.Errorf("exit code %d after a drain", code)
	}
}

// A WebSocket client that stops in the middle of a frame cannot hold its
// connection: the pong to the server's ping cannot come, and the server
// closes the connection.
func TestWebSocketDropsAStalledSender(t *testing.T) {
	t.Parallel()
	base, log := serveStreams(t, testApp(newProbe()), connector.WithStreamTimeouts(200*time.Millisecond, 200*time.Millisecond))
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(20 * time.Second))
	fmt.Fprintf(conn, "GET /ws HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: mcp\r\n\r\n", strings.TrimPrefix(base, "http://"))
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("handshake: %v %v", err, resp)
	}
	// A masked text frame announcing 256 bytes, of which 10 are sent.
	conn.Write([]byte{0x81, 0x80 | 126, 0x01, 0x00, 1, 2, 3, 4})
	conn.Write([]byte("0123456789"))
	// The server pings, gets no pong and closes: reading ends in EOF.
	if _, err := io.Copy(io.Discard, br); err != nil {
		t.Fatalf("the server did not close the connection of a stalled sender: %v", err)
	}
	waitFor(t, "the log line", func() bool { return strings.Contains(log.String(), "did not answer a ping") })
}
