package connector_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/connector"
	"github.com/mcpgen/mcpgen/internal/authgate"
)

// v1Session opens a 2025-11-25 session by hand, with the bearer token
// (none when ""), and returns a function that sends one request in it and
// returns the JSON-RPC answer, and the initialize result.
func v1Session(t *testing.T, url, token string) (func(method, params string) map[string]any, map[string]any) {
	t.Helper()
	h := map[string]string{}
	if token != "" {
		h["Authorization"] = "Bearer " + token
	}
	resp := post(t, url, initBody, h)
	init := decodeAnswer(t, resp)
	sid := resp.Header.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatalf("no session: %v", init)
	}
	h["Mcp-Session-Id"], h["Mcp-Protocol-Version"] = sid, "2025-11-25"
	post(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, h)
	id := 10
	send := func(method, params string) map[string]any {
		t.Helper()
		id++
		resp := post(t, url, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s}}`, id, method, params), h)
		if resp.StatusCode != http.StatusOK {
			b, _ := io.ReadAll(resp.Body)
			t.Fatalf("%s: %s %s", method, resp.Status, b)
		}
		return decodeAnswer(t, resp)
	}
	return send, init
}

// decodeAnswer reads the JSON-RPC answer of a response, plain JSON or an
// event stream.
func decodeAnswer(t *testing.T, resp *http.Response) map[string]any {
	t.Helper()
	var msg map[string]any
	text := readSSE(t, resp.Body)
	lines := strings.Split(text, "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &msg); err != nil {
		t.Fatalf("reading the answer: %v: %q", err, text)
	}
	return msg
}

func resultOf(msg map[string]any) map[string]any {
	r, _ := msg["result"].(map[string]any)
	return r
}

func errorCode(msg map[string]any) float64 {
	e, _ := msg["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return c
}

// v1TaskApp has a task tool that works until released (or cancelled), one
// that runs only as a task, and one that never does.
func v1TaskApp(release <-chan struct{}) *connector.App {
	app := authApp()
	app.Tools = append(app.Tools,
		connector.Tool{Name: "report", Description: "Writes a report.", InputSchema: emptyInput, Result: connector.ResultText,
			Annotations: connector.Annotations{ReadOnly: true}, Task: connector.TaskOptional,
			Handler: func(ctx context.Context, _ json.RawMessage) (any, error) {
				select {
				case <-release:
					return "the report", nil
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}},
		connector.Tool{Name: "export", Description: "Exports.", InputSchema: emptyInput, Result: connector.ResultText,
			Annotations: connector.Annotations{ReadOnly: true}, Task: connector.TaskRequired,
			Handler: func(context.Context, json.RawMessage) (any, error) { return "exported", nil }})
	return app
}

// TestTasksV1Session drives the experimental tasks of MCP 2025-11-25 in a
// session: initialize declares the tasks capability, tools/list shows
// execution.taskSupport, tools/call with the task param answers a
// CreateTaskResult, tasks/get says working then completed, tasks/result
// waits for the tool's result (with the related-task _meta), tasks/list
// lists the session's tasks only, tasks/cancel cancels (and refuses an
// ended task), and a task=required tool called without the task param,
// or a plain tool called with it, is -32601.
func TestTasksV1Session(t *testing.T) {
	release := make(chan struct{})
	url := serveHTTP(t, v1TaskApp(release))
	send, init := v1Session(t, url, "")

	caps, _ := resultOf(init)["capabilities"].(map[string]any)
	tasks, _ := caps["tasks"].(map[string]any)
	if tasks == nil || tasks["list"] == nil || tasks["cancel"] == nil || fmt.Sprint(tasks["requests"]) != "map[tools:map[call:map[]]]" {
		t.Errorf("initialize capabilities.tasks: %v", caps["tasks"])
	}
	// The fast path lists the tools; with a progress token, the go-sdk.
	for _, params := range []string{"", `"_meta":{"progressToken":7}`} {
		support := map[string]any{}
		for _, x := range resultOf(send("tools/list", params))["tools"].([]any) {
			tool := x.(map[string]any)
			ex, _ := tool["execution"].(map[string]any)
			support[tool["name"].(string)] = ex["taskSupport"]
		}
		if support["report"] != "optional" || support["export"] != "required" || support["whoami"] != nil {
			t.Errorf("tools/list {%s} execution.taskSupport: %v", params, support)
		}
	}

	created := send("tools/call", `"name":"report","arguments":{},"task":{"ttl":60000}`)
	task, _ := resultOf(created)["task"].(map[string]any)
	id, _ := task["taskId"].(string)
	if id == "" || task["status"] != "working" || task["ttl"] == nil || task["pollInterval"] == nil || task["createdAt"] == nil {
		t.Fatalf("tools/call with task: %v", created)
	}
	if got := resultOf(send("tasks/get", fmt.Sprintf(`"taskId":%q`, id))); got["status"] != "working" || got["taskId"] != id {
		t.Errorf("tasks/get while it runs: %v", got)
	}
	// tasks/result waits for the end.
	results := make(chan map[string]any, 1)
	go func() { results <- send("tasks/result", fmt.Sprintf(`"taskId":%q`, id)) }()
	select {
	case r := <-results:
		t.Fatalf("tasks/result answered before the task ended: %v", r)
	case <-time.After(300 * time.Millisecond):
	}
	close(release)
	r := <-results
	res := resultOf(r)
	content, _ := res["content"].([]any)
	meta, _ := res["_meta"].(map[string]any)
	rel, _ := meta["io.modelcontextprotocol/related-task"].(map[string]any)
	if len(content) != 1 || content[0].(map[string]any)["text"] != "the report" || rel["taskId"] != id || res["resultType"] != nil {
		t.Errorf("tasks/result: %v", r)
	}
	if got := resultOf(send("tasks/get", fmt.Sprintf(`"taskId":%q`, id))); got["status"] != "completed" {
		t.Errorf("tasks/get after the end: %v", got)
	}

	// A cancel; an ended task cannot be cancelled.
	long := resultOf(send("tools/call", `"name":"export","arguments":{},"task":{}`))["task"].(map[string]any)
	longID := long["taskId"].(string)
	waitFor(t, "export to complete", func() bool {
		return resultOf(send("tasks/get", fmt.Sprintf(`"taskId":%q`, longID)))["status"] == "completed"
	})
	if c := errorCode(send("tasks/cancel", fmt.Sprintf(`"taskId":%q`, longID))); c != -32602 {
		t.Errorf("tasks/cancel of a completed task: code %v, want -32602", c)
	}
	hold := make(chan struct{})
	defer close(hold)
	url2 := serveHTTP(t, v1TaskApp(hold))
	send2, _ := v1Session(t, url2, "")
	running := resultOf(send2("tools/call", `"name":"report","arguments":{},"task":{}`))["task"].(map[string]any)["taskId"].(string)
	if got := resultOf(send2("tasks/cancel", fmt.Sprintf(`"taskId":%q`, running))); got["status"] != "cancelled" || got["taskId"] != running {
		t.Errorf("tasks/cancel: %v", got)
	}
	if got := resultOf(send2("tasks/get", fmt.Sprintf(`"taskId":%q`, running))); got["status"] != "cancelled" {
		t.Errorf("tasks/get after the cancel: %v", got)
	}

	// tasks/list: this session's tasks, not another's.
	listed := map[string]bool{}
	for _, x := range resultOf(send("tasks/list", ""))["tasks"].([]any) {
		listed[x.(map[string]any)["taskId"].(string)] = true
	}
	if len(listed) != 2 || !listed[id] || !listed[longID] {
		t.Errorf("tasks/list: %v, want %s and %s", listed, id, longID)
	}
	other, _ := v1Session(t, url, "")
	if l := resultOf(other("tasks/list", ""))["tasks"].([]any); len(l) != 0 {
		t.Errorf("tasks/list in another session: %v, want none", l)
	}
	// Without authorization a task is whoever holds its id's, from any
	// session; only the listing is the session's.
	if got := resultOf(other("tasks/get", fmt.Sprintf(`"taskId":%q`, id))); got["taskId"] != id || got["status"] != "completed" {
		t.Errorf("tasks/get of another session's task by its id: %v, want it, completed", got)
	}

	// What may not be a task, and what must.
	if c := errorCode(send("tools/call", `"name":"export","arguments":{}`)); c != -32601 {
		t.Errorf("task=required without the task param: code %v, want -32601", c)
	}
	if c := errorCode(send("tools/call", `"name":"whoami","arguments":{},"task":{}`)); c != -32601 {
		t.Errorf("a plain tool with the task param: code %v, want -32601", c)
	}
	if r := resultOf(send("tools/call", `"name":"whoami","arguments":{}`)); r["content"] == nil {
		t.Errorf("a plain tool at once: %v", r)
	}
	if c := errorCode(send("tasks/get", `"taskId":"nope"`)); c != -32602 {
		t.Errorf("tasks/get of an unknown task: code %v, want -32602", c)
	}
}

// TestTasksV1Subject checks that with authorization on, a 2025-11-25 task
// is its token subject's: seen in another session of the same subject,
// not by another subject.
func TestTasksV1Subject(t *testing.T) {
	verify := func(_ context.Context, token string, _ *http.Request) (*authgate.Identity, error) {
		return &authgate.Identity{Subject: token, Expiry: time.Now().Add(time.Minute)}, nil
	}
	release := make(chan struct{})
	defer close(release)
	base, _ := serveAuth(t, v1TaskApp(release), authgate.Auth{Issuer: "https://as.example.com", Verifier: verify})
	url := base + "/mcp"
	alice, _ := v1Session(t, url, "alice")
	id := resultOf(alice("tools/call", `"name":"report","arguments":{},"task":{}`))["task"].(map[string]any)["taskId"].(string)
	alice2, _ := v1Session(t, url, "alice")
	if got := resultOf(alice2("tasks/get", fmt.Sprintf(`"taskId":%q`, id))); got["status"] != "working" {
		t.Errorf("tasks/get by its subject in another session: %v", got)
	}
	mallory, _ := v1Session(t, url, "mallory")
	for _, m := range []string{"tasks/get", "tasks/cancel", "tasks/result"} {
		if c := errorCode(mallory(m, fmt.Sprintf(`"taskId":%q`, id))); c != -32602 {
			t.Errorf("%s by another subject: code %v, want -32602", m, c)
		}
	}
	if l := resultOf(mallory("tasks/list", ""))["tasks"].([]any); len(l) != 0 {
		t.Errorf("tasks/list of another subject: %v", l)
	}
	if l := resultOf(alice2("tasks/list", ""))["tasks"].([]any); len(l) != 1 {
		t.Errorf("tasks/list of its subject: %v", l)
	}
}
