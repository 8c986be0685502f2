package connector_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen"
	"github.com/mcpgen/mcpgen/connector"
)

// taskPost sends one 2026-07-28 request declaring the tasks extension, as
// the subject the token names, and returns the HTTP status and the
// JSON-RPC answer.
func taskPost(t *testing.T, url, token, method, name, params string) (int, map[string]any) {
	t.Helper()
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":{%s,%s}}`, method, params, meta)
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	req.Header.Set("Mcp-Name", name)
	req.Header.Set("Authorization", "Bearer "+token)
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

// TestTaskVisibleOnlyToItsSubject checks that with authorization on, a task
// answers tasks/get and tasks/cancel only for the token subject that
// created it: to anyone else it is an unknown task (-32602), and their
// cancel does not end it. It also checks that mcpgen.Progress in a task
// sets the task's statusMessage.
func TestTaskVisibleOnlyToItsSubject(t *testing.T) {
	verify := func(_ context.Context, token string, _ *http.Request) (*connector.Identity, error) {
		return &connector.Identity{Subject: token, Expiry: time.Now().Add(time.Minute)}, nil
	}
	release, started := make(chan struct{}), make(chan struct{}, 1)
	defer close(release)
	app := authApp()
	app.Tools = append(app.Tools, connector.Tool{Name: "report", Description: "Writes a report.", InputSchema: emptyInput,
		Result: connector.ResultText, Annotations: connector.Annotations{ReadOnly: true}, Task: connector.TaskOptional,
		Handler: func(ctx context.Context, _ json.RawMessage) (any, error) {
			mcpgen.Progress(ctx, 1, 2, "")
			started <- struct{}{}
			select {
			case <-release:
			case <-ctx.Done():
			}
			return "the report", nil
		}})
	base, _ := serveAuth(t, app, connector.Auth{Issuer: "https://as.example.com", Verifier: verify})
	url := base + "/mcp"

	status, created := taskPost(t, url, "alice", "tools/call", "report", `"name":"report","arguments":{}`)
	res, _ := created["result"].(map[string]any)
	id, _ := res["taskId"].(string)
	if status != http.StatusOK || res["resultType"] != "task" || id == "" {
		t.Fatalf("creating a task: %d %v", status, created)
	}
	<-started
	for _, method := range []string{"tasks/get", "tasks/cancel"} {
		status, got := taskPost(t, url, "mallory", method, id, fmt.Sprintf(`"taskId":%q`, id))
		e, _ := got["error"].(map[string]any)
		if status != http.StatusBadRequest || e == nil || e["code"] != float64(-32602) {
			t.Errorf("%s by another subject: %d %v, want -32602", method, status, got)
		}
	}
	status, got := taskPost(t, url, "alice", "tasks/get", id, fmt.Sprintf(`"taskId":%q`, id))
	// mcpgen.Progress in a task is its statusMessage.
	if r, _ := got["result"].(map[string]any); status != http.StatusOK || r["status"] != "working" || r["statusMessage"] != "1 of 2" {
		t.Errorf("tasks/get by its subject: %d %v, want working with statusMessage \"1 of 2\" (another's cancel must not end it)", status, got)
	}
}
