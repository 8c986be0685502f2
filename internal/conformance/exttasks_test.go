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
	node := testenv.Node(t)
	modules := testenv.NodeModules(t, "@modelcontextprotocol/ext-tasks")
	if testing.Short() {
		t.Skip("builds and serves examples/everything; skipped in -short mode")
	}
	url := serve(t, everythingBinary(t))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	script, _ := filepath.Abs(filepath.Join("testdata", "exttasks.mjs"))
	out, err := exec.CommandContext(ctx, node, script, modules, url).CombinedOutput()
	if err != nil {
		t.Fatalf("the tasks client failed: %v\n%s", err, out)
	}
	type step struct {
		Step, Kind, Status, Text, Message string
		Statuses                          []string
		Refused                           bool
		Code                              int
	}
	steps := map[string]step{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var s step
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("reading the client's report: %v\n%s", err, out)
		}
		steps[s.Step] = s
	}
	t.Logf("client report:\n%s", out)
	if s, ok := steps["error"]; ok {
		t.Fatalf("the client failed: %s", s.Message)
	}
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
