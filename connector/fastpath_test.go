package connector_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen"
	"github.com/mcpgen/mcpgen/connector"
	"github.com/mcpgen/mcpgen/connector/store"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// contentTypes records the Content-Type of every tools/call, tools/list
// and resources/read response a client receives.
type contentTypes struct {
	mu    sync.Mutex
	types []string
}

func (c *contentTypes) RoundTrip(req *http.Request) (*http.Response, error) {
	call := false
	if req.Method == http.MethodPost && req.Body != nil {
		b, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(strings.NewReader(string(b)))
		call = strings.Contains(string(b), `"tools/call"`) || strings.Contains(string(b), `"tools/list"`) || strings.Contains(string(b), `"resources/read"`)
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err == nil && call {
		c.mu.Lock()
		c.types = append(c.types, resp.Header.Get("Content-Type"))
		c.mu.Unlock()
	}
	return resp, err
}

func (c *contentTypes) last() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.types) == 0 {
		return ""
	}
	return c.types[len(c.types)-1]
}

func recordingClient(t *testing.T, url, version string, copts *mcp.ClientOptions) (*mcp.ClientSession, *contentTypes) {
	t.Helper()
	ct := &contentTypes{}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "http-client", Version: "1"}, copts).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: ct}},
			&mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, ct
}

// fastCalls are tool calls whose results must be the same whether the
// runtime answers them itself (a call that can send nothing but its
// result) or through the go-sdk: validation messages, defaults, errors,
// panics, timeouts, the result cap, content blocks.
var fastCalls = []struct {
	tool string
	args map[string]any
}{
	{"find_orders", map[string]any{"customer": "C7"}},
	{"find_orders", map[string]any{"customer": "C7", "limit": 2}},
	{"find_orders", map[string]any{"customer": "X7"}},
	{"find_orders", map[string]any{"customer": "C7", "limit": 99, "extra": true}},
	{"fail", nil},
	{"boom", nil},
	{"slow", nil},
	{"big", nil},
	{"mixed", nil},
	{"log", nil},
	{"progress", nil},
}

func resultJSON(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	res.Meta = nil // serverInfo under 2026-07-28, the same on both paths
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	// resultType ("complete") is part of 2026-07-28 results only.
	return strings.Replace(string(b), `,"resultType":"complete"`, "", 1)
}

// TestFastPathSameResults calls every tool of fastCalls through the
// runtime's own answer and through the go-sdk, in a session and under
// 2026-07-28, and requires the same results.
func TestFastPathSameResults(t *testing.T) {
	url := serveHTTP(t, testApp(newProbe()))
	ctx := context.Background()
	// A client that declared elicitation could be asked something during
	// any call: its calls go through the go-sdk, on an event stream.
	sdk, sdkTypes := recordingClient(t, url, "2025-06-18", &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
	})
	fast, fastTypes := recordingClient(t, url, "2025-06-18", nil)
	stateless, _ := recordingClient(t, url, "2026-07-28", nil)
	for _, c := range fastCalls {
		want := resultJSON(t, call(t, sdk, c.tool, c.args))
		if ct := sdkTypes.last(); ct != "text/event-stream" {
			t.Errorf("%s through the go-sdk: Content-Type %q", c.tool, ct)
		}
		if got := resultJSON(t, call(t, fast, c.tool, c.args)); got != want {
			t.Errorf("%s %v in a session:\n got %s\nwant %s", c.tool, c.args, got, want)
		}
		if ct := fastTypes.last(); ct != "application/json" {
			t.Errorf("%s in a session that can receive nothing but the result: Content-Type %q, want application/json", c.tool, ct)
		}
		if got := resultJSON(t, call(t, stateless, c.tool, c.args)); got != want {
			t.Errorf("%s %v under 2026-07-28:\n got %s\nwant %s", c.tool, c.args, got, want)
		}
		// With a progress token, the call goes through the go-sdk.
		res, err := stateless.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args, Meta: mcp.Meta{"progressToken": "p1"}})
		if err != nil {
			t.Fatal(err)
		}
		if got := resultJSON(t, res); got != want {
			t.Errorf("%s %v under 2026-07-28 with a progress token:\n got %s\nwant %s", c.tool, c.args, got, want)
		}
	}
	// Questions under 2026-07-28 are results too: book asks, the client
	// answers, the call runs again.
	q, _ := recordingClient(t, url, "2026-07-28", &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
	})
	if got := textOf(t, call(t, q, "book", nil)); !strings.HasPrefix(got, "decline") {
		t.Errorf("book under 2026-07-28: %s", got)
	}
}

