package dev_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestStatelessHost has a 2026-07-28 client (no initialize, no session:
// version and capabilities in each request) and a 2025-11-25 session use
// mcpgen dev at the same time, as they use a built connector: lists, a
// tool call, a resource and the view the front serves, before and after an
// edit.
func TestStatelessHost(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a connector")
	}
	dir := copyDir(t, "testdata/plain")
	ds := startDev(t, dir, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "dev-test-2026", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ds.url},
		&mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatalf("a 2026-07-28 client cannot connect to mcpgen dev: %v", err)
	}
	defer cs.Close()
	if got := cs.InitializeResult().ProtocolVersion; got != "2026-07-28" {
		t.Fatalf("negotiated %s, want 2026-07-28", got)
	}
	if cs.ID() != "" {
		t.Errorf("the 2026-07-28 client got session id %q", cs.ID())
	}
	old := connect(t, ds.url, newNotes())

	greet := tool(t, cs, "greet")
	uri := viewURI(t, greet)
	if !strings.HasPrefix(uri, "ui://card/") || uri == "ui://card/fromchild" {
		t.Fatalf("greet links %q, want the front's ui://card/HASH", uri)
	}
	if got := readText(t, cs, uri); !strings.Contains(got, "card v1") {
		t.Fatalf("view content %q lacks card v1", got)
	}
	if got := readText(t, cs, "test://static"); got != "static v1" {
		t.Fatalf("static = %q", got)
	}
	for range 3 { // each request stands alone
		if got := callText(t, cs, "greet", map[string]any{"name": "ada"}); got != "hello ada v1" {
			t.Fatalf("greet = %q", got)
		}
	}
	if got := callText(t, old, "greet", map[string]any{"name": "bob"}); got != "hello bob v1" {
		t.Fatalf("the 2025-11-25 session: greet = %q", got)
	}

	edit(t, dir, "main.go", `const version = "v1"`, `const version = "v2"`)
	if e := ds.wait(t, "go"); !e.OK {
		t.Fatalf("rebuild failed: %+v", e)
	}
	if got := callText(t, cs, "greet", map[string]any{"name": "ada"}); got != "hello ada v2" {
		t.Fatalf("after the edit, greet = %q", got)
	}
}

// propertyOrder lists the properties of tool's input schema in the order
// tools/list sends them, read from the raw answer to a 2026-07-28 request
// (an SDK client would decode them into a map).
func propertyOrder(t testing.TB, url, tool string) []string {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},` +
		`"io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/list")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		var data []string
		for _, line := range strings.Split(string(raw), "\n") {
			if d, ok := strings.CutPrefix(line, "data:"); ok {
				data = append(data, strings.TrimSpace(d))
			}
		}
		raw = []byte(strings.Join(data, ""))
	}
	var m struct {
		Result struct {
			Tools []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("tools/list: %v\n%s", err, raw)
	}
	for _, tl := range m.Result.Tools {
		if tl.Name != tool {
			continue
		}
		var schema struct {
			Properties json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(tl.InputSchema, &schema); err != nil {
			t.Fatal(err)
		}
		// The keys of "properties", in order: a key, then its value skipped.
		dec := json.NewDecoder(bytes.NewReader(schema.Properties))
		var keys []string
		if _, err := dec.Token(); err != nil {
			t.Fatal(err)
		}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				t.Fatal(err)
			}
			keys = append(keys, k.(string))
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				t.Fatal(err)
			}
		}
		return keys
	}
	t.Fatalf("no tool %s in %s", tool, raw)
	return nil
}
