package connector_test

// The reliability suite: bad input of every kind, over HTTP and stdio, is
// answered as the specification says, and the server goes on serving;
// questions to clients never hang a call, a session or the server.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/connector"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rpcReply is one JSON-RPC response as it came over the wire.
type rpcReply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// stdioConn drives connector.Run --stdio line by line.
type stdioConn struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *bufio.Scanner
	done chan int
}

func startStdio(t *testing.T, args ...string) *stdioConn {
	t.Helper()
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	c := &stdioConn{t: t, in: clientOut, out: bufio.NewScanner(clientIn), done: make(chan int, 1)}
	c.out.Buffer(nil, 64<<20)
	var stderr syncBuffer
	go func() {
		c.done <- connector.Run(context.Background(), testApp(newProbe()), append([]string{"--stdio"}, args...), serverIn, serverOut, &stderr)
		serverOut.Close()
	}()
	t.Cleanup(func() {
		clientOut.Close()
		select {
		case code := <-c.done:
			if code != 0 {
				t.Errorf("exit code %d; stderr:\n%s", code, stderr.String())
			}
		case <-time.After(10 * time.Second):
			t.Errorf("the server did not stop when stdin closed")
		}
	})
	return c
}

// serveInitialized serves testApp(p) with Server.ServeIO on pipes and
// completes the initialize handshake; the pipes close when the test ends.
func serveInitialized(t *testing.T, p *probe) *stdioConn {
	t.Helper()
	s, err := connector.NewServer(testApp(p), connector.WithLogger(quietLogger(nil)))
	if err != nil {
		t.Fatal(err)
	}
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	go s.ServeIO(context.Background(), serverIn, serverOut)
	t.Cleanup(func() { clientOut.Close() })
	c := &stdioConn{t: t, in: clientOut, out: bufio.NewScanner(clientIn)}
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	c.recv()
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return c
}

func (c *stdioConn) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatal(err)
	}
}

// recv returns the next line the server wrote, skipping notifications.
func (c *stdioConn) recv() rpcReply {
	c.t.Helper()
	for {
		line := make(chan bool, 1)
		go func() { line <- c.out.Scan() }()
		select {
		case ok := <-line:
			if !ok {
				c.t.Fatalf("the server closed stdout: %v", c.out.Err())
			}
		case <-time.After(10 * time.Second):
			c.t.Fatal("no answer within 10s")
		}
		var m struct {
			rpcReply
			Method string `json:"method"`
		}
		if err := json.Unmarshal(c.out.Bytes(), &m); err != nil {
			c.t.Fatalf("stdout line is not JSON: %q", c.out.Text())
		}
		if m.Method == "" {
			return m.rpcReply
		}
	}
}

