package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// The two protocol eras the benchmark drives.
const (
	eraSessions  = "sessions"  // 2025-11-25: initialize, Mcp-Session-Id on every request
	eraStateless = "stateless" // 2026-07-28: no initialize, per-request _meta and headers
	// 2025-11-25 requests without initialize or a session, as older
	// clients send them to a server behind a load balancer: to the
	// default server, and to one run with --stateless.
	eraSessionless          = "sessionless"
	eraSessionlessStateless = "sessionless-stateless"
)

// allModes are the modes in the order of the tables.
var allModes = []string{eraSessions, eraSessionless, eraSessionlessStateless, eraStateless}

const (
	sessionVersion   = "2025-11-25"
	statelessVersion = "2026-07-28"
)

// The methods the load generator can measure (-method).
const (
	methodCall = "tools/call"
	methodList = "tools/list"
	methodRead = "resources/read"
)

// summaryURI and summaryText are the resource every server serves.
const (
	summaryURI  = "orders://summary"
	summaryText = "3 open orders, 12 shipped this week, 1 cancelled."
)

// callArgs are the arguments of every call: limit is left out, so each
// server must apply its default (10); status is checked against the enum,
// customer against the pattern.
const callArgs = `{"customer":"C42","status":"shipped"}`

// client is one load-generator connection to a server: a lean Streamable
// HTTP client that speaks just enough MCP to call one tool, so that the load
// generator costs little next to the server it measures.
type client struct {
	hc      *http.Client
	url     string
	era     string
	method  string // what call sends: tools/call, tools/list or resources/read
	session string // Mcp-Session-Id (sessions era)
	id      int64
	body    bytes.Buffer
	resp    bytes.Buffer
}

// clientCaps is the capabilities object every client declares (-client-caps).
var clientCaps = "{}"

func newClient(hc *http.Client, url, era string) *client {
	return &client{hc: hc, url: url, era: era, method: methodCall}
}

