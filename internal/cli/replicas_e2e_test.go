package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	goredis "github.com/redis/go-redis/v9"

	"github.com/mcpgen/mcpgen/internal/testenv"
)

// buildEverything builds examples/everything (its generated code is
// committed) into a temporary directory.
func buildEverything(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds binaries; skipped with -short")
	}
	bin := filepath.Join(t.TempDir(), "everything")
	if out, errOut, code := run(t, filepath.Join(testenv.Root(), "examples", "everything"), nil, "go", "build", "-o", bin, "."); code != 0 {
		t.Fatalf("go build examples/everything: exit %d\n%s%s", code, out, errOut)
	}
	return bin
}

// startHAProxy runs Debian's HAProxy on a loopback port, balancing round
// robin without stickiness over the given MCP endpoints, and returns its
// MCP endpoint. Each answer names the replica that gave it in the header
// X-Replica: r0, r1, … in the order of upstreams. It is stopped by its
// pid when the test ends. option http-no-delay makes it forward each
// event of a stream as it comes: without it HAProxy sends chunked
// responses with MSG_MORE, and the kernel holds an event stream's
// events back until the response ends or 200 ms pass.
func startHAProxy(t *testing.T, upstreams []string) string {
	t.Helper()
	bin := testenv.HAProxy(t)
	dir := t.TempDir()
	port := freePort(t)
	var servers strings.Builder
	for i, u := range upstreams {
		hostport := strings.TrimSuffix(strings.TrimPrefix(u, "http://"), "/mcp")
		fmt.Fprintf(&servers, "    server r%d %s\n", i, hostport)
	}
	conf := fmt.Sprintf(`global
    maxconn 256
defaults
    mode http
    timeout connect 5s
    timeout client 60s
    timeout server 60s
    timeout tunnel 60s
    option forwardfor
    option http-server-close
    option http-no-delay
    option redispatch
    retries 3
frontend mcp
    bind 127.0.0.1:%d
    default_backend replicas
backend replicas
    balance roundrobin
    option httpchk GET /healthz
    http-response set-header X-Replica %%s
%s`, port, servers.String())
	cfg := filepath.Join(dir, "haproxy.cfg")
	if err := os.WriteFile(cfg, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-db", "-f", cfg)
	var logs strings.Builder
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("haproxy:\n%s", logs.String())
		}
	})
	url := fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	for deadline := time.Now().Add(10 * time.Second); ; {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/healthz", port))
		if err == nil {
			resp.Body.Close()
			return url
		}
		if time.Now().After(deadline) {
			t.Fatalf("haproxy did not listen: %v\n%s", err, logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// startReplicas starts n replicas of bin sharing the store at storeURL,
// trusting the loopback proxy, and puts HAProxy in front.
func startReplicas(t *testing.T, bin, storeURL string, n int, args ...string) (lb string, replicas []*connector) {
	t.Helper()
	var ups []string
	for range n {
		c := startConnector(t, bin, []string{"MCPGEN_STORE=" + storeURL, "MCPGEN_TRUSTED_PROXY=127.0.0.0/8"}, args...)
		replicas = append(replicas, c)
		ups = append(ups, c.url)
	}
	return startHAProxy(t, ups), replicas
}

// callerClient is an HTTP client whose requests name caller in
// X-Forwarded-For, as a client behind another proxy would: the replicas
// trust only HAProxy (loopback), which appends the real peer.
func callerClient(caller string) *http.Client {
	return &http.Client{Transport: headerRT{caller}}
}

type headerRT struct{ caller string }

func (h headerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Forwarded-For", h.caller)
	return http.DefaultTransport.RoundTrip(r)
}

func connect2026(t *testing.T, url string, hc *http.Client, copts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "replicas-test", Version: "1"}, copts).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callTool(ctx context.Context, cs *mcp.ClientSession, name string, args map[string]any) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
}

func resultText(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestReplicasShareState runs three replicas of examples/everything with
// --store redis://… behind HAProxy (round robin, no stickiness) and checks
// the rows of the many-replica table that hold for MCP 2026-07-28 clients.
func TestReplicasShareState(t *testing.T) {
	t.Parallel()
	redis := testenv.StartRedis(t)
	bin := buildEverything(t)
	lb, replicas := startReplicas(t, bin, redis.URL(), 3)
	ctx := context.Background()

	t.Run("requestState elicitation 30/30", func(t *testing.T) {
		cs := connect2026(t, lb, callerClient("198.51.100.1"), &mcp.ClientOptions{
			ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"username": "Bo", "email": "bo@example.com"}}, nil
			},
		})
		ok := 0
		for i := range 30 {
			res, err := callTool(ctx, cs, "test_elicitation", map[string]any{"message": "Who?"})
			if err != nil {
				t.Errorf("call %d: %v", i, err)
				continue
			}
			if res.IsError || !strings.Contains(resultText(res), "action=accept") {
				t.Errorf("call %d: %s", i, resultText(res))
				continue
			}
			ok++
		}
		if ok != 30 {
			t.Errorf("%d/30 elicitations completed across replicas", ok)
		}
	})

	t.Run("subscriptions/listen 30/30", func(t *testing.T) {
		var got atomic.Int64
		listener := connect2026(t, lb, callerClient("198.51.100.2"), &mcp.ClientOptions{
			ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
				if r.Params.URI == "test://watched-resource" {
					got.Add(1)
				}
			},
		})
		if err := listener.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://watched-resource"}); err != nil {
			t.Fatal(err)
		}
		caller := connect2026(t, lb, callerClient("198.51.100.3"), nil)
		for i := range 30 {
			if res, err := callTool(ctx, caller, "update_watched_resource", nil); err != nil || res.IsError {
				t.Fatalf("update %d: %v %v", i, err, res)
			}
		}
		deadline := time.Now().Add(10 * time.Second)
		for got.Load() < 30 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if n := got.Load(); n != 30 {
			t.Errorf("%d/30 resources/updated reached the listener from calls spread over 3 replicas", n)
		}
	})

	t.Run("no store round trip for a 2026 call that keeps no state", func(t *testing.T) {
		cs := connect2026(t, lb, callerClient("198.51.100.6"), nil)
		before := storeCommands(t, redis.Addr)
		if before == 0 {
			t.Fatal("no store commands counted after the notifications above: INFO commandstats not read")
		}
		for i := range 20 {
			if res, err := callTool(ctx, cs, "test_simple_text", nil); err != nil || res.IsError {
				t.Fatalf("call %d: %v %v", i, err, res)
			}
		}
		if n := storeCommands(t, redis.Addr) - before; n != 0 {
			t.Errorf("20 calls of a tool that keeps no state made %d store commands, want 0", n)
		}
	})

	t.Run("kill -9 of a replica", func(t *testing.T) {
		cs := connect2026(t, lb, callerClient("198.51.100.5"), &mcp.ClientOptions{
			ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"username": "Bo", "email": "bo@example.com"}}, nil
			},
		})
		victim := replicas[2]
		if err := victim.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		<-victim.exit
		victim.exit <- -9
		// HAProxy retries a connection refused on another replica, so
		// every call is answered.
		ok := 0
		for i := range 30 {
			res, err := callTool(ctx, cs, "test_elicitation", map[string]any{"message": "Who?"})
			if err == nil && !res.IsError && strings.Contains(resultText(res), "action=accept") {
				ok++
			} else {
				t.Logf("call %d after the kill: %v %v", i, err, res)
			}
		}
		if ok != 30 {
			t.Errorf("%d/30 elicitations completed after a replica was killed", ok)
		}
		replicas = replicas[:2]
	})

	t.Run("Redis restart", func(t *testing.T) {
		cs := connect2026(t, lb, callerClient("198.51.100.4"), &mcp.ClientOptions{
			ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"username": "Bo", "email": "bo@example.com"}}, nil
			},
		})
		redis.Stop()
		health := strings.TrimSuffix(replicas[0].url, "/mcp") + "/healthz"
		deadline := time.Now().Add(15 * time.Second)
		for {
			resp, err := http.Get(health)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if strings.Contains(string(body), "degraded") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("/healthz with Redis down: %d %q; want it to say degraded", resp.StatusCode, body)
			}
			time.Sleep(50 * time.Millisecond)
		}
		// A call that needs no store keeps working.
		if res, err := callTool(ctx, cs, "test_simple_text", nil); err != nil || res.IsError {
			t.Errorf("a stateless call with Redis down: %v %v", err, res)
		}
		redis.Start()
		for {
			res, err := callTool(ctx, cs, "test_elicitation", map[string]any{"message": "Who?"})
			if err == nil && !res.IsError && strings.Contains(resultText(res), "action=accept") {
				break
			}
			if time.Now().After(deadline.Add(15 * time.Second)) {
				t.Fatalf("no recovery after Redis restarted: %v %v", err, res)
			}
			time.Sleep(100 * time.Millisecond)
		}
		for _, r := range replicas {
			if code := exitCode(r); code >= 0 {
				t.Errorf("a replica exited (%d) while Redis restarted", code)
			}
			if n := strings.Count(r.stderr(), "lost Redis"); n > 1 {
				t.Errorf("a replica logged the lost store %d times, want once", n)
			}
		}
	})
}

