package testenv

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TaskPost sends one 2026-07-28 request declaring the tasks extension, as
// the subject the token names, and returns the HTTP status and the
// JSON-RPC answer (the last event of an event stream). Empty token: no
// Authorization header.
func TaskPost(t testing.TB, url, token, method, name, params string) (int, map[string]any) {
	t.Helper()
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":{%s,%s}}`, method, params, meta)
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	req.Header.Set("Mcp-Name", name)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if i := bytes.LastIndex(b, []byte("data: ")); i >= 0 {
		b = b[i+len("data: "):]
	}
	var msg map[string]any
	if err := json.Unmarshal(bytes.TrimSpace(b), &msg); err != nil {
		t.Fatalf("%s: %v: %s", method, err, b)
	}
	return resp.StatusCode, msg
}
