package connector_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/connector"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveHTTP serves app over real HTTP on 127.0.0.1 and returns the /mcp URL.
func serveHTTP(t *testing.T, app *connector.App, opts ...connector.Option) string {
	t.Helper()
	opts = append([]connector.Option{connector.WithLogger(quietLogger(nil))}, opts...)
	s, err := connector.NewServer(app, opts...)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", s.Handler())
	ts := httptest.NewServer(mux) // binds 127.0.0.1
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp"
}

func httpClient(t *testing.T, url, version string, copts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "http-client", Version: "1"}, copts).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func TestHTTPClient(t *testing.T) {
	url := serveHTTP(t, testApp(newProbe()))
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			cs := httpClient(t, url, v, &mcp.ClientOptions{
				ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Bo", "class": "eco"}}, nil
				},
			})
			res := call(t, cs, "find_orders", map[string]any{"customer": "C7", "limit": 1})
			if res.IsError || textOf(t, res) != `{"customer":"C7","limit":1,"orders":["C7-1"]}` {
				t.Errorf("find_orders: %v %s", res.IsError, textOf(t, res))
			}
			res = call(t, cs, "book", nil)
			if !strings.HasPrefix(textOf(t, res), "accept {Name:Bo Seats:2 Class:eco") {
				t.Errorf("book over HTTP: %s", textOf(t, res))
			}
		})
	}
}

func TestHTTPStateless(t *testing.T) {
	url := serveHTTP(t, testApp(newProbe()), connector.WithStateless(true))
	cs := httpClient(t, url, "", &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
	})
	res := call(t, cs, "find_orders", map[string]any{"customer": "C7"})
	if res.IsError {
		t.Fatal(textOf(t, res))
	}
	// Questions travel as input-required results, so they work without
	// sessions too.
	if got := textOf(t, call(t, cs, "book", nil)); !strings.HasPrefix(got, "decline") {
		t.Errorf("book (stateless): %s", got)
	}
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET in stateless mode: %s, want 405", resp.Status)
	}
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

func post(t *testing.T, url, body string, header map[string]string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func TestHTTPGuards(t *testing.T) {
	url := serveHTTP(t, testApp(newProbe()), connector.WithMaxBodyBytes(4096), connector.WithAllowedOrigins("https://claude.ai"))
	for _, tc := range []struct {
		name   string
		header map[string]string
		body   string
		want   int
	}{
		{"foreign origin", map[string]string{"Origin": "https://evil.example"}, initBody, http.StatusForbidden},
		{"null origin", map[string]string{"Origin": "null"}, initBody, http.StatusForbidden},
		{"foreign host", map[string]string{"Host": "evil.example:8080"}, initBody, http.StatusForbidden},
		{"loopback origin", map[string]string{"Origin": "http://localhost:5173"}, initBody, http.StatusOK},
		{"allowed origin", map[string]string{"Origin": "https://claude.ai"}, initBody, http.StatusOK},
		{"localhost host", map[string]string{"Host": "localhost"}, initBody, http.StatusOK},
		// *.localhost is loopback (RFC 6761; browsers never ask DNS for
		// it), as in the inspector and mcpgen dev: one rule, package hosts.
		{"subdomain of localhost", map[string]string{"Host": "app.localhost:8080"}, initBody, http.StatusOK},
		{"subdomain of localhost origin", map[string]string{"Origin": "http://app.localhost:5173"}, initBody, http.StatusOK},
		{"localhost as a subdomain", map[string]string{"Host": "localhost.evil.example"}, initBody, http.StatusForbidden},
		{"oversized body", nil, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 8000) + `"}}`, http.StatusRequestEntityTooLarge},
	} {
		resp := post(t, url, tc.body, tc.header)
		if resp.StatusCode != tc.want {
			b, _ := io.ReadAll(resp.Body)
			t.Errorf("%s: %s %s, want %d", tc.name, resp.Status, b, tc.want)
		}
	}
}

// rawSession initializes a session by hand and returns the headers that
// address it, once it serves requests.
func rawSession(t *testing.T, url string) map[string]string {
	t.Helper()
	resp := post(t, url, initBody, nil)
	sid := resp.Header.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatal("no Mcp-Session-Id on the initialize response")
	}
	h := map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25"}
	post(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, h)
	// The notification is accepted (202) before it is processed.
	waitFor(t, "the session to be initialized", func() bool {
		resp := post(t, url, `{"jsonrpc":"2.0","id":100,"method":"tools/list"}`, h)
		return strings.Contains(readSSE(t, resp.Body), `"tools"`)
	})
	return h
}

