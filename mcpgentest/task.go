package mcpgentest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpgen/mcpgen/internal/wire"
)

// The task states of MCP's tasks extension, as TaskStatus.Status holds
// them.
const (
	TaskWorking       = "working"
	TaskInputRequired = "input_required"
	TaskCompleted     = "completed"
	TaskFailed        = "failed"
	TaskCancelled     = "cancelled"
)

// tasksExtension is the extension a client declares to get tasks.
const tasksExtension = "io.modelcontextprotocol/tasks"

// Task is a tool call running as an MCP task (a tool marked
// //mcpgen:tool task or task=required), started by CallTask. Its methods
// speak the tasks extension of MCP 2026-07-28 (tasks/get, tasks/update,
// tasks/cancel) over the connector's Streamable HTTP endpoint, as a host
// does; a protocol error fails the test.
type Task struct {
	c    *Connector
	tool string
	id   string
	poll time.Duration
}

// TaskStatus is a task as tasks/get details it.
type TaskStatus struct {
	// Status is TaskWorking, TaskInputRequired, TaskCompleted, TaskFailed
	// or TaskCancelled.
	Status string
	// Message is the task's statusMessage: what the handler last reported
	// with mcpgen.Progress while working, or why it failed or ended.
	Message string
	// Result is the tool's result once the task completed; a tool error
	// completes the task too, with Result.IsError set.
	Result *mcp.CallToolResult
	// Error is the protocol error a failed task ended with.
	Error *jsonrpc.Error
	// InputRequests are the questions an input_required task waits on
	// (elicitation/create, sampling/createMessage, roots/list), by key:
	// answer them with Task.Answer.
	InputRequests map[string]json.RawMessage
}

// Final reports whether the task has ended: completed, failed or
// cancelled.
func (s TaskStatus) Final() bool {
	return s.Status == TaskCompleted || s.Status == TaskFailed || s.Status == TaskCancelled
}

// CallTask calls a task tool as a host that supports tasks does, and
// returns the task at once, while its handler runs. A tool that is not a
// task tool, or a protocol error, fails the test.
//
//	task := c.CallTask("export_orders", map[string]any{"year": 2025})
//	res := task.Wait() // the tool's result, as CallTool returns it
func (c *Connector) CallTask(name string, args any) *Task {
	c.t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	res, err := c.taskRequest("tools/call", name, map[string]any{"name": name, "arguments": args})
	if err != nil {
		c.t.Fatalf("mcpgentest: calling %s as a task: %v", name, err)
	}
	var created struct {
		ResultType     string `json:"resultType"`
		TaskID         string `json:"taskId"`
		PollIntervalMs int64  `json:"pollIntervalMs"`
	}
	json.Unmarshal(res, &created)
	if created.ResultType != "task" || created.TaskID == "" {
		c.t.Fatalf("mcpgentest: %s answered at once, not with a task: mark it //mcpgen:tool task (or task=required) to run it as a task, or call it with CallTool; it answered %s", name, res)
	}
	poll := time.Duration(created.PollIntervalMs) * time.Millisecond
	if poll <= 0 {
		poll = 200 * time.Millisecond
	}
	return &Task{c: c, tool: name, id: created.TaskID, poll: poll}
}

// ID is the task's taskId.
func (t *Task) ID() string { return t.id }

// Status asks the server for the task's status once (tasks/get).
func (t *Task) Status() TaskStatus {
	t.c.t.Helper()
	res, err := t.c.taskRequest("tasks/get", t.id, map[string]any{"taskId": t.id})
	if err != nil {
		t.c.t.Fatalf("mcpgentest: tasks/get of %s (task %s): %v", t.tool, t.id, err)
	}
	var got struct {
		Status        string                     `json:"status"`
		StatusMessage string                     `json:"statusMessage"`
		Result        json.RawMessage            `json:"result"`
		Error         *jsonrpc.Error             `json:"error"`
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
	}
	if err := json.Unmarshal(res, &got); err != nil {
		t.c.t.Fatalf("mcpgentest: tasks/get of %s: %v: %s", t.tool, err, res)
	}
	s := TaskStatus{Status: got.Status, Message: got.StatusMessage, Error: got.Error, InputRequests: got.InputRequests}
	if len(got.Result) > 0 && string(got.Result) != "null" {
		s.Result = new(mcp.CallToolResult)
		if err := json.Unmarshal(got.Result, s.Result); err != nil {
			t.c.t.Fatalf("mcpgentest: the result of %s (task %s) is not a CallToolResult: %v: %s", t.tool, t.id, err, got.Result)
		}
	}
	return s
}

// WaitFor polls the task (at the server's pollIntervalMs) until its
// status is one of statuses or it has ended, and returns that status; it
// fails the test when the connector's Timeout passes first.
func (t *Task) WaitFor(statuses ...string) TaskStatus {
	t.c.t.Helper()
	deadline := time.Now().Add(t.c.timeout)
	for {
		s := t.Status()
		for _, want := range statuses {
			if s.Status == want {
				return s
			}
		}
		if s.Final() {
			return s
		}
		if time.Now().After(deadline) {
			t.c.t.Fatalf("mcpgentest: task %s of %s still %s after %s (status message %q); wait longer with mcpgentest.Timeout",
				t.id, t.tool, s.Status, t.c.timeout, s.Message)
		}
		time.Sleep(t.poll)
	}
}

