package connector_test

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/connector"
	"github.com/mcpgen/mcpgen/connector/store"
	"github.com/mcpgen/mcpgen/internal/authgate"
	"github.com/mcpgen/mcpgen/internal/httpedge"
	"github.com/mcpgen/mcpgen/internal/testenv"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sseReplicas serves two replicas of authApp sharing the store open gives,
// behind one address that hands each request to the replica its
// X-Replica header names ("a" or "b"), else to each in turn, as a round
// robin load balancer does. It returns that address and the replicas'
// logs.
func sseReplicas(t *testing.T, open func() store.Store, issuer string) (string, map[string]*syncBuffer) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	logs := map[string]*syncBuffer{}
	replica := func(name string) http.Handler {
		log := &syncBuffer{}
		logs[name] = log
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("log of replica %s:\n%s", name, log.String())
			}
		})
		s, err := connector.NewServer(authApp(), connector.WithLogger(quietLogger(log)), connector.WithPublicURL(base),
			connector.WithAuth(authgate.Auth{Issuer: issuer}), connector.WithStore(open()))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		connector.RunRelay(t, ctx, s)
		mux := http.NewServeMux()
		s.MountAuth(mux)
		mux.Handle("/mcp", s.Handler())
		mux.Handle(httpedge.SSEPath, s.SSEHandler())
		return mux
	}
	a, b := replica("a"), replica("b")
	var n atomic.Int64
	ts := &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Header.Get("X-Replica") {
		case "a":
			a.ServeHTTP(w, r)
		case "b":
			b.ServeHTTP(w, r)
		default:
			if n.Add(1)%2 == 0 {
				a.ServeHTTP(w, r)
			} else {
				b.ServeHTTP(w, r)
			}
		}
	})}}
	ts.Start()
	t.Cleanup(ts.Close)
	return base, logs
}