// endSession ends the session h addresses with a DELETE and returns the
// answer's status.
func endSession(t *testing.T, url string, h map[string]string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodDelete, url, nil)
	for k, v := range h {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestHTTPMalformed(t *testing.T) {
	url := serveHTTP(t, testApp(newProbe()))
	h := rawSession(t, url)
	resp := post(t, url, `{"jsonrpc":"2.0","id":2,"method":`, h)
	if resp.StatusCode < 400 || resp.StatusCode >= 500 {
		b, _ := io.ReadAll(resp.Body)
		t.Errorf("malformed JSON: %s %s, want a 4xx error", resp.Status, b)
	}
	resp = post(t, url, `{"jsonrpc":"2.0","id":3,"method":"no/such/method"}`, h)
	if b, _ := io.ReadAll(resp.Body); resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"code":-32601`) || !strings.Contains(string(b), "no/such/method") {
		t.Errorf("unknown method: %s %s, want JSON-RPC error -32601 naming the method", resp.Status, b)
	}
	resp = post(t, url, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"find_orders","arguments":{"customer":"C1","limit":2}}}`, h)
	if b := readSSE(t, resp.Body); !strings.Contains(b, `C1-2`) {
		t.Errorf("the session does not serve after malformed input: %s", b)
	}
}

// TestHTTPSessionNotFound checks that an unknown or closed session is
// answered 404 with a JSON-RPC error -32001, which is what makes clients
// (Claude Code) start a new session, and that they can.
func TestHTTPSessionNotFound(t *testing.T) {
	url := serveHTTP(t, testApp(newProbe()))
	h := rawSession(t, url)
	if code := endSession(t, url, map[string]string{"Mcp-Session-Id": h["Mcp-Session-Id"]}); code != http.StatusNoContent {
		t.Errorf("DELETE: %d", code)
	}
	for name, hdr := range map[string]map[string]string{
		"unknown": {"Mcp-Session-Id": "nope", "Mcp-Protocol-Version": "2025-11-25"},
		"deleted": h,
	} {
		for _, method := range []string{"POST", "GET", "DELETE"} {
			req, _ := http.NewRequest(method, url, strings.NewReader(`{"jsonrpc":"2.0","id":5,"method":"ping"}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			for k, v := range hdr {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var body struct {
				JSONRPC string `json:"jsonrpc"`
				Error   struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusNotFound || resp.Header.Get("Content-Type") != "application/json" ||
				json.Unmarshal(b, &body) != nil || body.JSONRPC != "2.0" || body.Error.Code != -32001 || body.Error.Message == "" {
				t.Errorf("%s %s session: %s %s %q, want 404 with a JSON-RPC error -32001", method, name, resp.Status, resp.Header.Get("Content-Type"), b)
			}
		}
	}
	rawSession(t, url) // a new session works
}

// TestHTTPProtocolVersionHeader checks that an MCP-Protocol-Version header
// naming no supported version is refused with 400, in a session and
// without one, and that the session still serves.
func TestHTTPProtocolVersionHeader(t *testing.T) {
	url := serveHTTP(t, testApp(newProbe()))
	h := rawSession(t, url)
	for _, v := range []string{"1999-01-01", "!!", "2025-11-24", "2099-01-01", "2026-07-28x", "latest", "2025-11-25,2026-07-28"} {
		for name, hdr := range map[string]map[string]string{
			"session":    {"Mcp-Session-Id": h["Mcp-Session-Id"], "Mcp-Protocol-Version": v},
			"no session": {"Mcp-Protocol-Version": v},
		} {
			resp := post(t, url, `{"jsonrpc":"2.0","id":6,"method":"tools/list"}`, hdr)
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), "-32022") || !strings.Contains(string(b), "2025-11-25") {
				t.Errorf("%s, header %q: %s %s, want 400 listing the supported versions", name, v, resp.Status, b)
			}
		}
	}
	resp := post(t, url, `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`, h)
	if b := readSSE(t, resp.Body); !strings.Contains(b, `"tools"`) {
		t.Errorf("the session does not serve after bad headers: %s", b)
	}
}

// readSSE reads one SSE response to its end and returns the data lines.
// readSSE returns the data of an event stream's events, one a line, or a
// plain JSON answer as it is.
func readSSE(t *testing.T, r io.Reader) string {
	t.Helper()
	var data, lines []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			data = append(data, d)
		}
	}
	if len(lines) == 1 && strings.HasPrefix(lines[0], "{") {
		return lines[0]
	}
	return strings.Join(data, "\n")
}

// TestHTTPResumption checks the SSE priming event and that a client that
// lost a response stream gets the response again with Last-Event-ID.
func TestHTTPResumption(t *testing.T) {
	url := serveHTTP(t, testApp(newProbe()))
	h := rawSession(t, url)
	sid := h["Mcp-Session-Id"]
	// An answer this large goes out on a resumable stream even when ready
	// at once (a small one is plain JSON: TestFastPathSessionAnswers).
	resp := post(t, url, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"find_orders","arguments":{"customer":"`+bigCustomer+`"}}}`, h)
	var ids []string
	var first string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if id, ok := strings.CutPrefix(line, "id: "); ok {
			ids = append(ids, id)
		}
		if first == "" && line != "" {
			first = line
		}
	}
	if first != "event: prime" || len(ids) < 2 {
		t.Fatalf("SSE stream: first line %q, event ids %v; want a priming event first", first, ids)
	}
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	req.Header.Set("Last-Event-ID", ids[0])
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req = req.WithContext(ctx)
	gresp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer gresp.Body.Close()
	if gresp.StatusCode != http.StatusOK {
		t.Fatalf("resume: %s", gresp.Status)
	}
	sc = bufio.NewScanner(gresp.Body)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var msg struct {
				ID     int             `json:"id"`
				Result json.RawMessage `json:"result"`
			}
			json.Unmarshal([]byte(d), &msg)
			if msg.ID == 9 && strings.Contains(string(msg.Result), bigCustomer+"-1") {
				return // replayed
			}
		}
	}
	t.Error("the response was not replayed after Last-Event-ID")
}