// storeCommands returns how many commands the Redis at addr has run,
// leaving out the replicas' health pings and the question itself.
func storeCommands(t *testing.T, addr string) int {
	t.Helper()
	c := goredis.NewClient(&goredis.Options{Addr: addr})
	defer c.Close()
	info, err := c.Info(context.Background(), "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(info, "\n") {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":calls=")
		if !ok || name == "cmdstat_ping" || name == "cmdstat_info" || name == "cmdstat_hello" || name == "cmdstat_client|setinfo" {
			continue
		}
		calls, _, _ := strings.Cut(rest, ",")
		var k int
		fmt.Sscan(calls, &k)
		n += k
	}
	return n
}

// exitCode returns the replica's exit code, or -1 while it runs.
func exitCode(c *connector) int {
	select {
	case code := <-c.exit:
		c.exit <- code
		return code
	default:
		return -1
	}
}

// TestReplicasRateLimit: --rate-limit 10/1m with three replicas behind
// HAProxy allows exactly 10 calls of one caller, and callers behind the
// proxy get their own buckets.
func TestReplicasRateLimit(t *testing.T) {
	t.Parallel()
	redis := testenv.StartRedis(t)
	bin := buildEverything(t)
	lb, _ := startReplicas(t, bin, redis.URL(), 3, "--rate-limit", "10/1m")
	ctx := context.Background()
	count := func(caller string) int {
		cs := connect2026(t, lb, callerClient(caller), nil)
		allowed := 0
		for i := range 30 {
			res, err := callTool(ctx, cs, "test_simple_text", nil)
			if err != nil {
				t.Fatalf("call %d: %v", i, err)
			}
			if !res.IsError {
				allowed++
			} else if !strings.Contains(resultText(res), "Rate limit reached") {
				t.Errorf("call %d refused for another reason: %s", i, resultText(res))
			}
		}
		return allowed
	}
	var wg sync.WaitGroup
	got := make([]int, 2)
	for i, caller := range []string{"198.51.100.10", "198.51.100.11"} {
		wg.Go(func() { got[i] = count(caller) })
	}
	wg.Wait()
	for i, n := range got {
		if n != 10 {
			t.Errorf("caller %d: %d of 30 calls allowed across 3 replicas with --rate-limit 10/1m, want exactly 10", i, n)
		}
	}
}