// TestSSEAcrossReplicas: an HTTP+SSE session whose event stream is held by
// replica A takes the messages a load balancer hands to replica B (B
// forwards them to A), with B making the checks A makes: 404 for a
// session no replica holds, 403 for another subject's token, 401 without
// one, 413 for a message over the limit, and 404 once the stream has ended.
func TestSSEAcrossReplicas(t *testing.T) {
	replicaPairs(t, func(t *testing.T, open func() store.Store) {
		is := newAuthIssuer(t)
		base, _ := sseReplicas(t, open, is.URL)
		tok := func(sub string) string {
			return is.token(t, sub, base+"/sse", "notes:read notes:write", time.Now().Add(time.Hour))
		}
		ann, bob := tok("ann"), tok("bob")

		t.Run("sdk client round robin", func(t *testing.T) {
			cs, err := streamClient(t, base, "sse", http.Header{"Authorization": {"Bearer " + ann}}, nil)
			if err != nil {
				t.Fatalf("connect through the round robin: %v", err)
			}
			for i := range 10 {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "whoami"})
				if err != nil {
					t.Fatalf("call %d: %v", i, err)
				}
				if got := textOf(t, res); !strings.HasPrefix(got, "ann ") {
					t.Errorf("call %d answered %q, want ann's identity", i, got)
				}
			}
			if tools, err := cs.ListTools(context.Background(), nil); err != nil || len(tools.Tools) != 2 {
				t.Errorf("tools/list: %v %v", tools, err)
			}
		})

		t.Run("checks on the forwarding replica", func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, "GET", base+"/sse", nil)
			req.Header.Set("Authorization", "Bearer "+ann)
			req.Header.Set("X-Replica", "a")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			events := make(chan [2]string, 16)
			go func() {
				sc := bufio.NewScanner(resp.Body)
				var ev string
				for sc.Scan() {
					line := sc.Text()
					if v, ok := strings.CutPrefix(line, "event: "); ok {
						ev = v
					} else if v, ok := strings.CutPrefix(line, "data: "); ok {
						events <- [2]string{ev, v}
					}
				}
				close(events)
			}()
			next := func(what string) string {
				select {
				case e, ok := <-events:
					if !ok {
						t.Fatalf("the stream ended before %s", what)
					}
					return e[1]
				case <-time.After(10 * time.Second):
					t.Fatalf("no event for %s on A's stream", what)
				}
				return ""
			}
			endpoint := next("the endpoint")
			send := func(replica, token, target, body string) int {
				req, _ := http.NewRequest("POST", base+target, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("X-Replica", replica)
				if token != "" {
					req.Header.Set("Authorization", "Bearer "+token)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				return resp.StatusCode
			}
			if code := send("b", ann, endpoint, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`); code != http.StatusAccepted {
				t.Fatalf("initialize POSTed to B: %d, want 202", code)
			}
			if got := next("the initialize answer"); !strings.Contains(got, `"protocolVersion"`) {
				t.Fatalf("A's stream carried %s, want the initialize answer", got)
			}
			send("b", ann, endpoint, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			if code := send("b", ann, endpoint, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`); code != http.StatusAccepted {
				t.Fatalf("tools/call POSTed to B: %d, want 202", code)
			}
			if got := next("the call's answer"); !strings.Contains(got, `"id":2`) || !strings.Contains(got, "ann notes:read") {
				t.Errorf("A's stream carried %s, want ann's whoami", got)
			}
			if code := send("b", bob, endpoint, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`); code != http.StatusForbidden {
				t.Errorf("bob's message for ann's session on B: %d, want 403", code)
			}
			if code := send("b", "", endpoint, `{"jsonrpc":"2.0","id":4,"method":"tools/list"}`); code != http.StatusUnauthorized {
				t.Errorf("a message without a token on B: %d, want 401", code)
			}
			if code := send("b", ann, "/sse?sessionId=NOSUCHSESSION", `{"jsonrpc":"2.0","id":5,"method":"tools/list"}`); code != http.StatusNotFound {
				t.Errorf("a message for no session on B: %d, want 404", code)
			}
			big := `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"whoami","arguments":{"pad":"` + strings.Repeat("x", 5<<20) + `"}}}`
			if code := send("b", ann, endpoint, big); code != http.StatusRequestEntityTooLarge {
				t.Errorf("a 5 MiB message for A's session on B: %d, want 413", code)
			}
			// Bob's message never reached the session: the next event is
			// the answer to ann's next call.
			send("b", ann, endpoint, `{"jsonrpc":"2.0","id":6,"method":"tools/list"}`)
			if got := next("the tools/list answer"); !strings.Contains(got, `"id":6`) {
				t.Errorf("A's stream carried %s, want the answer to id 6", got)
			}
			cancel()
			for range events {
			}
			waitFor(t, "B to see that the session ended", func() bool {
				return send("b", ann, endpoint, `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`) == http.StatusNotFound
			})
		})
	})
}

// TestSSEWithTheStoreDown: while Redis is down an HTTP+SSE session still
// opens and is served where its stream is, the log says once that
// sessions are not shared, a message for it sent to another replica gets
// 503 (not a hang, not a false 404), and once Redis is back the session is
// shared again.
func TestSSEWithTheStoreDown(t *testing.T) {
	redis := testenv.StartRedis(t)
	open := func() store.Store {
		st, err := store.Open(context.Background(), redis.URL()+"/0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	is := newAuthIssuer(t)
	base, logs := sseReplicas(t, open, is.URL)
	ann := is.token(t, "ann", base+"/sse", "notes:read", time.Now().Add(time.Hour))
	redis.Stop()

	header := http.Header{"Authorization": {"Bearer " + ann}, "X-Replica": {"a"}}
	cs, err := streamClient(t, base, "sse", header, nil)
	if err != nil {
		t.Fatalf("an HTTP+SSE session on replica A with the store down: %v", err)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "whoami"})
	if err != nil || !strings.HasPrefix(textOf(t, res), "ann ") {
		t.Fatalf("a call on the holding replica with the store down: %v %v", res, err)
	}
	// A message for a session B cannot look up.
	req, _ := http.NewRequest("POST", base+"/sse?sessionId=SOMESESSION", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+ann)
	req.Header.Set("X-Replica", "b")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("a message for another replica's session with the store down: %s, want 503 with Retry-After", resp.Status)
	}
	cs.Close()
	if n := strings.Count(logs["a"].String(), "HTTP+SSE sessions are not shared with other replicas until the store is back"); n != 1 {
		t.Errorf("replica A logged %d times that sessions are not shared, want once", n)
	}

	redis.Start()
	// Once each replica has subscribed to the bus again, a session is
	// shared: one within a few seconds connects and calls through the
	// round robin. Each try is bounded, so a message lost on the way
	// fails the try rather than hanging the test.
	header.Del("X-Replica")
	var last error
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if last = sseRoundRobin(base, header, 4); last == nil {
			return
		}
	}
	t.Fatalf("no HTTP+SSE session through the round robin once the store was back: %v", last)
}

// sseRoundRobin connects an HTTP+SSE client to base with header and makes
// calls whoami calls, each step within 5 seconds.
func sseRoundRobin(base string, header http.Header, calls int) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	timer := time.AfterFunc(5*time.Second, cancel)
	tr := &mcp.SSEClientTransport{Endpoint: base + "/sse", HTTPClient: &http.Client{Transport: headerTransport{header}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "sse-client", Version: "1"}, nil).Connect(ctx, tr, nil)
	timer.Stop()
	if err != nil {
		return err
	}
	defer cs.Close()
	for range calls {
		cctx, ccancel := context.WithTimeout(ctx, 5*time.Second)
		_, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: "whoami"})
		ccancel()
		if err != nil {
			return err
		}
	}
	return nil
}
