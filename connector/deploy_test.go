package connector_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/connector"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hostTransport sends every request with a fixed Host header and Origin,
// as a reverse proxy and a browser page would.
type hostTransport struct{ host, origin string }

func (h hostTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if h.host != "" {
		r.Host = h.host
	}
	if h.origin != "" {
		r.Header.Set("Origin", h.origin)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// startRun runs a connector in-process with args and env and returns its
// URL, its stderr, a stop function (as SIGTERM) and the exit code channel.
func startRun(t *testing.T, app *connector.App, args []string, env map[string]string) (string, *syncBuffer, context.CancelFunc, chan int) {
	t.Helper()
	var stderr syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done, exited := make(chan int, 1), make(chan struct{})
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	go func() {
		done <- connector.Run(ctx, app, args, strings.NewReader(""), io.Discard, &stderr, connector.WithEnv(lookup))
		close(exited)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			t.Errorf("Run did not return; stderr:\n%s", stderr.String())
		}
	})
	urlRE := regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+/mcp`)
	var url string
	waitFor(t, "the URL on stderr", func() bool { url = urlRE.FindString(stderr.String()); return url != "" })
	return url, &stderr, cancel, done
}

func status(t *testing.T, method, url, host, origin, body string) int {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	if host != "" {
		req.Host = host
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

const deployInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

func TestRunBehindProxyHostsAndOrigins(t *testing.T) {
	url, stderr, _, _ := startRun(t, testApp(newProbe()), []string{"--addr", "127.0.0.1:0", "--log-format", "json"}, map[string]string{
		"MCPGEN_ALLOW_HOST":   "connector.example.test,*.tunnel.example.test",
		"MCPGEN_ALLOW_ORIGIN": "https://app.example.test",
	})
	health := strings.TrimSuffix(url, "/mcp") + "/healthz"
	if c := status(t, "GET", health, "", "", ""); c != 200 {
		t.Errorf("healthz: %d", c)
	}
	if c := status(t, "GET", health, "10.1.2.3:8080", "", ""); c != 200 {
		t.Errorf("healthz by IP: %d", c)
	}
	// --healthcheck, as a container's HEALTHCHECK runs it; PORT alone
	// means 0.0.0.0:PORT, probed on loopback.
	hostport := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")
	_, port, _ := strings.Cut(hostport, ":")
	for _, env := range []map[string]string{{"MCPGEN_ADDR": hostport}, {"PORT": port}} {
		var out syncBuffer
		if code := connector.Run(context.Background(), testApp(newProbe()), []string{"--healthcheck"}, strings.NewReader(""), io.Discard, &out,
			connector.WithEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok })); code != 0 {
			t.Errorf("--healthcheck with %v: exit %d: %s", env, code, out.String())
		}
	}
	// A real client through the admitted name and origin.
	hc := &http.Client{Transport: hostTransport{"connector.example.test", "https://app.example.test"}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "proxied", Version: "1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if res := call(t, cs, "find_orders", map[string]any{"customer": "C1", "limit": 1}); res.IsError {
		t.Errorf("find_orders through the admitted host: %s", textOf(t, res))
	}
	for _, tc := range []struct {
		host, origin string
		want         int
	}{
		{"connector.example.test", "", 200},
		{"Connector.Example.Test:443", "https://app.example.test", 200},
		{"localhost:1", "", 200},
		{"evil.example.test", "", 403},
		{"abc.tunnel.example.test", "", 200},
		{"tunnel.example.test", "", 403},
		{"abc.tunnel.example.test.evil.test", "", 403},
		{"connector.example.test", "https://evil.example.test", 403},
		{"connector.example.test", "http://app.example.test", 403},
	} {
		if c := status(t, "POST", url, tc.host, tc.origin, deployInit); c != tc.want {
			t.Errorf("Host %q Origin %q: %d, want %d", tc.host, tc.origin, c, tc.want)
		}
	}
	stderr.waitFor(t, `"msg":"refused","why":"Host not admitted (--allow-host, --public-url)","host":"evil.example.test"`)
	// One request log line per JSON-RPC request, in JSON.
	var found bool
	for _, line := range strings.Split(stderr.String(), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) != nil || rec["msg"] != "request" || rec["method"] != "tools/call" {
			continue
		}
		found = true
		if rec["tool"] != "find_orders" || rec["outcome"] != "ok" || rec["session"] != cs.ID() || rec["duration"] == nil {
			t.Errorf("request log line: %s", line)
		}
	}
	if !found {
		t.Errorf("no request log line for tools/call:\n%s", stderr.String())
	}
}

func TestRunRefusesLoopbackRebinding(t *testing.T) {
	url, _, _, _ := startRun(t, testApp(newProbe()), []string{"--addr", "127.0.0.1:0"}, nil)
	if c := status(t, "POST", url, "attacker.example.test", "", deployInit); c != 403 {
		t.Errorf("foreign Host on loopback without --allow-host: %d", c)
	}
	if c := status(t, "POST", url, "", "https://attacker.example.test", deployInit); c != 403 {
		t.Errorf("foreign Origin: %d", c)
	}
}

// holdApp has one tool that runs until the test releases it.
func holdApp(started chan<- struct{}, release <-chan struct{}) *connector.App {
	return &connector.App{Name: "hold", Version: "1", Tools: []connector.Tool{{
		Name: "hold", Description: "Runs until released.", InputSchema: emptyInput, Result: connector.ResultText,
		Handler: noInput(func(ctx context.Context) (any, error) {
			started <- struct{}{}
			select {
			case <-release:
				return "finished", nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}),
	}}}
}

func TestRunDrain(t *testing.T) {
	started, release := make(chan struct{}, 1), make(chan struct{})
	url, stderr, stop, done := startRun(t, holdApp(started, release), []string{"--addr", "127.0.0.1:0", "--drain", "20s"}, nil)
	health := strings.TrimSuffix(url, "/mcp") + "/healthz"

	// A raw session with an open GET event stream.
	req, _ := http.NewRequest("POST", url, strings.NewReader(deployInit))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	post := func(body string) {
		req, _ := http.NewRequest("POST", url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	greq, _ := http.NewRequest("GET", url, nil)
	greq.Header.Set("Accept", "text/event-stream")
	greq.Header.Set("Mcp-Session-Id", sid)
	greq.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	gresp, err := http.DefaultClient.Do(greq)
	if err != nil || gresp.StatusCode != 200 {
		t.Fatalf("GET stream: %v %v", err, gresp)
	}
	streamBody := make(chan string, 1)
	go func() { b, _ := io.ReadAll(gresp.Body); streamBody <- string(b) }()

	// A real client's call in flight.
	cs := httpClient(t, url, "2025-11-25", nil)
	result := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "hold"})
		if err != nil {
			t.Errorf("hold: %v", err)
		}
		result <- res
	}()
	<-started
	// A health check whose connection is open, its request half sent, when
	// the drain begins.
	hc, err := net.Dial("tcp", strings.TrimPrefix(strings.TrimSuffix(health, "/healthz"), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer hc.Close()
	io.WriteString(hc, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
	stop() // as SIGTERM does
	waitFor(t, "the listener to close", func() bool {
		_, err := http.Get(health)
		return err != nil
	})
	select {
	case code := <-done:
		t.Fatalf("Run returned %d with a call in flight", code)
	default:
	}
	io.WriteString(hc, "\r\n")
	if hresp, err := http.ReadResponse(bufio.NewReader(hc), nil); err != nil || hresp.StatusCode != 503 {
		t.Errorf("/healthz while draining: %v %v, want 503", hresp, err)
	}
	var out syncBuffer
	if code := connector.Run(context.Background(), holdApp(nil, nil), []string{"--healthcheck", "--addr", strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")},
		strings.NewReader(""), io.Discard, &out); code != 1 || !strings.Contains(out.String(), "healthcheck:") {
		t.Errorf("--healthcheck while draining: exit %d: %s", code, out.String())
	}
	close(release)
	res := <-result
	if res == nil || res.IsError || textOf(t, res) != "finished" {
		t.Errorf("the call in flight: %+v", res)
	}
	select {
	case body := <-streamBody:
		if !strings.Contains(body, "retry: 1000\n") {
			t.Errorf("the GET stream ended without a retry field: %q", body)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the GET stream stayed open after the drain")
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit code %d; stderr:\n%s", code, stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Run did not return after the call finished")
	}
	if !strings.Contains(stderr.String(), "msg=stopped") {
		t.Errorf("stderr:\n%s", stderr.String())
	}

}

// TestRunRequestLogOutcomes checks the request log's outcome of each kind
// of answer, and that a panic's stack reads as Go prints it in the text
// format.
func TestRunRequestLogOutcomes(t *testing.T) {
	url, stderr, _, _ := startRun(t, testApp(newProbe()), []string{"--addr", "127.0.0.1:0"}, nil)
	cs := httpClient(t, url, "2025-11-25", nil)
	call(t, cs, "fail", nil)
	call(t, cs, "boom", nil)
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "no_such_tool"}); err == nil {
		t.Error("no_such_tool: no error")
	}
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	log := stderr.waitFor(t, "msg=request method=tools/list")
	sid := regexp.QuoteMeta(cs.ID())
	for _, re := range []string{
		`msg=request method=tools/call tool=fail session=` + sid + ` duration=\S+ outcome=tool_error\n`,
		`msg=request method=tools/call tool=boom session=` + sid + ` duration=\S+ outcome=tool_error\n`,
		`msg=request method=tools/call tool=no_such_tool session=` + sid + ` duration=\S+ outcome=error code=-32602 err=`,
		`msg=request method=tools/list session=` + sid + ` duration=\S+ outcome=ok\n`,
		// The stack below the panic's line, one frame a line, indented.
		`msg="panic in tool" tool=boom panic=".+?" stack=\(below\)\n\tstack:\n\tgoroutine \d+ \[running\]:\n\t\S+\(`,
	} {
		if !regexp.MustCompile(re).MatchString(log) {
			t.Errorf("the log lacks %s:\n%s", re, log)
		}
	}
}

// TestRunDrainDeadline checks that a call still running when --drain ends
// is cut off and the process still stops with exit code 0.
func TestRunDrainDeadline(t *testing.T) {
	started, release := make(chan struct{}, 1), make(chan struct{})
	defer close(release)
	url, stderr, stop, done := startRun(t, holdApp(started, release), []string{"--addr", "127.0.0.1:0", "--drain", "50ms"}, nil)
	// A 2026-07-28 client: no stream to resume, so the cut call fails at
	// once (a 2025-11-25 client would first retry its stream).
	cs := httpClient(t, url, "2026-07-28", nil)
	result := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "hold"})
		result <- err
	}()
	<-started
	stop()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit code %d", code)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Run did not return after --drain")
	}
	if !strings.Contains(stderr.String(), "requests still running after --drain") {
		t.Errorf("no warning about the cut call:\n%s", stderr.String())
	}
	select {
	case err := <-result:
		if err == nil {
			t.Error("the cut call returned a result")
		}
	case <-time.After(20 * time.Second):
		t.Error("the cut call never returned")
	}
}

// With --log-format json every line the binary writes to stderr is one JSON
// object, the "serving" line included (log collectors reject the others),
// and that line is written whatever --log-level says, as in text.
func TestRunJSONLogsOnlyJSON(t *testing.T) {
	url, stderr, cancel, done := startRun(t, testApp(newProbe()), []string{"--addr", "127.0.0.1:0", "--log-format", "json", "--log-level", "warn"}, nil)
	if c := status(t, "POST", url, "evil.example.test", "", deployInit); c != 403 {
		t.Errorf("foreign Host: %d", c)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return")
	}
	serving := false
	for _, line := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
		var rec struct {
			Msg  string `json:"msg"`
			Addr string `json:"addr"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Errorf("not a JSON log line: %q", line)
			continue
		}
		if strings.Contains(rec.Msg, "serving MCP at "+url) && strings.Contains(url, rec.Addr) {
			serving = true
		}
	}
	if !serving {
		t.Errorf("no JSON line says it serves %s:\n%s", url, stderr.String())
	}
}