// TestFastPathNeverAsks checks that a tool the generator proved never to
// ask the client (NeverAsks) is answered on the fast path also in a
// session whose client declared elicitation and sampling, with the result
// the go-sdk gives, while a tool without NeverAsks still goes through the
// go-sdk and can ask.
func TestFastPathNeverAsks(t *testing.T) {
	plain := testApp(newProbe())
	marked := testApp(newProbe())
	for i := range marked.Tools {
		if marked.Tools[i].Name != "book" {
			marked.Tools[i].NeverAsks = true
		}
	}
	plainURL, markedURL := serveHTTP(t, plain), serveHTTP(t, marked)
	copts := &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada", "seats": 2, "class": "eco"}}, nil
		},
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "ok"}}, nil
		},
	}
	sdk, sdkTypes := recordingClient(t, plainURL, "2025-06-18", copts)
	fast, fastTypes := recordingClient(t, markedURL, "2025-06-18", copts)
	for _, c := range fastCalls {
		if c.tool == "log" || c.tool == "progress" {
			continue // the same either way; covered by TestFastPathNotifications
		}
		want := resultJSON(t, call(t, sdk, c.tool, c.args))
		if ct := sdkTypes.last(); ct != "text/event-stream" {
			t.Errorf("%s without NeverAsks, client can be asked: Content-Type %q, want text/event-stream", c.tool, ct)
		}
		if got := resultJSON(t, call(t, fast, c.tool, c.args)); got != want {
			t.Errorf("%s %v with NeverAsks:\n got %s\nwant %s", c.tool, c.args, got, want)
		}
		if ct := fastTypes.last(); ct != "application/json" {
			t.Errorf("%s with NeverAsks, client can be asked: Content-Type %q, want application/json", c.tool, ct)
		}
	}
	// book may ask: through the go-sdk, and the client's answer arrives.
	if got := textOf(t, call(t, fast, "book", nil)); !strings.HasPrefix(got, "accept") || !strings.Contains(got, "Ada") {
		t.Errorf("book in the session: %s", got)
	}
	if ct := fastTypes.last(); ct != "text/event-stream" {
		t.Errorf("book (no NeverAsks): Content-Type %q, want text/event-stream", ct)
	}
}

// TestFastPathNotifications checks that a call that can send more than its
// result gets everything: progress when asked, log messages once the
// client chose a level.
func TestFastPathNotifications(t *testing.T) {
	url := serveHTTP(t, testApp(newProbe()))
	ctx := context.Background()
	var mu sync.Mutex
	var logs, progress int
	cs, types := recordingClient(t, url, "2025-06-18", &mcp.ClientOptions{
		LoggingMessageHandler: func(context.Context, *mcp.LoggingMessageRequest) { mu.Lock(); logs++; mu.Unlock() },
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			progress++
			mu.Unlock()
		},
	})
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "progress", Arguments: map[string]any{}, Meta: mcp.Meta{"progressToken": 7}}); err != nil {
		t.Fatal(err)
	}
	if ct := types.last(); ct != "text/event-stream" {
		t.Errorf("a call with a progress token: Content-Type %q, want an event stream", ct)
	}
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
	call(t, cs, "log", nil)
	if ct := types.last(); ct != "text/event-stream" {
		t.Errorf("a call in a session with a log level: Content-Type %q, want an event stream", ct)
	}
	waitFor(t, "the progress and log notifications", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return progress > 0 && logs > 0
	})
}

