package cli_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpgen/mcpgen/internal/testenv"
)

// fixedReplicas is a set of replicas of one binary, each on a port of its
// own that it keeps across restarts, behind HAProxy.
type fixedReplicas struct {
	t     *testing.T
	bin   string
	env   []string
	args  []string
	ports []int
	mu    sync.Mutex
	procs []*connector
}

// startFixedReplicas starts n replicas of bin sharing the store at
// storeURL on ports of their own, and HAProxy in front of them.
func startFixedReplicas(t *testing.T, bin, storeURL string, n int, args ...string) (lb string, rs *fixedReplicas) {
	t.Helper()
	rs = &fixedReplicas{t: t, bin: bin, env: []string{"MCPGEN_STORE=" + storeURL, "MCPGEN_TRUSTED_PROXY=127.0.0.0/8"}, args: args}
	var ups []string
	for i := range n {
		rs.ports = append(rs.ports, freePort(t))
		rs.procs = append(rs.procs, nil)
		rs.start(i)
		ups = append(ups, rs.procs[i].url)
	}
	return startHAProxy(t, ups), rs
}

// start (re)starts replica i on its port.
func (rs *fixedReplicas) start(i int) {
	rs.t.Helper()
	args := append([]string{"--addr", fmt.Sprintf("127.0.0.1:%d", rs.ports[i])}, rs.args...)
	c := startConnector(rs.t, rs.bin, rs.env, args...)
	rs.mu.Lock()
	rs.procs[i] = c
	rs.mu.Unlock()
}

// stop ends replica i with sig (SIGKILL or SIGTERM) and waits, at most
// 20 s, for it to exit; it returns the exit code.
func (rs *fixedReplicas) stop(i int, sig syscall.Signal) int {
	rs.t.Helper()
	rs.mu.Lock()
	c := rs.procs[i]
	rs.mu.Unlock()
	if err := c.cmd.Process.Signal(sig); err != nil {
		rs.t.Fatal(err)
	}
	select {
	case code := <-c.exit:
		c.exit <- code
		return code
	case <-time.After(20 * time.Second):
		rs.t.Fatalf("replica r%d did not exit within 20s of %v", i, sig)
		return -1
	}
}

// replicaIndex reads HAProxy's X-Replica header (r0, r1, …).
func replicaIndex(resp *http.Response) int {
	var i int
	if _, err := fmt.Sscanf(resp.Header.Get("X-Replica"), "r%d", &i); err != nil {
		return -1
	}
	return i
}

// sseEvent is one server-sent event.
type sseEvent struct {
	ID, Data string
}

// readEvents sends the events of an SSE body to the returned channel,
// which is closed when the body ends.
func readEvents(body io.Reader) <-chan sseEvent {
	ch := make(chan sseEvent, 16)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(body)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		var ev sseEvent
		var data []string
		for sc.Scan() {
			line := sc.Text()
			if line == "" {
				ev.Data = strings.Join(data, "\n")
				if ev.ID != "" || ev.Data != "" {
					ch <- ev
				}
				ev, data = sseEvent{}, nil
				continue
			}
			field, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			switch field {
			case "id":
				ev.ID = value
			case "data":
				data = append(data, value)
			}
		}
	}()
	return ch
}

// rawSession is a 2025-11-25 session spoken by hand through the proxy, to
// control when a response stream is dropped and how it is resumed.
type rawSession struct {
	t  *testing.T
	lb string
	id string
	hc *http.Client
}

func (s *rawSession) request(ctx context.Context, method, body string, header map[string]string) (*http.Response, error) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, s.lb, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if s.id != "" {
		req.Header.Set("Mcp-Session-Id", s.id)
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	return s.hc.Do(req)
}

// openRawSession initializes a 2025-11-25 session through lb.
func openRawSession(t *testing.T, lb string) *rawSession {
	t.Helper()
	s := &rawSession{t: t, lb: lb, hc: &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := s.request(ctx, http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"resume-test","version":"1"}}}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	s.id = resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || s.id == "" || !strings.Contains(string(body), `"2025-11-25"`) {
		t.Fatalf("initialize: %d %q session %q", resp.StatusCode, body, s.id)
	}
	resp, err = s.request(ctx, http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %d", resp.StatusCode)
	}
	return s
}

// progressOf returns the progress of a notifications/progress event, or -1.
func progressOf(data string) float64 {
	var m struct {
		Method string `json:"method"`
		Params struct {
			Progress float64 `json:"progress"`
		} `json:"params"`
	}
	if json.Unmarshal([]byte(data), &m) != nil || m.Method != "notifications/progress" {
		return -1
	}
	return m.Params.Progress
}