// TestReplicasSessionNotifications: a 2025-11-25 session subscribed on one
// replica hears of updates made by a session on another (10/10), and keeps
// working across a Redis restart.
func TestReplicasSessionNotifications(t *testing.T) {
	t.Parallel()
	redis := testenv.StartRedis(t)
	bin := buildEverything(t)
	_, replicas := startReplicas(t, bin, redis.URL(), 2)
	ctx := context.Background()
	connect := func(url string, copts *mcp.ClientOptions) *mcp.ClientSession {
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "replicas-test", Version: "1"}, copts).
			Connect(cctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	var got atomic.Int64
	listener := connect(replicas[0].url, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
			if r.Params.URI == "test://watched-resource" {
				got.Add(1)
			}
		},
	})
	if err := listener.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://watched-resource"}); err != nil {
		t.Fatal(err)
	}
	other := connect(replicas[1].url, nil)
	for i := range 10 {
		if res, err := callTool(ctx, other, "update_watched_resource", nil); err != nil || res.IsError {
			t.Fatalf("update %d on the other replica: %v %v", i, err, res)
		}
	}
	for deadline := time.Now().Add(10 * time.Second); got.Load() < 10 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if n := got.Load(); n != 10 {
		t.Errorf("%d/10 resources/updated reached a 2025 session on replica A from a session on replica B", n)
	}

	// Redis restarts: the session is in the process and works again once
	// the store is back.
	redis.Stop()
	time.Sleep(1500 * time.Millisecond) // the replicas notice (a ping a second)
	_, errDown := callTool(ctx, listener, "test_simple_text", nil)
	redis.Start()
	deadline := time.Now().Add(20 * time.Second)
	for {
		res, err := callTool(ctx, listener, "test_simple_text", nil)
		if err == nil && !res.IsError {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a 2025 session did not work again after Redis restarted: %v %v", err, res)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("a 2025 session call while Redis was down: %v", errDown)
}

// TestReplicasTypeScript has the official TypeScript SDK client (v2),
// pinned to 2026-07-28, use three replicas behind HAProxy: 30/30
// elicitations by requestState and 30/30 resources/updated on a
// subscriptions/listen stream from calls spread over the replicas.
func TestReplicasTypeScript(t *testing.T) {
	t.Parallel()
	node := testenv.Node(t)
	modules := testenv.NodeModules(t, "@modelcontextprotocol/client")
	redis := testenv.StartRedis(t)
	bin := buildEverything(t)
	lb, _ := startReplicas(t, bin, redis.URL(), 3)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	script, _ := filepath.Abs(filepath.Join("testdata", "tsreplicas.mjs"))
	out, err := exec.CommandContext(ctx, node, script, modules, lb, "30").CombinedOutput()
	if err != nil {
		t.Fatalf("the TypeScript clients failed: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var got struct {
		Version                     string
		Answered, Elicited, Updated int
		Failures                    []string
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
		t.Fatalf("reading the clients' report: %v\n%s", err, out)
	}
	t.Logf("clients report: %s", lines[len(lines)-1])
	if got.Version != "2026-07-28" {
		t.Errorf("negotiated %q, want 2026-07-28", got.Version)
	}
	if got.Answered != 30 || got.Elicited != 30 {
		t.Errorf("%d/30 elicitations completed (%d questions asked) across replicas; failures: %q", got.Answered, got.Elicited, got.Failures)
	}
	if got.Updated != 30 {
		t.Errorf("%d/30 resources/updated reached the listen stream", got.Updated)
	}
}

// TestReplicasSessions: 2025-11-25 session clients (the Go SDK's) connect
// and call through three replicas behind HAProxy round robin without
// stickiness: every request may land on a replica that did not create
// the session, which adopts it from the store (20/20).
func TestReplicasSessions(t *testing.T) {
	t.Parallel()
	redis := testenv.StartRedis(t)
	bin := buildEverything(t)
	lb, replicas := startReplicas(t, bin, redis.URL(), 3)
	ctx := context.Background()
	ok := 0
	for i := range 20 {
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "session-client", Version: "1"}, nil).
			Connect(cctx, &mcp.StreamableClientTransport{Endpoint: lb, HTTPClient: callerClient(fmt.Sprintf("198.51.100.%d", 100+i))}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		cancel()
		if err != nil {
			t.Errorf("client %d: connect: %v", i, err)
			continue
		}
		good := true
		for j := range 3 {
			res, err := callTool(ctx, cs, "test_simple_text", nil)
			if err != nil || res.IsError {
				t.Errorf("client %d call %d: %v %v", i, j, err, res)
				good = false
				break
			}
		}
		cs.Close()
		if good {
			ok++
		}
	}
	if ok != 20 {
		t.Errorf("%d/20 session clients connected and called across replicas", ok)
	}

	// A session subscribed through the load balancer hears of updates
	// made by another session, whichever replicas its requests and its
	// GET stream landed on.
	var got atomic.Int64
	connect := func(copts *mcp.ClientOptions) *mcp.ClientSession {
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "session-client", Version: "1"}, copts).
			Connect(cctx, &mcp.StreamableClientTransport{Endpoint: lb}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	listener := connect(&mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
			if r.Params.URI == "test://watched-resource" {
				got.Add(1)
			}
		},
	})
	if err := listener.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://watched-resource"}); err != nil {
		t.Fatal(err)
	}
	updater := connect(nil)
	// The subscription reaches the replica holding the GET stream over
	// the bus: update until the first notification arrives, then count.
	for deadline := time.Now().Add(10 * time.Second); got.Load() == 0; {
		if time.Now().After(deadline) {
			t.Fatal("no resources/updated reached a 2025 session subscribed through the load balancer within 10s")
		}
		if res, err := callTool(ctx, updater, "update_watched_resource", nil); err != nil || res.IsError {
			t.Fatalf("update: %v %v", err, res)
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // let notifications of the updates above arrive
	got.Store(0)
	for i := range 10 {
		if res, err := callTool(ctx, updater, "update_watched_resource", nil); err != nil || res.IsError {
			t.Fatalf("update %d: %v %v", i, err, res)
		}
	}
	for deadline := time.Now().Add(10 * time.Second); got.Load() < 10 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if n := got.Load(); n != 10 {
		t.Errorf("%d/10 resources/updated reached a 2025 session subscribed through the load balancer", n)
	}

	// Questions: an elicitation's answer may land on any replica and
	// reaches the one running the call.
	asker := connect(&mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"username": "Bo", "email": "bo@example.com"}}, nil
		},
	})
	answered := 0
	for i := range 10 {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		res, err := callTool(cctx, asker, "test_elicitation", map[string]any{"message": "Who?"})
		cancel()
		if err == nil && !res.IsError && strings.Contains(resultText(res), "action=accept") {
			answered++
		} else {
			t.Logf("elicitation %d: %v %v", i, err, res)
		}
	}
	if answered != 10 {
		t.Errorf("%d/10 elicitations of a 2025 session answered across replicas", answered)
	}

	// kill -9 of a replica mid-session: sessions it created or held go on
	// on the others (6/6 still answer).
	var sessions []*mcp.ClientSession
	for range 6 {
		cs := connect(nil)
		if res, err := callTool(ctx, cs, "test_simple_text", nil); err != nil || res.IsError {
			t.Fatalf("before the kill: %v %v", err, res)
		}
		sessions = append(sessions, cs)
	}
	if err := replicas[0].cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-replicas[0].exit
	replicas[0].exit <- -9
	alive := 0
	for i, cs := range sessions {
		res, err := callTool(ctx, cs, "test_simple_text", nil)
		if err == nil && !res.IsError {
			alive++
		} else {
			t.Logf("session %d after the kill: %v %v", i, err, res)
		}
	}
	if alive != 6 {
		t.Errorf("%d/6 sessions still answered after a replica was killed", alive)
	}
}