// TestReliabilityStdio sends bad lines of every kind; each gets its error
// response (or none, for blank lines), and the connector keeps serving.
func TestReliabilityStdio(t *testing.T) {
	c := startStdio(t, "--stdio-max-line", "1KiB")
	for _, tc := range []struct {
		name, line string
		code       int
		id         string
	}{
		{"truncated JSON", `{"jsonrpc":"2.0","id":1,"method":`, -32700, "null"},
		{"not JSON", `hello`, -32700, "null"},
		{"two values on a line", `{"jsonrpc":"2.0","id":1,"method":"ping"} {"jsonrpc":"2.0","id":2,"method":"ping"}`, -32700, "null"},
		{"invalid UTF-8 string", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"x\":\"\xff", -32700, "null"},
		{"a number", `42`, -32600, "null"},
		{"an empty object", `{}`, -32600, "null"},
		{"wrong version", `{"jsonrpc":"1.0","id":2,"method":"ping"}`, -32600, "2"},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, -32600, "null"},
		{"empty batch", `[]`, -32600, "null"},
		{"batch of junk", `[1,2]`, -32600, "null"},
		{"over-long line", `{"jsonrpc":"2.0","id":3,"method":"ping","params":{"pad":"` + strings.Repeat("x", 5000) + `"}}`, -32600, "null"},
		{"over-long junk", strings.Repeat("[", 3000), -32600, "null"},
		{"a request before initialize", `{"jsonrpc":"2.0","id":4,"method":"tools/list"}`, -32600, "4"},
		{"a null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, -32600, "null"},
		{"only jsonrpc and id", `{"jsonrpc":"2.0","id":5}`, -32600, "5"},
		{"only jsonrpc and a string id", `{"jsonrpc":"2.0","id":"five"}`, -32600, `"five"`},
	} {
		c.send("")     // blank lines are skipped silently
		c.send("  \r") // and so are lines of white space
		c.send(tc.line)
		r := c.recv()
		if r.Error == nil || r.Error.Code != tc.code || string(r.ID) != tc.id || r.Error.Message == "" {
			t.Errorf("%s: got %+v %s, want error %d with id %s", tc.name, r.Error, r.ID, tc.code, tc.id)
		}
	}
	c.send(`{"jsonrpc":"2.0","id":10,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if r := c.recv(); r.Error != nil || !strings.Contains(string(r.Result), `"2025-11-25"`) {
		t.Fatalf("initialize: %+v %s", r.Error, r.Result)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for _, tc := range []struct {
		name, line string
		code       int
		id         string
	}{
		{"a batch in 2025-11-25", `[{"jsonrpc":"2.0","id":11,"method":"ping"}]`, -32600, "null"},
		{"unknown method", `{"jsonrpc":"2.0","id":12,"method":"no/such/method"}`, -32601, "12"},
		{"params of the wrong type", `{"jsonrpc":"2.0","id":"s13","method":"tools/call","params":{"name":5}}`, -32602, `"s13"`},
		{"unknown tool", `{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"nope"}}`, -32602, "14"},
		{"unknown resource", `{"jsonrpc":"2.0","id":15,"method":"resources/read","params":{"uri":"test://nope"}}`, -32002, "15"},
	} {
		c.send(tc.line)
		r := c.recv()
		if r.Error == nil || r.Error.Code != tc.code || string(r.ID) != tc.id {
			t.Errorf("%s: got %+v %s, want error %d with id %s", tc.name, r.Error, r.ID, tc.code, tc.id)
		}
	}
	// Still serving.
	c.send(`{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"find_orders","arguments":{"customer":"C4","limit":1.0}}}`) // 1.0: an integer to JSON Schema
	if r := c.recv(); r.Error != nil || string(r.ID) != "20" || !strings.Contains(string(r.Result), "C4-1") {
		t.Errorf("after bad input: %+v %s", r.Error, r.Result)
	}
}

// TestStdioLongLineWithinLimit checks that a line just under the limit is
// served: the limit is on lines, not on what the reader buffers.
func TestStdioLongLineWithinLimit(t *testing.T) {
	c := startStdio(t, "--stdio-max-line", "300KiB")
	pad := strings.Repeat("x", 200<<10)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"` + pad + `","version":"1"}}}`)
	if r := c.recv(); r.Error != nil || string(r.ID) != "1" {
		t.Fatalf("a 200 KiB line: %+v", r.Error)
	}
}

// askClient connects a go-sdk client over HTTP at version with copts.
func askClient(t *testing.T, url, version string, copts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	return httpClient(t, url, version, copts)
}

// TestAskNeedsCapability checks that a client that did not declare
// sampling or elicitation is never sent such a request: at 2025-11-25 the
// tool gets an error it turns into an isError result; at 2026-07-28 the
// call fails with -32021 naming the capability (SEP-2575).
func TestAskNeedsCapability(t *testing.T) {
	url := serveHTTP(t, testApp(newProbe()))
	caps := map[string]string{"sample": "sampling", "book": "elicitation"}
	cs := askClient(t, url, "2025-11-25", nil)
	for tool, want := range caps {
		res := call(t, cs, tool, nil)
		if !res.IsError || !strings.Contains(textOf(t, res), want+" capability") {
			t.Errorf("2025-11-25 %s without the capability: %v %q", tool, res.IsError, textOf(t, res))
		}
	}
	for tool, want := range caps {
		status, body := postStateless(t, url, tool)
		var msg struct {
			Error *struct {
				Code int `json:"code"`
				Data struct {
					RequiredCapabilities map[string]any `json:"requiredCapabilities"`
				} `json:"data"`
			} `json:"error"`
		}
		json.Unmarshal(body, &msg)
		if status != http.StatusBadRequest || msg.Error == nil || msg.Error.Code != -32021 || len(msg.Error.Data.RequiredCapabilities) != 1 || msg.Error.Data.RequiredCapabilities[want] == nil {
			t.Errorf("2026-07-28 %s without the capability: HTTP %d %s", tool, status, body)
		}
	}
}