// TestFastPathSessionEnd ends a session while the runtime answers one of
// its calls itself: the handler's context is cancelled, with both kinds of
// answer (plain JSON, and a resumable stream at 2025-11-25).
func TestFastPathSessionEnd(t *testing.T) {
	for _, v := range []string{"2025-06-18", "2025-11-25"} {
		t.Run(v, func(t *testing.T) {
			p := newProbe()
			url := serveHTTP(t, testApp(p))
			h := rawSession(t, url)
			h["Mcp-Protocol-Version"] = v
			done := make(chan struct{})
			go func() {
				defer close(done)
				resp := post(t, url, `{"jsonrpc":"2.0","id":"w1","method":"tools/call","params":{"name":"wait","arguments":{}}}`, h)
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}()
			<-p.started
			endSession(t, url, h)
			select {
			case err := <-p.cancelled:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("handler ctx.Err() = %v", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the session's end did not reach the handler's context")
			}
			<-done
		})
	}
}

// TestFastPathCancel cancels a call the runtime answers itself: the
// handler's context is cancelled and no result is sent.
func TestFastPathCancel(t *testing.T) {
	p := newProbe()
	url := serveHTTP(t, testApp(p))
	h := rawSession(t, url)
	h["Mcp-Protocol-Version"] = "2025-06-18" // a plain JSON answer
	done := make(chan *http.Response, 1)
	go func() {
		req, _ := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":"w1","method":"tools/call","params":{"name":"wait","arguments":{}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range h {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			close(done)
			return
		}
		done <- resp
	}()
	<-p.started
	dup := post(t, url, `{"jsonrpc":"2.0","id":"w1","method":"tools/call","params":{"name":"find_orders","arguments":{"customer":"C1"}}}`, h)
	if b, _ := io.ReadAll(dup.Body); dup.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), "duplicate") {
		t.Errorf("a second call with the id of one in flight: %s %s, want 400", dup.Status, b)
	}
	post(t, url, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"w1","reason":"test"}}`, h)
	select {
	case err := <-p.cancelled:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("handler ctx.Err() = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("cancellation did not reach the handler's context")
	}
	resp := <-done
	if resp == nil {
		return
	}
	defer resp.Body.Close()
	if b, _ := io.ReadAll(resp.Body); strings.Contains(string(b), `"result"`) || strings.Contains(string(b), `"error"`) {
		t.Errorf("a result after cancellation: %s %s", resp.Status, b)
	}
}

// TestFastPathKeepsSessionAlive makes fast calls for longer than the idle
// timeout: the session stays open, since the go-sdk's idle timer sees only
// the requests it serves.
func TestFastPathKeepsSessionAlive(t *testing.T) {
	t.Parallel()
	url := serveHTTP(t, testApp(newProbe()), connector.WithSessionIdle(time.Second))
	cs, types := recordingClient(t, url, "2025-06-18", nil)
	fast := 0
	for end := time.Now().Add(2500 * time.Millisecond); time.Now().Before(end); {
		res := call(t, cs, "find_orders", map[string]any{"customer": "C1"})
		if res.IsError {
			t.Fatal(textOf(t, res))
		}
		if types.last() == "application/json" {
			fast++
		}
		time.Sleep(20 * time.Millisecond)
	}
	if fast == 0 {
		t.Error("no call took the fast path")
	}
}

// bigCustomer is a customer id whose find_orders answer (the id eight
// times over) is larger than the fast path sends as plain JSON in a
// session, so it goes out on a resumable event stream.
var bigCustomer = "C3" + strings.Repeat("0", 3000)

// TestFastPathSessionAnswers: in a 2025-11-25 session, a call that ends
// at once is answered with plain JSON when its answer is small (no event
// id went out, so there is nothing to resume, and nothing is stored), and
// on a resumable event stream, its priming event first, when it is large;
// both carry the same result.
func TestFastPathSessionAnswers(t *testing.T) {
	mem := store.NewMemory(store.MemoryOptions{})
	var mu sync.Mutex
	var recorded []string
	note := func(e string) {
		mu.Lock()
		recorded = append(recorded, e)
		mu.Unlock()
	}
	url := serveHTTP(t, testApp(newProbe()), connector.WithEventStore(noteEvents{mem.Events(), note}))
	h := rawSession(t, url)
	mu.Lock()
	recorded = nil // initialize's, through the go-sdk
	mu.Unlock()
	for _, tc := range []struct {
		customer, ct string
	}{
		{"C3", "application/json"},
		{bigCustomer, "text/event-stream"},
	} {
		resp := post(t, url, `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"find_orders","arguments":{"customer":"`+tc.customer+`"}}}`, h)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if ct := resp.Header.Get("Content-Type"); ct != tc.ct {
			t.Errorf("answer of %d bytes: Content-Type %q, want %q", len(body), ct, tc.ct)
		}
		if !strings.Contains(string(body), `\"`+tc.customer+`-1\"`) {
			t.Errorf("answer without the result: %.200q", body)
		}
		if tc.ct == "text/event-stream" && !strings.HasPrefix(string(body), "event: prime\nid: ") {
			t.Errorf("an event stream that does not begin with its priming event: %.200q", body)
		}
	}
	waitFor(t, "the large answer to be stored", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(recorded) > 0
	})
	mu.Lock()
	defer mu.Unlock()
	if len(recorded) != 1 {
		t.Errorf("stored %q; want only the large answer's stream", recorded)
	}
}

