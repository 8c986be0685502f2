package connector_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/connector"
	"github.com/mcpgen/mcpgen/connector/store"
	"github.com/mcpgen/mcpgen/internal/testenv"
)

// sharedMemory is the in-process store shared by two servers the way a
// networked backend is: not a *store.Memory, so the servers record and
// adopt sessions and relay over its Bus as replicas do.
type sharedMemory struct{ store.Store }

// replicaPairs runs test with a memory store shared by servers in this
// process, and with Redis (a real redis-server); open returns the store
// for one more replica.
func replicaPairs(t *testing.T, test func(t *testing.T, open func() store.Store)) {
	t.Run("memory", func(t *testing.T) {
		shared := sharedMemory{store.NewMemory(store.MemoryOptions{})}
		test(t, func() store.Store { return shared })
	})
	t.Run("redis", func(t *testing.T) {
		r := testenv.StartRedis(t)
		test(t, func() store.Store {
			st, err := store.Open(context.Background(), r.URL()+"/0")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		})
	})
}

// serveReplica serves app with the store st as one replica, its relay
// running, and returns its /mcp URL.
func serveReplica(t *testing.T, app *connector.App, st store.Store) string {
	t.Helper()
	log := &syncBuffer{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("log of the replica:\n%s", log.String())
		}
	})
	s, err := connector.NewServer(app, connector.WithLogger(slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))), connector.WithStore(st))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	connector.RunRelay(t, ctx, s)
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return ts.URL
}

// replicaSession initializes a 2025-11-25 session on url with the client
// capabilities caps, and returns the headers that address it.
func replicaSession(t *testing.T, url, caps string) map[string]string {
	t.Helper()
	resp := post(t, url, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":`+caps+`,"clientInfo":{"name":"raw","version":"1"}}}`, nil)
	sid := resp.Header.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatal("no Mcp-Session-Id on the initialize response")
	}
	h := map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25"}
	post(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, h)
	waitFor(t, "the session to be initialized", func() bool {
		resp := post(t, url, `{"jsonrpc":"2.0","id":100,"method":"tools/list"}`, h)
		return strings.Contains(readSSE(t, resp.Body), `"tools"`)
	})
	return h
}

// TestCancelAcrossReplicas: a call runs on replica A; the client's
// notifications/cancelled reaches replica B. B relays it to A, whose
// handler's context is cancelled as after a local cancel, and the call
// gets no answer. Both ways a call runs: the fast path (a client that
// declared nothing) and the go-sdk (a client that can be asked).
func TestCancelAcrossReplicas(t *testing.T) {
	replicaPairs(t, func(t *testing.T, open func() store.Store) {
		for _, tc := range []struct{ name, caps string }{
			{"fast path", `{}`},
			{"go-sdk", `{"elicitation":{}}`},
		} {
			t.Run(tc.name, func(t *testing.T) {
				p := newProbe()
				a := serveReplica(t, testApp(p), open())
				b := serveReplica(t, testApp(newProbe()), open())
				h := replicaSession(t, a, tc.caps)
				stream := make(chan string, 1)
				go func() {
					req, _ := http.NewRequest("POST", a, strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"wait","arguments":{}}}`))
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("Accept", "application/json, text/event-stream")
					for k, v := range h {
						req.Header.Set(k, v)
					}
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						stream <- "error: " + err.Error()
						return
					}
					defer resp.Body.Close()
					b, _ := io.ReadAll(resp.Body)
					stream <- string(b)
				}()
				<-p.started
				resp := post(t, b, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"user"}}`, h)
				if resp.StatusCode != http.StatusAccepted {
					t.Fatalf("notifications/cancelled on B: %s, want 202", resp.Status)
				}
				select {
				case err := <-p.cancelled:
					if !errors.Is(err, context.Canceled) {
						t.Errorf("handler ctx.Err() on A = %v", err)
					}
				case <-time.After(5 * time.Second):
					t.Fatal("the cancellation sent to B did not reach the handler running on A")
				}
				select {
				case data := <-stream:
					if strings.Contains(data, `"result"`) || strings.Contains(data, `"error"`) {
						t.Errorf("the call cancelled through B was answered on A: %s", data)
					}
				case <-time.After(10 * time.Second):
					t.Fatal("the cancelled call's stream on A did not end")
				}
				// Both replicas go on serving the session.
				for _, url := range []string{a, b} {
					resp := post(t, url, `{"jsonrpc":"2.0","id":8,"method":"tools/list"}`, h)
					if !strings.Contains(readSSE(t, resp.Body), `"tools"`) {
						t.Errorf("the session does not serve on %s after the cancellation", url)
					}
				}
			})
		}
	})
}

// TestLogLevelAcrossReplicas: the log level a client sets on one replica
// applies to its calls served by another, whether that replica already
// holds the session (the level is relayed) or adopts it later (the level
// is in the session's record).
func TestLogLevelAcrossReplicas(t *testing.T) {
	replicaPairs(t, func(t *testing.T, open func() store.Store) {
		st := open()
		a := serveReplica(t, testApp(newProbe()), st)
		b := serveReplica(t, testApp(newProbe()), open())
		c := serveReplica(t, testApp(newProbe()), open())
		h := replicaSession(t, a, `{}`)
		logCall := func(url string, id int) string {
			t.Helper()
			resp := post(t, url, `{"jsonrpc":"2.0","id":`+strconv.Itoa(id)+`,"method":"tools/call","params":{"name":"log","arguments":{}}}`, h)
			data := readSSE(t, resp.Body)
			if !strings.Contains(data, `"logged"`) {
				t.Fatalf("the log tool: %s", data)
			}
			return data
		}
		if data := logCall(a, 2); strings.Contains(data, "notifications/message") {
			t.Fatalf("log messages before a level was chosen: %s", data)
		}
		resp := post(t, b, `{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"debug"}}`, h)
		if data := readSSE(t, resp.Body); !strings.Contains(data, `"result"`) {
			t.Fatalf("logging/setLevel on B: %s %s", resp.Status, data)
		}
		// A held the session before: the level was relayed. It is
		// published before B answers, but A applies it once the Bus has
		// delivered it (milliseconds): a call racing it may miss it.
		var data string
		waitFor(t, "a call on A after logging/setLevel debug on B to send its debug and warning messages", func() bool {
			data = logCall(a, 4)
			return strings.Contains(data, "debug detail") && strings.Contains(data, "slow backend")
		})
		// C adopts the session now: the level is in its record.
		if data := logCall(c, 5); !strings.Contains(data, "debug detail") {
			t.Errorf("a call on C, which adopted the session after logging/setLevel debug on B: %s, want its debug message", data)
		}
		// A level set on A is relayed to B, which holds the session.
		resp = post(t, a, `{"jsonrpc":"2.0","id":6,"method":"logging/setLevel","params":{"level":"warning"}}`, h)
		if data := readSSE(t, resp.Body); !strings.Contains(data, `"result"`) {
			t.Fatalf("logging/setLevel on A: %s %s", resp.Status, data)
		}
		waitFor(t, "a call on B after logging/setLevel warning on A to send only its warning", func() bool {
			data = logCall(b, 7)
			return !strings.Contains(data, "debug detail") && !strings.Contains(data, "starting") && strings.Contains(data, "slow backend")
		})
	})
}