// postStateless calls tool at MCP 2026-07-28 from a client that declares
// no capability, and returns the HTTP status and body of the answer.
func postStateless(t *testing.T, url, tool string) (int, []byte) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + tool + `","arguments":{},"_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", tool)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if i := bytes.Index(b, []byte("data: ")); i >= 0 {
		b = bytes.TrimSpace(b[i+len("data: "):])
	}
	return resp.StatusCode, b
}

// TestAskClientError checks that a client's error answer to sampling is
// the tool's isError result, not an error of tools/call.
func TestAskClientError(t *testing.T) {
	url := serveHTTP(t, testApp(newProbe()))
	cs := askClient(t, url, "2025-11-25", &mcp.ClientOptions{
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return nil, errors.New("the user declined to sample")
		},
	})
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "sample", Arguments: map[string]any{}})
	if err != nil {
		t.Fatalf("tools/call failed itself: %v", err)
	}
	if !res.IsError || !strings.Contains(textOf(t, res), "the user declined to sample") || !strings.Contains(textOf(t, res), "sampling/createMessage") {
		t.Errorf("result: %v %q", res.IsError, textOf(t, res))
	}
}

// blockingClient answers no question until release is closed.
func blockingClient(asked chan<- struct{}, release <-chan struct{}) *mcp.ClientOptions {
	return &mcp.ClientOptions{
		CreateMessageHandler: func(ctx context.Context, _ *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			asked <- struct{}{}
			select {
			case <-release:
			case <-ctx.Done():
			}
			return nil, errors.New("released")
		},
	}
}

// TestAskTimeout checks that an unanswered question ends the call with an
// isError result once the client request timeout passes.
func TestAskTimeout(t *testing.T) {
	url := serveHTTP(t, testApp(newProbe()), connector.WithClientRequestTimeout(50*time.Millisecond))
	asked, release := make(chan struct{}, 1), make(chan struct{})
	defer close(release)
	cs := askClient(t, url, "2025-11-25", blockingClient(asked, release))
	res := call(t, cs, "sample", nil)
	if !res.IsError || !strings.Contains(textOf(t, res), "did not answer sampling/createMessage within 50ms") {
		t.Errorf("unanswered question: %v %q", res.IsError, textOf(t, res))
	}
}

// TestDeleteDuringAsk checks that closing a session (DELETE) whose tool
// call waits for the client's answer returns, ends the call, and leaves no
// goroutine behind.
func TestDeleteDuringAsk(t *testing.T) {
	s, err := connector.NewServer(testApp(newProbe()), connector.WithLogger(quietLogger(nil)))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	hc := &http.Client{Transport: &http.Transport{}}
	before := goruntime.NumGoroutine()
	for range 3 {
		asked, release := make(chan struct{}, 1), make(chan struct{})
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, blockingClient(asked, release)).
			Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: hc}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		result := make(chan error, 1)
		go func() {
			_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "sample", Arguments: map[string]any{}})
			result <- err
		}()
		<-asked
		// The session is closed (as an abandoning client, or the idle
		// timer, would) while its tool call waits for the client.
		closed := make(chan *http.Response, 1)
		go func() {
			req, _ := http.NewRequest("DELETE", ts.URL, nil)
			req.Header.Set("Mcp-Session-Id", cs.ID())
			resp, err := hc.Do(req)
			if err != nil {
				t.Error(err)
			} else {
				resp.Body.Close()
			}
			closed <- resp
		}()
		select {
		case resp := <-closed:
			if resp != nil && resp.StatusCode != http.StatusNoContent {
				t.Errorf("DELETE: %s", resp.Status)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("DELETE waits for the unanswered question")
		}
		close(release)
		<-result
		cs.Close()
	}
	hc.CloseIdleConnections()
	waitFor(t, "the handlers' goroutines to end", func() bool { return goruntime.NumGoroutine() <= before+2 })
}

// TestShutdownDuringAsk checks that stopping the server does not wait for
// a question the client never answers.
func TestShutdownDuringAsk(t *testing.T) {
	var stderr syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- connector.Run(ctx, testApp(newProbe()), []string{"--addr", "127.0.0.1:0", "--drain", "30s"}, strings.NewReader(""), io.Discard, &stderr)
	}()
	url := waitURL(t, &stderr)
	asked, release := make(chan struct{}, 1), make(chan struct{})
	defer close(release)
	cs := askClient(t, url, "2025-11-25", blockingClient(asked, release))
	result := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, _ := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "sample", Arguments: map[string]any{}})
		result <- res
	}()
	<-asked
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit code %d", code)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("shutdown waits for an unanswered question (--drain is 30s)")
	}
	if res := <-result; res == nil || !res.IsError || !strings.Contains(textOf(t, res), "shutting down") {
		t.Errorf("the call in flight: %+v", res)
	}
}

var serveURL = regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+/mcp`)

