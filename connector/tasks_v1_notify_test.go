package connector_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpgen/mcpgen/connector"
	"github.com/mcpgen/mcpgen/internal/taskctx"
)

// v1NotifyApp has a task tool that reports progress and works until
// released, and one that asks the client to confirm.
func v1NotifyApp(release <-chan struct{}) *connector.App {
	app := authApp()
	app.Tools = append(app.Tools,
		connector.Tool{Name: "report", Description: "Writes a report.", InputSchema: emptyInput, Result: connector.ResultText,
			Annotations: connector.Annotations{ReadOnly: true}, Task: connector.TaskOptional,
			Handler: func(ctx context.Context, _ json.RawMessage) (any, error) {
				taskctx.Progress(ctx, "half way")
				select {
				case <-release:
					return "the report", nil
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}},
		connector.Tool{Name: "confirm", Description: "Asks, then answers.", InputSchema: emptyInput, Result: connector.ResultText,
			Annotations: connector.Annotations{ReadOnly: true}, Task: connector.TaskOptional,
			Handler: func(ctx context.Context, _ json.RawMessage) (any, error) {
				raw, err := connector.CallFrom(ctx).Ask(ctx, &mcp.ElicitParams{Mode: "form", Message: "Proceed?",
					RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}}})
				if err != nil {
					return nil, err
				}
				var res mcp.ElicitResult
				json.Unmarshal(raw, &res)
				return "answered " + res.Action, nil
			}})
	return app
}

// streamMsgs are the messages that arrive on an event stream.
type streamMsgs struct {
	ch      <-chan map[string]any
	skipped []map[string]any // read, not yet asked for
}

