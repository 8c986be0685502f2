package conformance

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testenv"
)

// TestExtTasksClient has the official tasks client
// (@modelcontextprotocol/ext-tasks) drive the task tools of
// examples/everything over MCP 2026-07-28: a task seen working and then
// completed with its result, a task cancelled, and a task=required tool
// refused with -32021 to a client that did not declare the extension.
func TestExtTasksClient(t *testing.T) {
	steps := runExtTasks(t, "exttasks.mjs")
	r := steps["result"]
	if r.Kind != "task" || !slices.Contains(r.Statuses, "working") || r.Statuses[len(r.Statuses)-1] != "completed" || r.Text != "computed report after 1s" {
		t.Errorf("a task: %+v, want working then completed with its result", r)
	}
	if c := steps["cancel"]; c.Kind != "task" || c.Status != "cancelled" {
		t.Errorf("a cancelled task: %+v", c)
	}
	if q := steps["required"]; !q.Refused || q.Code != -32021 {
		t.Errorf("task=required without the extension: %+v, want refused with -32021", q)
	}
}

// TestExtTasksClientV1 has the official tasks client drive the same tools
// over MCP 2025-11-25, its "v1" generation (SEP-1686), on a session the
// official SDK client opened: the server declares the tasks capability
// and the tools their execution.taskSupport, so the client runs them as
// tasks by itself. A task is seen working and then completed with its
// result (read with tasks/result), a task=required tool runs as a task,
// a task is cancelled, tasks/list lists the session's tasks, and a
// task=required tool called without the task param is refused with
// -32601.
func TestExtTasksClientV1(t *testing.T) {
	steps := runExtTasks(t, "exttasks_v1.mjs")
	if c := steps["capabilities"]; c.Tasks == nil || c.Tasks["list"] == nil || c.Tasks["cancel"] == nil || c.Tasks["requests"] == nil {
		t.Errorf("the server's tasks capability: %+v", c)
	}
	r := steps["result"]
	if r.Kind != "task" || !slices.Contains(r.Statuses, "working") || r.Statuses[len(r.Statuses)-1] != "completed" || r.Text != "computed report after 1s" {
		t.Errorf("a task: %+v, want working then completed with its result", r)
	}
	if n := steps["notified"]; n.Count == 0 || n.Statuses[len(n.Statuses)-1] != "completed" {
		t.Errorf("notifications/tasks/status of the task: %+v, want its completion", n)
	}
	if q := steps["required_task"]; q.Kind != "task" || !q.IsError {
		t.Errorf("a task=required tool through the tasks client: %+v, want a task completed with a tool error", q)
	}
	if c := steps["cancel"]; c.Kind != "task" || c.Status != "cancelled" {
		t.Errorf("a cancelled task: %+v", c)
	}
	if l := steps["list"]; l.Count != 3 || !slices.Contains(l.Statuses, "cancelled") {
		t.Errorf("tasks/list: %+v, want the session's 3 tasks", l)
	}
	if q := steps["required"]; !q.Refused || q.Code != -32601 {
		t.Errorf("task=required without the task param: %+v, want refused with -32601", q)
	}
}

// extTasksStep is one line of what a tasks client script reports.
type extTasksStep struct {
	Step, Kind, Status, Text, Message string
	Statuses                          []string
	Refused, IsError                  bool
	Code, Count                       int
	Tasks                             map[string]any
}

// runExtTasks runs the script against a served examples/everything and
// returns its steps by name.
func runExtTasks(t *testing.T, script string) map[string]extTasksStep {
	t.Helper()
	node := testenv.Node(t)
	modules := testenv.NodeModules(t, "@modelcontextprotocol/ext-tasks", "@modelcontextprotocol/client")
	if testing.Short() {
		t.Skip("builds and serves examples/everything; skipped in -short mode")
	}
	url := serve(t, everythingBinary(t))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	path, _ := filepath.Abs(filepath.Join("testdata", script))
	out, err := exec.CommandContext(ctx, node, path, modules, url).CombinedOutput()
	if err != nil {
		t.Fatalf("the tasks client failed: %v\n%s", err, out)
	}
	steps := map[string]extTasksStep{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var s extTasksStep
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("reading the client's report: %v\n%s", err, out)
		}
		steps[s.Step] = s
	}
	t.Logf("client report:\n%s", out)
	if s, ok := steps["error"]; ok {
		t.Fatalf("the client failed: %s", s.Message)
	}
	return steps
}