// waitURL returns the endpoint a Run serving HTTP printed on stderr.
func waitURL(t *testing.T, stderr *syncBuffer) string {
	t.Helper()
	var url string
	waitFor(t, "the URL on stderr", func() bool { url = serveURL.FindString(stderr.String()); return url != "" })
	return url
}

// TestNothingAfterCancel checks that a request the client cancelled gets
// no response, over stdio and in an HTTP session.
func TestNothingAfterCancel(t *testing.T) {
	t.Run("stdio", func(t *testing.T) {
		p := newProbe()
		c := serveInitialized(t, p)
		c.send(`{"jsonrpc":"2.0","id":30,"method":"tools/call","params":{"name":"wait","arguments":{}}}`)
		<-p.started
		c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":30,"reason":"user"}}`)
		<-p.cancelled
		for _, id := range []string{"31", "32"} {
			c.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
			if r := c.recv(); string(r.ID) != id {
				t.Fatalf("after the cancellation: got a response to %s (%s), want %s", r.ID, r.Result, id)
			}
		}
	})
	t.Run("http", func(t *testing.T) {
		p := newProbe()
		url := serveHTTP(t, testApp(p))
		h := rawSession(t, url)
		stream := make(chan string, 1)
		go func() {
			resp := post(t, url, `{"jsonrpc":"2.0","id":30,"method":"tools/call","params":{"name":"wait","arguments":{}}}`, h)
			stream <- readSSE(t, resp.Body)
		}()
		<-p.started
		post(t, url, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":30}}`, h).Body.Close()
		<-p.cancelled
		select {
		case data := <-stream:
			if strings.Contains(data, `"id":30`) {
				t.Errorf("the cancelled request was answered: %s", data)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the cancelled request's stream did not end")
		}
		resp := post(t, url, `{"jsonrpc":"2.0","id":33,"method":"tools/list"}`, h)
		if !strings.Contains(readSSE(t, resp.Body), `"tools"`) {
			t.Error("the session does not serve after a cancellation")
		}
	})
}

// meta2026 is the per-request _meta of a 2026-07-28 request.
const meta2026 = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// TestReliabilityHTTP sends bad requests of every kind over HTTP, in a
// 2025-11-25 session, without a session and in 2026-07-28 form: each gets
// the status and JSON-RPC error the specification gives it (never an error
// with code 0), and both eras go on serving.
func TestReliabilityHTTP(t *testing.T) {
	url := serveHTTP(t, testApp(newProbe()), connector.WithMaxBodyBytes(64<<10))
	sess := rawSession(t, url)
	v26 := map[string]string{"Mcp-Protocol-Version": "2026-07-28"}
	withMethod := func(h map[string]string, method string) map[string]string {
		out := map[string]string{"Mcp-Method": method}
		for k, v := range h {
			out[k] = v
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		header map[string]string
		body   string
		status int
		code   int // 0: no JSON-RPC error body expected
	}{
		{"session: truncated JSON", sess, `{"jsonrpc":"2.0","id":1,"method":`, 400, 0},
		{"session: empty body", sess, ``, 400, 0},
		{"session: not JSON-RPC", sess, `{"hello":1}`, 400, 0},
		{"session: a batch in 2025-11-25", sess, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, 400, 0},
		{"session: unknown method", sess, `{"jsonrpc":"2.0","id":2,"method":"no/such"}`, 200, -32601},
		{"session: only jsonrpc and id", sess, `{"jsonrpc":"2.0","id":24}`, 400, -32600},
		{"session: a null id", sess, `{"jsonrpc":"2.0","id":null,"method":"ping"}`, 400, -32600},
		{"session: unknown tool", sess, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"nope"}}`, 200, -32602},
		{"session: params of the wrong type", sess, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":5}}`, 200, -32602},
		{"session: unknown resource", sess, `{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"test://nope"}}`, 200, -32002},
		{"session: subscribe to an unknown resource", sess, `{"jsonrpc":"2.0","id":6,"method":"resources/subscribe","params":{"uri":"test://nope"}}`, 200, -32002},
		{"session: unknown prompt", sess, `{"jsonrpc":"2.0","id":7,"method":"prompts/get","params":{"name":"nope"}}`, 200, -32602},
		{"session: prompt without its argument", sess, `{"jsonrpc":"2.0","id":8,"method":"prompts/get","params":{"name":"greet"}}`, 200, -32602},
		{"session: a second initialize", sess, initBody, 200, -32603},
		{"session: tools/call without params", sess, `{"jsonrpc":"2.0","id":23,"method":"tools/call"}`, 400, 0},
		{"session: oversized body", sess, `{"jsonrpc":"2.0","id":9,"method":"ping","params":{"p":"` + strings.Repeat("x", 70<<10) + `"}}`, 413, 0},
		{"session: bad version header", map[string]string{"Mcp-Session-Id": sess["Mcp-Session-Id"], "Mcp-Protocol-Version": "!!"}, `{"jsonrpc":"2.0","id":10,"method":"ping"}`, 400, -32022},
		{"unknown session", map[string]string{"Mcp-Session-Id": "x", "Mcp-Protocol-Version": "2025-11-25"}, `{"jsonrpc":"2.0","id":11,"method":"ping"}`, 404, -32001},
		{"no session: truncated JSON", nil, `{"jsonrpc":"2.0","id":12`, 400, 0},
		{"no session: unknown method", nil, `{"jsonrpc":"2.0","id":13,"method":"no/such"}`, 200, -32601},
		{"no session: only jsonrpc and id", nil, `{"jsonrpc":"2.0","id":25}`, 400, -32600},
		{"no session: a null id", nil, `{"jsonrpc":"2.0","id":null,"method":"ping"}`, 400, -32600},
		{"2026: only jsonrpc and id", withMethod(v26, "tools/list"), `{"jsonrpc":"2.0","id":26}`, 400, -32600},
		{"2026: truncated JSON", v26, `{"jsonrpc":"2.0","id":14,"method":`, 400, 0},
		{"2026: no _meta", withMethod(v26, "tools/list"), `{"jsonrpc":"2.0","id":15,"method":"tools/list"}`, 400, -32602},
		{"2026: header and _meta disagree", withMethod(map[string]string{"Mcp-Protocol-Version": "2025-11-25"}, "tools/list"), `{"jsonrpc":"2.0","id":16,"method":"tools/list","params":{` + meta2026 + `}}`, 400, 0},
		{"2026: Mcp-Method disagrees", withMethod(v26, "tools/call"), `{"jsonrpc":"2.0","id":17,"method":"tools/list","params":{` + meta2026 + `}}`, 400, -32020},
		{"2026: unknown method", withMethod(v26, "no/such"), `{"jsonrpc":"2.0","id":18,"method":"no/such","params":{` + meta2026 + `}}`, 404, -32601},
		{"2026: ping is gone", withMethod(v26, "ping"), `{"jsonrpc":"2.0","id":19,"method":"ping","params":{` + meta2026 + `}}`, 404, -32601},
		{"2026: unknown resource", map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "resources/read", "Mcp-Name": "test://nope"}, `{"jsonrpc":"2.0","id":20,"method":"resources/read","params":{"uri":"test://nope",` + meta2026 + `}}`, 400, -32602},
		{"2026: unknown tool", map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "nope"}, `{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"name":"nope",` + meta2026 + `}}`, 400, -32602},
		{"2026: future version", withMethod(map[string]string{"Mcp-Protocol-Version": "2027-01-01"}, "tools/list"), `{"jsonrpc":"2.0","id":22,"method":"tools/list","params":{}}`, 400, -32022},
	} {
		resp := post(t, url, tc.body, tc.header)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		body := string(b)
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			body = readSSE(t, strings.NewReader(body))
		}
		if resp.StatusCode != tc.status {
			t.Errorf("%s: %s %.300s, want %d", tc.name, resp.Status, body, tc.status)
			continue
		}
		var r rpcReply
		isRPC := json.Unmarshal([]byte(body), &r) == nil && r.Error != nil
		if isRPC && r.Error.Code == 0 {
			t.Errorf("%s: a JSON-RPC error with code 0: %.300s", tc.name, body)
		}
		if tc.code != 0 && (!isRPC || r.Error.Code != tc.code) {
			t.Errorf("%s: %.300s, want JSON-RPC error %d", tc.name, body, tc.code)
		}
		// Every error answer carries the request's id when it has one
		// (SEP-2575: sep-2575-http-server-error-jsonrpc-id).
		var sent struct {
			ID json.RawMessage `json:"id"`
		}
		if isRPC && json.Unmarshal([]byte(tc.body), &sent) == nil && len(sent.ID) > 0 && string(sent.ID) != "null" && string(r.ID) != string(sent.ID) {
			t.Errorf("%s: the error answers id %s, want %s: %.300s", tc.name, r.ID, sent.ID, body)
		}
	}
	// Both eras still serve.
	resp := post(t, url, `{"jsonrpc":"2.0","id":40,"method":"tools/call","params":{"name":"find_orders","arguments":{"customer":"C2","limit":1}}}`, sess)
	if b := readSSE(t, resp.Body); !strings.Contains(b, "C2-1") {
		t.Errorf("the session after bad requests: %s", b)
	}
	resp = post(t, url, `{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"find_orders","arguments":{"customer":"C3","limit":1e0},`+meta2026+`}}`,
		map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "find_orders"})
	if b, _ := io.ReadAll(resp.Body); !strings.Contains(string(b), "C3-1") {
		t.Errorf("a 2026-07-28 call after bad requests: %s %s", resp.Status, b)
	}
}