// Wait polls the task until it ends and returns the tool's result, as
// CallTool does: a tool error is a result with IsError set. A task that
// failed, was cancelled, waits for input (answer it with Answer first),
// or is still working after the connector's Timeout fails the test.
func (t *Task) Wait() *mcp.CallToolResult {
	t.c.t.Helper()
	s := t.WaitFor(TaskInputRequired)
	switch s.Status {
	case TaskCompleted:
		if s.Result == nil {
			t.c.t.Fatalf("mcpgentest: task %s of %s completed without a result", t.id, t.tool)
		}
		return s.Result
	case TaskInputRequired:
		t.c.t.Fatalf("mcpgentest: task %s of %s waits for input (%s): answer it with Task.Answer, after Task.WaitFor(mcpgentest.TaskInputRequired)",
			t.id, t.tool, keys(s.InputRequests))
	case TaskFailed:
		msg := s.Message
		if s.Error != nil {
			msg = fmt.Sprintf("%s (code %d)", s.Error.Message, s.Error.Code)
		}
		t.c.t.Fatalf("mcpgentest: task %s of %s failed: %s", t.id, t.tool, msg)
	default:
		t.c.t.Fatalf("mcpgentest: task %s of %s ended %s: %s", t.id, t.tool, s.Status, s.Message)
	}
	return nil
}

// Cancel asks the server to cancel the task (tasks/cancel): the handler's
// ctx ends and the task is cancelled at once. Cancelling an ended task
// changes nothing.
func (t *Task) Cancel() {
	t.c.t.Helper()
	if _, err := t.c.taskRequest("tasks/cancel", t.id, map[string]any{"taskId": t.id}); err != nil {
		t.c.t.Fatalf("mcpgentest: tasks/cancel of %s (task %s): %v", t.tool, t.id, err)
	}
}

// Answer answers questions of an input_required task (tasks/update), by
// the keys of its InputRequests; each answer is the result the request
// asks for, such as {"action": "accept", "content": {...}} for an
// elicitation. The handler runs again once every question has an answer.
func (t *Task) Answer(responses map[string]any) {
	t.c.t.Helper()
	if _, err := t.c.taskRequest("tasks/update", t.id, map[string]any{"taskId": t.id, "inputResponses": responses}); err != nil {
		t.c.t.Fatalf("mcpgentest: tasks/update of %s (task %s): %v", t.tool, t.id, err)
	}
}

func keys(m map[string]json.RawMessage) string {
	var ks []string
	for k, v := range m {
		var q struct {
			Method string `json:"method"`
		}
		json.Unmarshal(v, &q)
		ks = append(ks, k+": "+q.Method)
	}
	return strings.Join(ks, ", ")
}

// httpURL serves the connector's Streamable HTTP endpoint on a loopback
// port, once per Connector: tasks are a 2026-07-28 extension, which the
// in-memory session (2025-11-25) does not carry.
func (c *Connector) httpURL() string {
	c.httpOnce.Do(func() {
		hs := httptest.NewServer(c.srv.Handler())
		c.mcpURL = hs.URL + "/mcp"
		c.t.Cleanup(hs.Close)
	})
	return c.mcpURL
}

// taskRequest sends one MCP 2026-07-28 request declaring the tasks
// extension, with name in Mcp-Name, and returns its result.
func (c *Connector) taskRequest(method, name string, params map[string]any) (json.RawMessage, error) {
	params["_meta"] = map[string]any{
		mcp.MetaKeyProtocolVersion: wire.StatelessVersion,
		mcp.MetaKeyClientInfo:      map[string]any{"name": "mcpgentest", "version": "v1"},
		mcp.MetaKeyClientCapabilities: map[string]any{
			"elicitation": map[string]any{},
			"sampling":    map[string]any{},
			"extensions":  map[string]any{tasksExtension: map[string]any{}},
		},
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.nextID.Add(1), "method": method, "params": params})
	if err != nil {
		return nil, fmt.Errorf("encoding the request: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.httpURL(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", wire.StatelessVersion)
	req.Header.Set("Mcp-Method", method)
	req.Header.Set("Mcp-Name", name)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		// The answer is the stream's last message; notifications (such
		// as progress) may come before it.
		if i := bytes.LastIndex(b, []byte("data: ")); i >= 0 {
			b = b[i+len("data: "):]
		}
	}
	var msg struct {
		Result json.RawMessage `json:"result"`
		Error  *jsonrpc.Error  `json:"error"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(b), &msg); err != nil {
		return nil, fmt.Errorf("HTTP %d, not a JSON-RPC answer: %.500s", resp.StatusCode, b)
	}
	if msg.Error != nil {
		return nil, fmt.Errorf("error %d: %s", msg.Error.Code, msg.Error.Message)
	}
	return msg.Result, nil
}