// noteEvents is an event store that notes each stream opened.
type noteEvents struct {
	store.Events
	note func(string)
}

func (e noteEvents) Open(ctx context.Context, sid, stream string) error {
	e.note("open " + stream)
	return e.Events.Open(ctx, sid, stream)
}

func (e noteEvents) Record(ctx context.Context, sid, stream string, data ...[]byte) error {
	e.note("record " + stream)
	return e.Events.Record(ctx, sid, stream, data...)
}

func (e noteEvents) RecordLater(ctx context.Context, sid, stream string, done func(error), data ...[]byte) {
	e.note("record later " + stream)
	e.Events.RecordLater(ctx, sid, stream, done, data...)
}

// TestFastPathPrimesLongCalls checks that a call still running gets its
// priming event (the id a client resumes from) before its result.
func TestFastPathPrimesLongCalls(t *testing.T) {
	p := newProbe()
	url := serveHTTP(t, testApp(p))
	h := rawSession(t, url)
	resp := post(t, url, `{"jsonrpc":"2.0","id":"w2","method":"tools/call","params":{"name":"wait","arguments":{}}}`, h)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q, want an event stream", ct)
	}
	<-p.started
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	select {
	case l := <-lines:
		if l != "event: prime" {
			t.Errorf("first line %q, want the priming event", l)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no priming event while the call runs")
	}
	post(t, url, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"w2"}}`, h)
	for l := range lines {
		if strings.Contains(l, `"result"`) {
			t.Errorf("a result after cancellation: %s", l)
		}
	}
}

// TestFastPathListAndRead compares tools/list and resources/read answered
// by the runtime with the go-sdk's answers (a progress token sends a
// request to the go-sdk), in a session and under 2026-07-28.
func TestFastPathListAndRead(t *testing.T) {
	url := serveHTTP(t, testApp(newProbe()))
	ctx := context.Background()
	for _, v := range []string{"2025-06-18", "2025-11-25", "2026-07-28"} {
		cs, types := recordingClient(t, url, v, nil)
		asJSON := func(x any) string {
			b, _ := json.Marshal(x)
			return string(b)
		}
		slow, err := cs.ListTools(ctx, &mcp.ListToolsParams{Meta: mcp.Meta{"progressToken": "l"}})
		if err != nil {
			t.Fatal(err)
		}
		fast, err := cs.ListTools(ctx, &mcp.ListToolsParams{})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := asJSON(fast), asJSON(slow); got != want {
			t.Errorf("%s tools/list:\n got %s\nwant %s", v, got, want)
		}
		if ct := types.last(); v == "2025-06-18" && ct != "application/json" {
			t.Errorf("tools/list at %s: Content-Type %q, want the runtime's plain JSON", v, ct)
		}
		for _, uri := range []string{"test://static-text", "test://static-binary", "test://watched"} {
			slow, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri, Meta: mcp.Meta{"progressToken": "r"}})
			if err != nil {
				t.Fatal(err)
			}
			fast, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := asJSON(fast), asJSON(slow); got != want {
				t.Errorf("%s resources/read %s:\n got %s\nwant %s", v, uri, got, want)
			}
			if ct := types.last(); v == "2025-06-18" && ct != "application/json" {
				t.Errorf("resources/read at %s: Content-Type %q, want the runtime's plain JSON", v, ct)
			}
		}
		// Templates and unknown resources stay with the go-sdk.
		if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://nope"}); err == nil {
			t.Errorf("%s: reading an unknown resource did not fail", v)
		}
	}
}

// TestFastPathListAfterSetViews checks that the tool list the runtime
// answers follows SetViews (a tool's view URI changes with its bundle).
func TestFastPathListAfterSetViews(t *testing.T) {
	s, err := connector.NewServer(testApp(newProbe()), connector.WithLogger(quietLogger(nil)))
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", s.Handler())
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	cs, types := recordingClient(t, ts.URL+"/mcp", "2025-06-18", nil)
	uriOf := func() any {
		tools, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if ct := types.last(); ct != "application/json" {
			t.Errorf("tools/list: Content-Type %q, want the runtime's plain JSON", ct)
		}
		for _, tl := range tools.Tools {
			if tl.Name == "find_orders" {
				return tl.Meta["ui/resourceUri"]
			}
		}
		return nil
	}
	if got := uriOf(); got != testView.URI {
		t.Fatalf("find_orders view before SetViews: %v", got)
	}
	v := testView
	v.URI = "ui://orders/77e0b1"
	s.SetViews([]connector.View{v})
	if got := uriOf(); got != v.URI {
		t.Errorf("find_orders view after SetViews: %v, want %s", got, v.URI)
	}
}

// TestFastPathClosedSession checks that a deleted session is not served,
// by the runtime or the go-sdk.
func TestFastPathClosedSession(t *testing.T) {
	t.Run("event store", func(t *testing.T) { testFastPathClosedSession(t) })
	t.Run("no event store", func(t *testing.T) { testFastPathClosedSession(t, connector.WithEventStore(nil)) })
}

func testFastPathClosedSession(t *testing.T, opts ...connector.Option) {
	url := serveHTTP(t, testApp(newProbe()), opts...)
	h := rawSession(t, url)
	call := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"find_orders","arguments":{"customer":"C1"}}}`
	if b := readSSE(t, post(t, url, call, h).Body); !strings.Contains(b, "C1-1") {
		t.Fatalf("call in the session: %s", b)
	}
	endSession(t, url, h)
	for _, v := range []string{"2025-11-25", "2025-06-18"} {
		h["Mcp-Protocol-Version"] = v
		waitFor(t, "the deleted session to be refused", func() bool {
			resp := post(t, url, call, h)
			b, _ := io.ReadAll(resp.Body)
			return resp.StatusCode == http.StatusNotFound && strings.Contains(string(b), "-32001")
		})
	}
}

