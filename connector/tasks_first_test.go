package connector_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen"
	"github.com/mcpgen/mcpgen/connector"
	"github.com/mcpgen/mcpgen/internal/authgate"
)

// TestTaskAsksFirst drives a tool marked askfirst through the composition
// of a multi-round trip and a task (conformance scenario
// tasks-mrtr-composition): its first tools/call answers the handler's
// question as an input-required result, with no task; the call retried
// with the answer and the requestState answers a CreateTaskResult, with
// neither requestState nor inputRequests; the handler goes on as the task,
// whose next question the task asks (input_required, tasks/update), and
// the task's result holds both answers. A tampered requestState is -32602.
func TestTaskAsksFirst(t *testing.T) {
	verify := func(_ context.Context, token string, _ *http.Request) (*authgate.Identity, error) {
		return &authgate.Identity{Subject: token, Expiry: time.Now().Add(time.Minute)}, nil
	}
	type name struct {
		Name string `json:"name"`
	}
	type color struct {
		Color string `json:"color"`
	}
	app := authApp()
	app.Tools = append(app.Tools, connector.Tool{Name: "greet_later", Description: "Asks, then greets in a task.", InputSchema: emptyInput,
		Result: connector.ResultText, Annotations: connector.Annotations{ReadOnly: true}, Task: connector.TaskRequired, TaskAsksFirst: true,
		Handler: func(ctx context.Context, _ json.RawMessage) (any, error) {
			n, _, err := mcpgen.Elicit[name](mcpgen.InputKey(ctx, "user_name"), "What is your name?")
			if err != nil {
				return nil, err
			}
			if err := mcpgen.StartTask(ctx); err != nil {
				return nil, err
			}
			c, _, err := mcpgen.Elicit[color](mcpgen.InputKey(ctx, "color"), "What is your favorite color?")
			if err != nil {
				return nil, err
			}
			return n.Name + " likes " + c.Color + ".", nil
		}})
	base, _ := serveAuth(t, app, authgate.Auth{Issuer: "https://as.example.com", Verifier: verify})
	url := base + "/mcp"

	// Round 1: the question, no task.
	status, got := taskPost(t, url, "alice", "tools/call", "greet_later", `"name":"greet_later","arguments":{}`)
	res, _ := got["result"].(map[string]any)
	questions, _ := res["inputRequests"].(map[string]any)
	state, _ := res["requestState"].(string)
	if status != http.StatusOK || res["resultType"] != "input_required" || questions["user_name"] == nil || state == "" || res["taskId"] != nil {
		t.Fatalf("round 1: %d %v, want an input-required result asking user_name, with a requestState and no taskId", status, got)
	}

	answer := `"inputResponses":{"user_name":{"action":"accept","content":{"name":"Alice"}}}`
	// A requestState the server did not issue is refused.
	status, got = taskPost(t, url, "alice", "tools/call", "greet_later",
		fmt.Sprintf(`"name":"greet_later","arguments":{},%s,"requestState":%q`, answer, "x"+state))
	if e, _ := got["error"].(map[string]any); status != http.StatusBadRequest || e == nil || e["code"] != float64(-32602) {
		t.Errorf("round 2 with a tampered requestState: %d %v, want -32602", status, got)
	}

	// Round 2: the answer turns the call into a task.
	status, got = taskPost(t, url, "alice", "tools/call", "greet_later",
		fmt.Sprintf(`"name":"greet_later","arguments":{},%s,"requestState":%q`, answer, state))
	res, _ = got["result"].(map[string]any)
	id, _ := res["taskId"].(string)
	if status != http.StatusOK || res["resultType"] != "task" || id == "" || res["requestState"] != nil || res["inputRequests"] != nil {
		t.Fatalf("round 2: %d %v, want a CreateTaskResult without requestState nor inputRequests", status, got)
	}

	// The task asks the next question itself.
	task := waitTask(t, url, id, "input_required")
	if q, _ := task["inputRequests"].(map[string]any); q["color"] == nil || q["user_name"] != nil {
		t.Fatalf("the task's questions: %v, want color only", task)
	}
	status, got = taskPost(t, url, "alice", "tasks/update", id,
		fmt.Sprintf(`"taskId":%q,"inputResponses":{"color":{"action":"accept","content":{"color":"green"}}}`, id))
	if status != http.StatusOK || got["error"] != nil {
		t.Fatalf("tasks/update: %d %v", status, got)
	}
	task = waitTask(t, url, id, "completed")
	b, _ := json.Marshal(task["result"])
	if !strings.Contains(string(b), "Alice likes green.") {
		t.Errorf("the task's result: %s, want the answers of both phases", b)
	}
}

// waitTask polls tasks/get until the task has status want.
func waitTask(t *testing.T, url, id, want string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, got := taskPost(t, url, "alice", "tasks/get", id, fmt.Sprintf(`"taskId":%q`, id))
		res, _ := got["result"].(map[string]any)
		if res["status"] == want {
			return res
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s: %v, want %s", id, got, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