// TestSlowBody checks that a client sending its request body slowly cannot
// hold a connection beyond the read timeout, while an event stream stays
// open past it.
func TestSlowBody(t *testing.T) {
	var stderr syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() {
		done <- connector.Run(ctx, testApp(newProbe()), []string{"--addr", "127.0.0.1:0", "--drain", "1s"}, strings.NewReader(""), io.Discard, &stderr,
			connector.WithHTTPTimeouts(300*time.Millisecond, 0))
	}()
	url := waitURL(t, &stderr)
	defer func() { cancel(); <-done }()

	// A session with a standing GET stream, subscribed to a resource.
	updated := make(chan string, 1)
	cs := httpClient(t, url, "2025-11-25", &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) { updated <- r.Params.URI },
	})
	if err := cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: "test://watched"}); err != nil {
		t.Fatal(err)
	}

	host := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s", host, len(body), body[:5])
	// The rest of the body never comes: the server gives up on it.
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	b, err := io.ReadAll(conn)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("the server still holds the connection of a stalled body; read %q", b)
	}

	// The GET stream outlived the read timeout: a change still reaches it.
	time.Sleep(400 * time.Millisecond)
	call(t, cs, "touch", nil)
	select {
	case <-updated:
	case <-time.After(10 * time.Second):
		t.Error("the session's event stream did not outlive the read timeout")
	}
}