// TestFastPathCloseStream closes a call's stream from its handler
// (mcpgen.CloseStream): the response ends with the retry delay, the call
// goes on, and the client resuming with Last-Event-ID gets the result.
func TestFastPathCloseStream(t *testing.T) {
	app := testApp(newProbe())
	release := make(chan struct{})
	app.Tools = append(app.Tools, connector.Tool{
		Name: "long", Description: "Frees its connection, then answers.", InputSchema: emptyInput, Result: connector.ResultText,
		Handler: noInput(func(ctx context.Context) (any, error) {
			if !mcpgen.CloseStream(ctx, 50*time.Millisecond) {
				return "no stream to close", nil
			}
			<-release
			return "answered after the stream closed", nil
		}),
	})
	url := serveHTTP(t, app)
	h := rawSession(t, url)
	resp := post(t, url, `{"jsonrpc":"2.0","id":"l1","method":"tools/call","params":{"name":"long","arguments":{}}}`, h)
	body, err := io.ReadAll(resp.Body) // the response ends while the call goes on
	if err != nil {
		t.Fatalf("reading the closed stream: %v", err)
	}
	var prime string
	for _, l := range strings.Split(string(body), "\n") {
		if id, ok := strings.CutPrefix(l, "id: "); ok && prime == "" {
			prime = id
		}
	}
	if prime == "" || !strings.Contains(string(body), "retry: 50") || strings.Contains(string(body), `"result"`) {
		t.Fatalf("closed stream: %q, want a priming event and a retry, no result", body)
	}
	// The client resumes while the call still runs: the resumption waits
	// for the result.
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", h["Mcp-Session-Id"])
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	req.Header.Set("Last-Event-ID", prime)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got := make(chan string, 1)
	go func() {
		gresp, err := http.DefaultClient.Do(req.WithContext(ctx))
		if err != nil {
			got <- err.Error()
			return
		}
		defer gresp.Body.Close()
		sc := bufio.NewScanner(gresp.Body)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "answered after the stream closed") {
				got <- "result"
				return
			}
		}
		got <- gresp.Status
	}()
	time.Sleep(50 * time.Millisecond)
	close(release)
	if g := <-got; g != "result" {
		t.Errorf("the result was not replayed after Last-Event-ID: %s", g)
	}
}