// TestReplicasTypeScriptSessions has official TypeScript SDK clients (v2)
// speaking 2025-11-25 use three replicas behind HAProxy round robin:
// 20/20 connect and call, 20/20 elicitations answered, 20/20
// resources/updated on the session's GET stream.
func TestReplicasTypeScriptSessions(t *testing.T) {
	t.Parallel()
	node := testenv.Node(t)
	modules := testenv.NodeModules(t, "@modelcontextprotocol/client")
	redis := testenv.StartRedis(t)
	bin := buildEverything(t)
	lb, _ := startReplicas(t, bin, redis.URL(), 3)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	script, _ := filepath.Abs(filepath.Join("testdata", "tsreplicas_sessions.mjs"))
	out, err := exec.CommandContext(ctx, node, script, modules, lb, "20").CombinedOutput()
	if err != nil {
		t.Fatalf("the TypeScript clients failed: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var got struct {
		Version                                string
		Connected, Answered, Elicited, Updated int
		Failures                               []string
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
		t.Fatalf("reading the clients' report: %v\n%s", err, out)
	}
	t.Logf("clients report: %s", lines[len(lines)-1])
	if got.Version != "2025-11-25" {
		t.Errorf("negotiated %q, want 2025-11-25", got.Version)
	}
	if got.Connected != 20 {
		t.Errorf("%d/20 session clients connected and called; failures: %q", got.Connected, got.Failures)
	}
	if got.Answered != 20 {
		t.Errorf("%d/20 elicitations answered (%d asked); failures: %q", got.Answered, got.Elicited, got.Failures)
	}
	if got.Updated != 20 {
		t.Errorf("%d/20 resources/updated reached the session", got.Updated)
	}
}