// open starts a session (sessions era): initialize, then
// notifications/initialized. It does nothing in the stateless era.
func (c *client) open() error {
	if c.era != eraSessions {
		return nil
	}
	c.id++
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"protocolVersion":%q,"capabilities":%s,"clientInfo":{"name":"bench-load","version":"1.0.0"}}}`, c.id, sessionVersion, clientCaps)
	res, hdr, err := c.post([]byte(body), "initialize", "")
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	var r struct {
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	if err := json.Unmarshal(res, &r); err != nil || r.Result.ProtocolVersion == "" {
		return fmt.Errorf("initialize: unexpected answer %.300s", res)
	}
	c.session = hdr.Get("Mcp-Session-Id")
	if c.session == "" {
		return fmt.Errorf("initialize: no Mcp-Session-Id in the answer")
	}
	if _, _, err := c.post([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), "notifications/initialized", ""); err != nil {
		return fmt.Errorf("notifications/initialized: %w", err)
	}
	return nil
}

// close ends the session (DELETE).
func (c *client) close() {
	if c.session == "" {
		return
	}
	req, _ := http.NewRequest(http.MethodDelete, c.url, nil)
	req.Header.Set("Mcp-Session-Id", c.session)
	req.Header.Set("Mcp-Protocol-Version", sessionVersion)
	if res, err := c.hc.Do(req); err == nil {
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	c.session = ""
}

// call makes one request of c.method (by default a tools/call of
// find_orders) and returns the JSON-RPC response (valid until the next
// call).
func (c *client) call() ([]byte, error) {
	c.id++
	c.body.Reset()
	c.body.WriteString(`{"jsonrpc":"2.0","id":`)
	c.body.WriteString(strconv.FormatInt(c.id, 10))
	var name string
	switch c.method {
	case methodList:
		c.body.WriteString(`,"method":"tools/list","params":{`)
	case methodRead:
		c.body.WriteString(`,"method":"resources/read","params":{"uri":"` + summaryURI + `"`)
		name = summaryURI
	default:
		c.body.WriteString(`,"method":"tools/call","params":{"name":"find_orders","arguments":`)
		c.body.WriteString(callArgs)
		name = "find_orders"
	}
	if c.era == eraStateless {
		if c.method != methodList {
			c.body.WriteByte(',')
		}
		c.body.WriteString(`"_meta":{"io.modelcontextprotocol/protocolVersion":"` + statelessVersion +
			`","io.modelcontextprotocol/clientInfo":{"name":"bench-load","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":` + clientCaps + `}`)
	}
	c.body.WriteString(`}}`)
	res, _, err := c.post(c.body.Bytes(), c.method, name)
	return res, err
}

// post sends one JSON-RPC message and returns the JSON-RPC response to it
// (from a JSON body or from the SSE stream), or nil for a notification
// answered 202.
func (c *client) post(body []byte, method, name string) ([]byte, http.Header, error) {
	req, err := http.NewRequest(http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	h := req.Header
	h["Content-Type"] = []string{"application/json"}
	h["Accept"] = []string{"application/json, text/event-stream"}
	switch {
	case c.era == eraStateless:
		h["Mcp-Protocol-Version"] = []string{statelessVersion}
		h["Mcp-Method"] = []string{method}
		if name != "" {
			h["Mcp-Name"] = []string{name}
		}
	case c.session != "":
		h["Mcp-Session-Id"] = []string{c.session}
		h["Mcp-Protocol-Version"] = []string{sessionVersion}
	case c.era == eraSessionless || c.era == eraSessionlessStateless:
		h["Mcp-Protocol-Version"] = []string{sessionVersion}
	}
	res, err := c.hc.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer res.Body.Close()
	c.resp.Reset()
	if _, err := c.resp.ReadFrom(res.Body); err != nil {
		return nil, nil, err
	}
	if res.StatusCode == http.StatusAccepted {
		return nil, res.Header, nil
	}
	if res.StatusCode != http.StatusOK {
		return nil, nil, fmt.Errorf("HTTP %d: %.300s", res.StatusCode, c.resp.Bytes())
	}
	b := c.resp.Bytes()
	if ct := res.Header.Get("Content-Type"); len(ct) >= 17 && ct[:17] == "text/event-stream" {
		if b = sseResponse(b); b == nil {
			return nil, nil, fmt.Errorf("no JSON-RPC response in the event stream: %.300s", c.resp.Bytes())
		}
	}
	return b, res.Header, nil
}

// sseResponse returns the data of the event that carries the JSON-RPC
// response in an event stream (priming events have empty data; a
// response is the only data that holds "result" or "error" with an id).
func sseResponse(stream []byte) []byte {
	for len(stream) > 0 {
		line := stream
		if i := bytes.IndexByte(stream, '\n'); i >= 0 {
			line, stream = stream[:i], stream[i+1:]
		} else {
			stream = nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		data, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok {
			continue
		}
		data = bytes.TrimPrefix(data, []byte(" "))
		if bytes.Contains(data, []byte(`"id"`)) && (bytes.Contains(data, []byte(`"result"`)) || bytes.Contains(data, []byte(`"error"`))) {
			return data
		}
	}
	return nil
}

// wantOrders is what find_orders returns for callArgs: limit defaulted to
// 10, three orders in the requested state.
var wantOrders = map[string]any{
	"customer": "C42",
	"limit":    float64(10),
	"orders": []any{
		map[string]any{"id": "C42-1", "status": "shipped", "total": float64(100)},
		map[string]any{"id": "C42-2", "status": "shipped", "total": float64(200)},
		map[string]any{"id": "C42-3", "status": "shipped", "total": float64(300)},
	},
}

// checkFull verifies a response to method completely. The first call of
// every client is checked this way.
func checkFull(method string, res []byte) error {
	switch method {
	case methodList:
		var r struct {
			Result *struct {
				Tools []struct {
					Name         string         `json:"name"`
					InputSchema  map[string]any `json:"inputSchema"`
					OutputSchema map[string]any `json:"outputSchema"`
				} `json:"tools"`
			} `json:"result"`
		}
		if err := json.Unmarshal(res, &r); err != nil || r.Result == nil || len(r.Result.Tools) != 1 ||
			r.Result.Tools[0].Name != "find_orders" || r.Result.Tools[0].InputSchema == nil || r.Result.Tools[0].OutputSchema == nil {
			return fmt.Errorf("tools/list: want find_orders with its schemas, got %.300s", res)
		}
		return nil
	case methodRead:
		var r struct {
			Result *struct {
				Contents []struct {
					URI  string `json:"uri"`
					Text string `json:"text"`
				} `json:"contents"`
			} `json:"result"`
		}
		if err := json.Unmarshal(res, &r); err != nil || r.Result == nil || len(r.Result.Contents) != 1 ||
			r.Result.Contents[0].URI != summaryURI || r.Result.Contents[0].Text != summaryText {
			return fmt.Errorf("resources/read: want the summary, got %.300s", res)
		}
		return nil
	}
	return checkCall(res)
}

// checkCall verifies a tools/call response completely: a result that is
// not an error, structured content as expected, and a text copy holding
// the same JSON.
func checkCall(res []byte) error {
	var r struct {
		Result *struct {
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
			StructuredContent map[string]any `json:"structuredContent"`
			IsError           bool           `json:"isError"`
		} `json:"result"`
	}
	if err := json.Unmarshal(res, &r); err != nil || r.Result == nil {
		return fmt.Errorf("not a result: %.300s", res)
	}
	if r.Result.IsError {
		return fmt.Errorf("tool error: %.300s", res)
	}
	if !jsonEqual(r.Result.StructuredContent, wantOrders) {
		return fmt.Errorf("structuredContent: got %v, want %v", r.Result.StructuredContent, wantOrders)
	}
	if len(r.Result.Content) != 1 || r.Result.Content[0].Type != "text" {
		return fmt.Errorf("content: want one text copy, got %.300s", res)
	}
	var copy map[string]any
	if err := json.Unmarshal([]byte(r.Result.Content[0].Text), &copy); err != nil || !jsonEqual(copy, wantOrders) {
		return fmt.Errorf("text copy %q is not the structured content", r.Result.Content[0].Text)
	}
	return nil
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// checkQuick is the check of every other call: cheap enough not to load
// the generator, strict enough to catch an error result.
func checkQuick(method string, res []byte) error {
	var ok bool
	switch method {
	case methodList:
		ok = bytes.Contains(res, []byte(`"find_orders"`)) && bytes.Contains(res, []byte(`"inputSchema"`))
	case methodRead:
		ok = bytes.Contains(res, []byte(summaryText))
	default:
		ok = bytes.Contains(res, []byte(`"structuredContent"`)) && !bytes.Contains(res, []byte(`"isError":true`)) && bytes.Contains(res, []byte(`C42-3`))
	}
	if !ok || !bytes.Contains(res, []byte(`"result"`)) {
		return fmt.Errorf("unexpected answer to %s: %.300s", method, res)
	}
	return nil
}

// newHTTPClient is the load generator's HTTP client: keep-alive
// connections, one per concurrent client.
func newHTTPClient(conns int) *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			MaxIdleConns:        conns + 8,
			MaxIdleConnsPerHost: conns + 8,
			IdleConnTimeout:     30 * time.Second,
			DisableCompression:  true,
		},
		Timeout: 30 * time.Second,
	}
}