// heldEvents is an event store whose writes behind (RecordLater) wait
// until release is closed, as a shared store's may for a moment.
type heldEvents struct {
	store.Events
	release chan struct{}
}

func (e *heldEvents) RecordLater(ctx context.Context, sessionID, streamID string, done func(error), data ...[]byte) {
	go func() {
		<-e.release
		done(e.Record(ctx, sessionID, streamID, data...))
	}()
}

type heldStore struct {
	store.Store
	events *heldEvents
}

func (s *heldStore) Events() store.Events { return s.events }

// TestFastPathResumeBeforeStored: a session answer is written to its
// client before its events are stored (write-behind); a client resuming
// it meanwhile on the same replica gets the result once they are, not an
// unknown stream.
func TestFastPathResumeBeforeStored(t *testing.T) {
	mem := store.NewMemory(store.MemoryOptions{})
	release := make(chan struct{})
	st := &heldStore{Store: mem, events: &heldEvents{Events: mem.Events(), release: release}}
	url := serveHTTP(t, testApp(newProbe()), connector.WithStore(st))
	h := rawSession(t, url)
	resp := post(t, url, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"find_orders","arguments":{"customer":"`+bigCustomer+`"}}}`, h)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var prime string
	for _, l := range strings.Split(string(body), "\n") {
		if id, ok := strings.CutPrefix(l, "id: "); ok && prime == "" {
			prime = id
		}
	}
	if prime == "" || !strings.Contains(string(body), bigCustomer+"-1") {
		t.Fatalf("answer: %q; want a priming event and the result before the events are stored", body)
	}
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", h["Mcp-Session-Id"])
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	req.Header.Set("Last-Event-ID", prime)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got := make(chan string, 1)
	go func() {
		gresp, err := http.DefaultClient.Do(req.WithContext(ctx))
		if err != nil {
			got <- err.Error()
			return
		}
		defer gresp.Body.Close()
		b, _ := io.ReadAll(gresp.Body)
		if gresp.StatusCode != http.StatusOK || !strings.Contains(string(b), bigCustomer+"-1") {
			got <- fmt.Sprintf("%s %q", gresp.Status, b)
			return
		}
		got <- "result"
	}()
	time.Sleep(50 * time.Millisecond) // the resumption is waiting
	close(release)
	if g := <-got; g != "result" {
		t.Errorf("resuming before the events were stored: %s; want the result replayed", g)
	}
}

// sessionlessPost sends one JSON-RPC request as a 2025-11-25 client
// without a session does, and returns the answer's Content-Type, its
// result (or error) as canonical JSON, and the log messages that came
// before it.
func sessionlessPost(t *testing.T, url, body string) (ct, result string, logs []string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("HTTP %d: %s", resp.StatusCode, b)
	}
	ct = resp.Header.Get("Content-Type")
	var msgs [][]byte
	if ct == "text/event-stream" {
		for line := range strings.SplitSeq(string(b), "\n") {
			if d, ok := strings.CutPrefix(line, "data: "); ok && d != "" {
				msgs = append(msgs, []byte(d))
			}
		}
	} else {
		msgs = [][]byte{b}
	}
	canon := func(x any) string {
		out, _ := json.Marshal(x)
		return string(out)
	}
	for _, m := range msgs {
		var msg struct {
			Method string         `json:"method"`
			Params map[string]any `json:"params"`
			Result map[string]any `json:"result"`
			Error  any            `json:"error"`
		}
		if err := json.Unmarshal(m, &msg); err != nil {
			t.Fatalf("not JSON-RPC: %s", m)
		}
		switch {
		case msg.Method == "notifications/message":
			logs = append(logs, canon(msg.Params))
		case msg.Method != "":
			// progress notifications: the go-sdk path only
		case msg.Error != nil:
			result = "error " + canon(msg.Error)
		default:
			result = canon(msg.Result)
		}
	}
	return ct, result, logs
}

// TestFastPathSessionless checks that 2025 requests without a session
// (a client that never initialized, or any client of a server run with
// --stateless) are answered on the fast path with the result, error and
// log messages the go-sdk gives them on its one-request session: every
// tool of fastCalls, tools/list and a fixed resource.
func TestFastPathSessionless(t *testing.T) {
	for _, mode := range []struct {
		name string
		opts []connector.Option
	}{{"sessions", nil}, {"--stateless", []connector.Option{connector.WithStateless(true)}}} {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			// The tools the generator would prove never to ask: a tool
			// that might goes through the go-sdk (book, below).
			app := testApp(newProbe())
			for i := range app.Tools {
				app.Tools[i].NeverAsks = app.Tools[i].Name != "book"
			}
			url := serveHTTP(t, app, mode.opts...)
			// A progress token sends the request through the go-sdk.
			type req struct{ fast, sdk string }
			var reqs []req
			for i, c := range fastCalls {
				args, _ := json.Marshal(c.args)
				p := `"name":"` + c.tool + `","arguments":` + string(args)
				reqs = append(reqs, req{
					fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{%s}}`, i+1, p),
					fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{%s,"_meta":{"progressToken":"p"}}}`, i+1, p),
				})
			}
			reqs = append(reqs,
				req{`{"jsonrpc":"2.0","id":"l","method":"tools/list"}`, `{"jsonrpc":"2.0","id":"l","method":"tools/list","params":{"_meta":{"progressToken":"p"}}}`},
				req{`{"jsonrpc":"2.0","id":"r","method":"resources/read","params":{"uri":"test://static-text"}}`,
					`{"jsonrpc":"2.0","id":"r","method":"resources/read","params":{"uri":"test://static-text","_meta":{"progressToken":"p"}}}`},
				req{`{"jsonrpc":"2.0","id":"n","method":"tools/call","params":{"name":"nope"}}`, ``},
			)
			for _, r := range reqs {
				sdkCT, want, wantLogs := "", "", []string(nil)
				if r.sdk != "" {
					sdkCT, want, wantLogs = sessionlessPost(t, url, r.sdk)
					if sdkCT != "text/event-stream" {
						t.Errorf("%s through the go-sdk: Content-Type %q", r.sdk, sdkCT)
					}
				}
				ct, got, logs := sessionlessPost(t, url, r.fast)
				if r.sdk == "" {
					if !strings.HasPrefix(got, "error ") {
						t.Errorf("%s: want the go-sdk's error, got %s", r.fast, got)
					}
					continue
				}
				if got != want {
					t.Errorf("%s:\n got %s\nwant %s", r.fast, got, want)
				}
				if strings.Join(logs, "\n") != strings.Join(wantLogs, "\n") {
					t.Errorf("%s log messages:\n got %q\nwant %q", r.fast, logs, wantLogs)
				}
				if wantCT := "application/json"; len(wantLogs) == 0 && ct != wantCT {
					t.Errorf("%s: Content-Type %q, want the fast path's %s", r.fast, ct, wantCT)
				}
			}
			if ct, _, _ := sessionlessPost(t, url, `{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"book"}}`); ct != "text/event-stream" {
				t.Errorf("book (no NeverAsks) without a session: Content-Type %q, want the go-sdk's text/event-stream", ct)
			}
		})
	}
}
