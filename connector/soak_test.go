package connector_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/connector"
	"github.com/mcpgen/mcpgen/connector/store"
)

// soakPost posts body and returns the data of its response; unlike post,
// it keeps nothing for the test's cleanup, so the heap measures the server.
func soakPost(t *testing.T, url, body string, header map[string]string) (string, http.Header) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	return readSSE(t, resp.Body), resp.Header
}

func heapAfterGC() uint64 {
	var m goruntime.MemStats
	goruntime.GC()
	goruntime.GC()
	goruntime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestAbandonedSessionsExpire opens many sessions and abandons them (no
// DELETE, as clients that crash or lose the network do): they expire after
// the idle timeout and their memory returns.
func TestAbandonedSessionsExpire(t *testing.T) {
	if testing.Short() {
		t.Skip("a soak test")
	}
	const n = 300
	s, err := connector.NewServer(testApp(newProbe()), connector.WithLogger(quietLogger(nil)), connector.WithSessionIdle(2*time.Second), connector.WithMaxSessions(n, n))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	base := heapAfterGC()
	for i := range n {
		_, rh := soakPost(t, ts.URL, initBody, nil)
		if rh.Get("Mcp-Session-Id") == "" {
			t.Fatalf("session %d: no session id", i)
		}
		h := map[string]string{"Mcp-Session-Id": rh.Get("Mcp-Session-Id"), "Mcp-Protocol-Version": "2025-11-25"}
		soakPost(t, ts.URL, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, h)
		soakPost(t, ts.URL, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, h)
	}
	open := connector.SessionCount(s) // all of them, unless this machine is very slow
	peak := heapAfterGC()
	// Bounded waits, generous for a loaded machine: the idle timer fires
	// 2 s after each session's last request.
	poll := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
		}
	}
	poll("the abandoned sessions to expire", func() bool { return connector.SessionCount(s) == 0 })
	var after uint64
	poll("their memory to return", func() bool {
		after = heapAfterGC()
		return after < base+max((peak-base)/4, 512<<10)
	})
	t.Logf("heap: %d KiB before, %d KiB with %d sessions open, %d KiB after they expired", base>>10, peak>>10, open, after>>10)
}

// TestLongSessionBounded calls a tool thousands of times in one session:
// the session's memory (its resumption events above all) stops growing.
func TestLongSessionBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("a soak test")
	}
	store := store.NewMemoryEvents(0, 0)
	s, err := connector.NewServer(testApp(newProbe()), connector.WithLogger(quietLogger(nil)), connector.WithEventStore(store))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	h := rawSession(t, ts.URL)
	calls := func(n int) {
		for i := range n {
			// tools/list and a tool call: both answered on resumable streams.
			body := `{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`
			if i%2 == 1 {
				body = `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"find_orders","arguments":{"customer":"C1","limit":50}}}`
			}
			if got, _ := soakPost(t, ts.URL, fmt.Sprintf(body, 1000+i), h); !strings.Contains(got, `"result"`) {
				t.Fatalf("call %d: %s", i, got)
			}
		}
	}
	calls(500)
	warm := heapAfterGC()
	calls(2500)
	after := heapAfterGC()
	sessions, streams, bytes := store.Stats()
	t.Logf("heap %d KiB after 500 requests, %d KiB after 3000; event store: %d sessions, %d streams, %d KiB", warm>>10, after>>10, sessions, streams, bytes>>10)
	if streams > connector.DefaultEventStoreStreams {
		t.Errorf("the event store keeps %d streams of one session, want at most %d", streams, connector.DefaultEventStoreStreams)
	}
	if after > warm+2<<20 {
		t.Errorf("the heap grew by %d KiB over 2500 requests in one session", (after-warm)>>10)
	}
}

// TestNoGrowthPerCall calls a tool tens of thousands of times, in a
// session, without one and at 2026-07-28, and checks that the server's
// live heap does not grow with the number of calls: whatever a call
// keeps (in-flight entries, stream state, log buffers, caches) is let go
// once it is answered. It is bench/load's growth per call, measured
// without the noise of a process's resident memory.
func TestNoGrowthPerCall(t *testing.T) {
	if testing.Short() {
		t.Skip("a soak test")
	}
	app := testApp(newProbe())
	app.Tools[0].NeverAsks = true // served on the fast path without a session too
	s, err := connector.NewServer(app, connector.WithLogger(quietLogger(nil)))
	if err != nil {
		t.Fatal(err)
	}
	h := s.Handler()
	post := func(body string, header map[string]string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(body))
		req.RemoteAddr = "127.0.0.1:1234"
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range header {
			req.Header.Set(k, v)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	rec := post(initBody, nil)
	sid := rec.Header().Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatalf("initialize: no session: %d %s", rec.Code, rec.Body)
	}
	session := map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25"}
	if rec := post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, session); rec.Code != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %d %s", rec.Code, rec.Body)
	}
	const call = `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"find_orders","arguments":{"customer":"C%d"}}%s}`
	for _, c := range []struct {
		name   string
		header map[string]string
		meta   string
	}{
		{"session", session, ""},
		{"without a session", map[string]string{"Mcp-Protocol-Version": "2025-11-25"}, ""},
		{"2026-07-28", map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "find_orders"},
			`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"soak","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			meta := ""
			if c.meta != "" {
				meta = strings.Replace(call, "%s", "", 1)
				meta = meta[:len(meta)-2] + c.meta + "}}"
			}
			calls := func(from, n int) {
				for i := from; i < from+n; i++ {
					var body string
					if meta != "" {
						body = fmt.Sprintf(meta, i, i%100)
					} else {
						body = fmt.Sprintf(call, i, i%100, "")
					}
					if rec := post(body, c.header); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"orders"`) {
						t.Fatalf("call %d: %d %s", i, rec.Code, rec.Body)
					}
				}
			}
			const warm, n = 3000, 30000
			calls(1, warm)
			before := heapAfterGC()
			calls(1+warm, n)
			after := heapAfterGC()
			perCall := (float64(after) - float64(before)) / n
			t.Logf("live heap %d B after %d calls, %d B after %d more: %.2f B a call", before, warm, after, n, perCall)
			if perCall >= 1 {
				t.Errorf("the live heap grew by %.2f B a call over %d calls, want 0", perCall, n)
			}
		})
	}
}