// TestReplicasResumeAfterOwnerLost: a 2025-11-25 session's tools/call is
// answered on an SSE stream by replica A; the client drops the stream
// after the first progress notification, A is killed (-9) or restarted
// (SIGTERM, drained, started again on its port), and the client resumes
// with GET + Last-Event-ID through the proxy: whichever replica answers
// replays from the shared event store the progress it missed and the
// result: 6/6 after a kill once the call has ended, 6/6 after a restart
// once it has ended, and 6/6 after a restart while it runs.
func TestReplicasResumeAfterOwnerLost(t *testing.T) {
	t.Parallel()
	redis := testenv.StartRedis(t)
	bin := buildEverything(t)
	lb, rs := startFixedReplicas(t, bin, redis.URL(), 3, "--drain", "5s")

	trial := func(t *testing.T, sig syscall.Signal, wait time.Duration) error {
		s := openRawSession(t, lb)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		callCtx, dropCall := context.WithCancel(ctx)
		defer dropCall()
		resp, err := s.request(callCtx, http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_tool_with_progress","arguments":{},"_meta":{"progressToken":"p"}}}`, nil)
		if err != nil {
			return fmt.Errorf("tools/call: %w", err)
		}
		owner := replicaIndex(resp)
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") || owner < 0 {
			resp.Body.Close()
			return fmt.Errorf("tools/call: %d %s from %q", resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("X-Replica"))
		}
		// Read up to the first progress notification, then drop the
		// connection: what follows is left for the resumption.
		lastID := ""
		events := readEvents(resp.Body)
		for ev := range events {
			if ev.ID != "" {
				lastID = ev.ID
			}
			if progressOf(ev.Data) == 0 {
				break
			}
			if strings.Contains(ev.Data, `"result"`) {
				break
			}
		}
		dropCall()
		resp.Body.Close()
		for range events {
		}
		if lastID == "" {
			return fmt.Errorf("no event id on the response stream of r%d: nothing to resume from", owner)
		}
		// The owner goes once the tool has finished (100 ms), or while it
		// runs (wait 0: a drain lets it finish).
		time.Sleep(wait)
		stopped := time.Now()
		if code := rs.stop(owner, sig); sig == syscall.SIGTERM && code != 0 {
			t.Logf("r%d exited %d after SIGTERM", owner, code)
		}
		exited := time.Since(stopped).Round(time.Millisecond)
		if sig == syscall.SIGTERM {
			rs.start(owner)
		}
		resp, err = s.request(ctx, http.MethodGet, "", map[string]string{"Last-Event-ID": lastID, "Accept": "text/event-stream"})
		if err != nil {
			return fmt.Errorf("GET with Last-Event-ID %s: %w", lastID, err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			body, _ := io.ReadAll(resp.Body)
			return fmt.Errorf("GET with Last-Event-ID %s on %s (owner r%d gone by %v): %d %q", lastID, resp.Header.Get("X-Replica"), owner, sig, resp.StatusCode, body)
		}
		var got []float64
		result := ""
		timeout := time.After(10 * time.Second)
	read:
		for events := readEvents(resp.Body); ; {
			select {
			case ev, ok := <-events:
				if !ok {
					break read
				}
				if p := progressOf(ev.Data); p >= 0 {
					got = append(got, p)
				} else if strings.Contains(ev.Data, `"id":2`) {
					result = ev.Data
					break read
				}
			case <-timeout:
				break read
			}
		}
		if sig == syscall.SIGKILL {
			rs.start(owner)
		}
		if fmt.Sprint(got) != "[50 100]" || !strings.Contains(result, "Tool with progress executed successfully") {
			return fmt.Errorf("resumed after %s on %s (owner r%d gone by %v, exited in %v): progress %v, result %q", lastID, resp.Header.Get("X-Replica"), owner, sig, exited, got, result)
		}
		t.Logf("resumed after %s on %s (owner r%d gone by %v, exited in %v): progress %v and the result", lastID, resp.Header.Get("X-Replica"), owner, sig, exited, got)
		return nil
	}
	for _, c := range []struct {
		name string
		sig  syscall.Signal
		wait time.Duration
	}{
		{"kill -9", syscall.SIGKILL, 300 * time.Millisecond},
		{"restart", syscall.SIGTERM, 300 * time.Millisecond},
		// The drain waits for the answer of a call whose client has gone
		// to reach the store (connector/adoptdrain.go); before, it was
		// lost in one trial in three.
		{"restart while the call runs", syscall.SIGTERM, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			ok := 0
			for i := range 6 {
				if err := trial(t, c.sig, c.wait); err != nil {
					t.Logf("trial %d: %v", i, err)
				} else {
					ok++
				}
			}
			if ok != 6 {
				t.Errorf("%d/6 response streams resumed with Last-Event-ID after their replica was lost (%s)", ok, c.name)
			}
		})
	}
}