// TestExactIDs checks that numeric request ids beyond 2^53, with a
// fraction or an exponent come back exactly as sent, over stdio, in an
// HTTP session and in 2026-07-28 requests, and that such an id can be
// cancelled.
func TestExactIDs(t *testing.T) {
	ids := []string{"9007199254740993", "-9007199254740993", "12345678901234567890123", "1.5", "-2.25", "1.0", "1e3", "2E-1", "-0"}
	t.Run("stdio", func(t *testing.T) {
		p := newProbe()
		c := serveInitialized(t, p)
		for _, id := range ids {
			c.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"find_orders","arguments":{"customer":"C1"}}}`)
			if r := c.recv(); string(r.ID) != id || r.Error != nil {
				t.Errorf("id %s came back as %s (%+v)", id, r.ID, r.Error)
			}
		}
		c.send(`{"jsonrpc":"2.0","id":9007199254740995,"method":"tools/call","params":{"name":"wait","arguments":{}}}`)
		<-p.started
		c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9007199254740995}}`)
		select {
		case <-p.cancelled:
		case <-time.After(10 * time.Second):
			t.Fatal("cancelling a request with a big id did not cancel it")
		}
	})
	t.Run("http", func(t *testing.T) {
		url := serveHTTP(t, testApp(newProbe()))
		sess := rawSession(t, url)
		v26 := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}
		for _, id := range ids {
			for name, h := range map[string]map[string]string{"session": sess, "2026-07-28": v26} {
				meta := ""
				if name == "2026-07-28" {
					meta = meta2026
				}
				for _, body := range []string{
					`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list","params":{` + meta + `}}`,
					`{"jsonrpc":"2.0","id":` + id + `, "method":"tools/list","params":{` + meta + `}}`,
				} {
					resp := post(t, url, body, h)
					got, _ := io.ReadAll(resp.Body)
					data := string(got)
					if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
						data = readSSE(t, strings.NewReader(data))
					}
					var r rpcReply
					if json.Unmarshal([]byte(data), &r) != nil || string(r.ID) != id || r.Error != nil {
						t.Errorf("%s: id %s came back as %s: %.200s", name, id, r.ID, data)
					}
				}
			}
			// An error names the request as sent too.
			resp := post(t, url, `{"jsonrpc":"2.0","id":`+id+`,"method":"no/such"}`, sess)
			var r rpcReply
			if b, _ := io.ReadAll(resp.Body); json.Unmarshal(b, &r) != nil || string(r.ID) != id || r.Error == nil || r.Error.Code != -32601 {
				t.Errorf("unknown method with id %s: %s %s", id, resp.Status, b)
			}
		}
	})
	t.Run("no collision", func(t *testing.T) {
		// 2.5 and 2 are two requests: the second is not a duplicate of
		// the first, which is still running.
		p := newProbe()
		url := serveHTTP(t, testApp(p))
		sess := rawSession(t, url)
		req, _ := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":2.5,"method":"tools/call","params":{"name":"wait","arguments":{},"_meta":{"progressToken":"p"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range sess {
			req.Header.Set(k, v)
		}
		go func() {
			if resp, err := http.DefaultClient.Do(req); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
		<-p.started
		resp := post(t, url, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"find_orders","arguments":{"customer":"C1"},"_meta":{"progressToken":"q"}}}`, sess)
		var r rpcReply
		if data := readSSE(t, resp.Body); json.Unmarshal([]byte(data), &r) != nil || string(r.ID) != "2" || r.Error != nil {
			t.Errorf("id 2 while 2.5 runs: %s %s", resp.Status, data)
		}
		post(t, url, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2.5}}`, sess)
		select {
		case <-p.cancelled:
		case <-time.After(10 * time.Second):
			t.Fatal("cancelling request 2.5 did not cancel it")
		}
	})
}

// TestShutdownWithListen checks that a 2026-07-28 subscriptions/listen
// stream, which never ends by itself, is ended by a shutdown like a GET
// stream, rather than held for the whole drain.
func TestShutdownWithListen(t *testing.T) {
	var stderr syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- connector.Run(ctx, testApp(newProbe()), []string{"--addr", "127.0.0.1:0", "--drain", "60s"}, strings.NewReader(""), io.Discard, &stderr)
	}()
	url := waitURL(t, &stderr)
	updated := make(chan string, 4)
	cs := httpClient(t, url, "2026-07-28", &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) { updated <- r.Params.URI },
	})
	if err := cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: "test://watched"}); err != nil {
		t.Fatal(err)
	}
	// The listen stream is open once a change reaches it.
	for deadline := time.Now().Add(10 * time.Second); len(updated) == 0; {
		call(t, cs, "touch", nil)
		select {
		case <-updated:
			updated <- "again"
		case <-time.After(100 * time.Millisecond):
			if time.Now().After(deadline) {
				t.Fatal("no notification on the listen stream")
			}
		}
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit code %d", code)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("shutdown waits for the listen stream (--drain is 60s)")
	}
}