// TestProtocolVersions connects a client speaking each protocol version the
// SDK supports, over HTTP, by default (both eras on one endpoint) and in
// stateless mode.
func TestProtocolVersions(t *testing.T) {
	stateful := serveHTTP(t, testApp(newProbe()))
	stateless := serveHTTP(t, testApp(newProbe()), connector.WithStateless(true))
	for _, v := range mcp.SupportedProtocolVersions() {
		for _, mode := range []string{"stateful", "stateless"} {
			t.Run(mode+"/"+v, func(t *testing.T) {
				url, want := stateful, v
				if mode == "stateless" {
					url = stateless
				}
				cs := httpClient(t, url, v, nil)
				if got := cs.InitializeResult().ProtocolVersion; got != want {
					t.Errorf("negotiated %s, want %s", got, want)
				}
				if res := call(t, cs, "find_orders", map[string]any{"customer": "C1"}); res.IsError {
					t.Error(textOf(t, res))
				}
			})
		}
	}
}

// TestHTTPOlderHeaderInResumableSession checks that a request naming an
// older MCP-Protocol-Version in a session negotiated at 2025-11-25 still
// gets a resumable stream (a priming event first), as some clients send
// the older header; a session negotiated at 2025-03-26 does not.
func TestHTTPOlderHeaderInResumableSession(t *testing.T) {
	url := serveHTTP(t, testApp(newProbe()))
	firstLine := func(h map[string]string) string {
		resp := post(t, url, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"find_orders","arguments":{"customer":"`+bigCustomer+`"}}}`, h)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if line := sc.Text(); line != "" {
				return line
			}
		}
		return ""
	}
	h := rawSession(t, url)
	h["Mcp-Protocol-Version"] = "2025-03-26"
	if got := firstLine(h); got != "event: prime" {
		t.Errorf("2025-11-25 session, 2025-03-26 header: first line %q, want a priming event", got)
	}

	old := strings.Replace(initBody, `"2025-11-25"`, `"2025-03-26"`, 1)
	if old == initBody {
		t.Fatal("initBody does not name 2025-11-25")
	}
	resp := post(t, url, old, nil)
	resp.Body.Close()
	oh := map[string]string{"Mcp-Session-Id": resp.Header.Get("Mcp-Session-Id"), "Mcp-Protocol-Version": "2025-03-26"}
	post(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, oh).Body.Close()
	waitFor(t, "the old session to serve", func() bool {
		resp := post(t, url, `{"jsonrpc":"2.0","id":100,"method":"tools/list"}`, oh)
		return strings.Contains(readSSE(t, resp.Body), `"tools"`)
	})
	if got := firstLine(oh); got == "event: prime" {
		t.Errorf("2025-03-26 session: got a priming event, which that version does not define")
	}
}