// TestReplicasRollingRestart: 2025-11-25 session clients (the Go SDK's)
// call in a loop through HAProxy while the three replicas are restarted
// one at a time (SIGTERM: the replica drains; then it starts again on its
// port). No session is lost: every call succeeds, at worst after the
// client retries a refusal of the draining replica, and no session is
// answered 404.
func TestReplicasRollingRestart(t *testing.T) {
	t.Parallel()
	redis := testenv.StartRedis(t)
	bin := buildEverything(t)
	lb, rs := startFixedReplicas(t, bin, redis.URL(), 3, "--drain", "5s")
	const clients = 6
	var calls, retried, failed, lost atomic.Int64
	var failures sync.Map
	seen := &countingRT{}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := range clients {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "rolling-client", Version: "1"}, nil).
			Connect(ctx, &mcp.StreamableClientTransport{Endpoint: lb, HTTPClient: &http.Client{Transport: seen.with(fmt.Sprintf("198.51.100.%d", 150+i))}}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		cancel()
		if err != nil {
			t.Fatalf("client %d: connect: %v", i, err)
		}
		t.Cleanup(func() { cs.Close() })
		wg.Go(func() {
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				// Every other call is one that streams progress for
				// 100 ms, so that calls are in flight when a drain begins.
				tool, args := "test_simple_text", map[string]any(nil)
				if n%2 == 1 {
					tool = "test_tool_with_progress"
				}
				// A call is retried a few times (a draining replica
				// refuses it with 503 before it runs: retrying is safe).
				var err error
				for attempt := range 5 {
					var res *mcp.CallToolResult
					res, err = callTool(context.Background(), cs, tool, args)
					if err == nil && res.IsError {
						err = errors.New(resultText(res))
					}
					if err == nil {
						break
					}
					if errors.Is(err, mcp.ErrSessionMissing) || strings.Contains(err.Error(), "session not found") {
						lost.Add(1)
						failures.Store(fmt.Sprintf("client %d: %v", i, err), true)
						return
					}
					if attempt < 4 {
						retried.Add(1)
						time.Sleep(200 * time.Millisecond)
					}
				}
				calls.Add(1)
				if err != nil {
					failed.Add(1)
					failures.Store(fmt.Sprintf("client %d: %v", i, err), true)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
	time.Sleep(500 * time.Millisecond)
	for i := range rs.ports {
		if code := rs.stop(i, syscall.SIGTERM); code != 0 {
			t.Errorf("r%d exited %d after SIGTERM, want 0 after a drain", i, code)
		}
		rs.mu.Lock()
		logs := rs.procs[i].stderr()
		rs.mu.Unlock()
		if !strings.Contains(logs, "draining") {
			t.Errorf("r%d did not log its drain:\n%s", i, logs)
		}
		rs.start(i)
		time.Sleep(1 * time.Second) // in service again before the next goes
	}
	time.Sleep(500 * time.Millisecond)
	close(stop)
	wg.Wait()
	failures.Range(func(k, _ any) bool { t.Log(k); return true })
	t.Logf("rolling restart of 3 replicas, %d session clients: %d calls, %d retried attempts, %d calls failed, %d sessions lost; HTTP answers %s",
		clients, calls.Load(), retried.Load(), failed.Load(), lost.Load(), seen)

	if lost.Load() != 0 || failed.Load() != 0 {
		t.Errorf("%d/%d sessions lost and %d/%d calls failed across a rolling restart", lost.Load(), clients, failed.Load(), calls.Load())
	}
	if calls.Load() < 100 {
		t.Errorf("only %d calls made during the rollout", calls.Load())
	}
}

// countingRT sends requests as callerClient does and counts the answers by
// replica and status.
type countingRT struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *countingRT) with(caller string) http.RoundTripper {
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		resp, err := headerRT{caller}.RoundTrip(r)
		key := "error"
		if err == nil {
			key = fmt.Sprintf("%s %s %d", resp.Header.Get("X-Replica"), r.Method, resp.StatusCode)
		}
		c.mu.Lock()
		if c.n == nil {
			c.n = map[string]int{}
		}
		c.n[key]++
		c.mu.Unlock()
		return resp, err
	})
}

func (c *countingRT) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return fmt.Sprint(c.n)
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