// v1Stream opens a 2025-11-25 session whose client declares elicitation,
// and its GET event stream; it returns the session's headers and the
// messages that arrive on the stream.
func v1Stream(t *testing.T, url string) (map[string]string, *streamMsgs) {
	t.Helper()
	resp := post(t, url, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"raw","version":"1"}}}`, nil)
	sid := resp.Header.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatal("no session")
	}
	h := map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25"}
	post(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, h)
	// The notification is accepted (202) before it is processed.
	waitFor(t, "the session to be initialized", func() bool {
		return strings.Contains(readSSE(t, post(t, url, `{"jsonrpc":"2.0","id":100,"method":"tools/list"}`, h).Body), `"tools"`)
	})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	req.Header.Set("Accept", "text/event-stream")
	for k, v := range h {
		req.Header.Set(k, v)
	}
	get, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if get.StatusCode != http.StatusOK {
		t.Fatalf("GET: %s", get.Status)
	}
	msgs := make(chan map[string]any, 16)
	go func() {
		defer get.Body.Close()
		sc := bufio.NewScanner(get.Body)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var m map[string]any
				if json.Unmarshal([]byte(d), &m) == nil {
					msgs <- m
				}
			}
		}
		close(msgs)
	}()
	return h, &streamMsgs{ch: msgs}
}

// nextMsg returns the first message of the stream with the given method
// not returned yet.
func nextMsg(t *testing.T, msgs *streamMsgs, method string) map[string]any {
	t.Helper()
	for i, m := range msgs.skipped {
		if m["method"] == method {
			msgs.skipped = append(msgs.skipped[:i], msgs.skipped[i+1:]...)
			return m
		}
	}
	timeout := time.After(5 * time.Second)
	for {
		select {
		case m, ok := <-msgs.ch:
			if !ok {
				t.Fatalf("the stream ended before %s", method)
			}
			if m["method"] == method {
				return m
			}
			msgs.skipped = append(msgs.skipped, m)
		case <-timeout:
			t.Fatalf("no %s on the stream", method)
		}
	}
}

// TestTasksV1StatusNotification checks that a 2025-11-25 session with its
// event stream open hears notifications/tasks/status as its task changes:
// working with the progress message, then completed, each the task as
// tasks/get details it; another session hears nothing of it.
func TestTasksV1StatusNotification(t *testing.T) {
	release := make(chan struct{})
	url := serveHTTP(t, v1NotifyApp(release))
	h, msgs := v1Stream(t, url)
	_, others := v1Stream(t, url)
	resp := post(t, url, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"report","arguments":{},"task":{}}}`, h)
	task, _ := resultOf(decodeAnswer(t, resp))["task"].(map[string]any)
	id, _ := task["taskId"].(string)
	if id == "" {
		t.Fatalf("tools/call: %v", task)
	}
	n := nextMsg(t, msgs, "notifications/tasks/status")
	p, _ := n["params"].(map[string]any)
	if p["taskId"] != id || p["status"] != "working" || p["statusMessage"] != "half way" || p["ttl"] == nil ||
		p["pollInterval"] == nil || p["createdAt"] != task["createdAt"] || p["lastUpdatedAt"] == nil || n["jsonrpc"] != "2.0" || n["id"] != nil {
		t.Errorf("first notification: %v", n)
	}
	close(release)
	n = nextMsg(t, msgs, "notifications/tasks/status")
	p, _ = n["params"].(map[string]any)
	if p["taskId"] != id || p["status"] != "completed" {
		t.Errorf("second notification: %v", n)
	}
	got := resultOf(decodeAnswer(t, post(t, url, fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":%q}}`, id), h)))
	delete(got, "_meta")
	delete(p, "_meta")
	if fmt.Sprint(got) != fmt.Sprint(p) {
		t.Errorf("the notification %v is not the task tasks/get answers %v", p, got)
	}
	select {
	case m := <-others.ch:
		t.Errorf("another session heard %v", m)
	case <-time.After(200 * time.Millisecond):
	}
}

// TestTasksV1Question checks that an elicitation a task's handler sends in
// a 2025-11-25 session carries the related-task _meta, that the task
// reads input_required until it is answered (and is told so), and that it
// then completes with the answer.
func TestTasksV1Question(t *testing.T) {
	url := serveHTTP(t, v1NotifyApp(nil))
	h, msgs := v1Stream(t, url)
	resp := post(t, url, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"confirm","arguments":{},"task":{}}}`, h)
	created := decodeAnswer(t, resp)
	task, _ := resultOf(created)["task"].(map[string]any)
	id, _ := task["taskId"].(string)
	if id == "" {
		t.Fatalf("tools/call: %v", created)
	}
	get := func() map[string]any {
		return resultOf(decodeAnswer(t, post(t, url, fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":%q}}`, id), h)))
	}
	q := nextMsg(t, msgs, "elicitation/create")
	params, _ := q["params"].(map[string]any)
	meta, _ := params["_meta"].(map[string]any)
	rel, _ := meta["io.modelcontextprotocol/related-task"].(map[string]any)
	if rel["taskId"] != id || params["message"] != "Proceed?" {
		t.Errorf("elicitation/create: %v, want _meta related-task %s", q, id)
	}
	if got := get(); got["status"] != "input_required" {
		t.Errorf("tasks/get while the question waits: %v", got)
	}
	n := nextMsg(t, msgs, "notifications/tasks/status")
	if p, _ := n["params"].(map[string]any); p["status"] != "input_required" || p["taskId"] != id {
		t.Errorf("notification while the question waits: %v", n)
	}
	qid, _ := json.Marshal(q["id"])
	answer := post(t, url, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"action":"accept","content":{"ok":true}}}`, qid), h)
	if answer.StatusCode != http.StatusAccepted {
		t.Fatalf("the answer: %s", answer.Status)
	}
	// working again (unless it completed before that was sent), then
	// completed.
	for {
		n := nextMsg(t, msgs, "notifications/tasks/status")
		p, _ := n["params"].(map[string]any)
		if p["status"] == "completed" {
			break
		}
		if p["status"] != "working" {
			t.Fatalf("notification after the answer: %v, want working or completed", n)
		}
	}
	res := resultOf(decodeAnswer(t, post(t, url, fmt.Sprintf(`{"jsonrpc":"2.0","id":4,"method":"tasks/result","params":{"taskId":%q}}`, id), h)))
	if c, _ := res["content"].([]any); len(c) != 1 || c[0].(map[string]any)["text"] != "answered accept" {
		t.Errorf("tasks/result: %v", res)
	}
}
