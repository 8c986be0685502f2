package dev_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testenv"
)

// reportGo is a tool that runs as a task: it waits until released by a
// file or cancelled.
const reportGo = `package main

import (
	"context"
	"os"
	"time"

	"github.com/mcpgen/mcpgen"
)

// ReportInput names the file whose existence ends the report.
type ReportInput struct {
	// Until is the file that ends the report once it exists.
	Until string ` + "`json:\"until\"`" + `
}

// Writes a report; it runs as a task.
//
//mcpgen:tool readonly closedworld task
func Report(ctx context.Context, in ReportInput) (string, error) {
	mcpgen.Progress(ctx, 1, 2, "writing")
	for {
		if _, err := os.Stat(in.Until); err == nil {
			return "the report", nil
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}
`

// taskRequest sends one 2026-07-28 request declaring the tasks extension
// and returns its JSON-RPC answer.
func taskRequest(t *testing.T, url, method, name, params string) map[string]any {
	t.Helper()
	_, msg := testenv.TaskPost(t, url, "", method, name, params)
	return msg
}

// TestTasksThroughFront runs a task tool of a connector under mcpgen dev
// as a 2026-07-28 host does: tools/call answers a task, tasks/get through
// the front shows it working with its progress and then completed with
// the result, and tasks/cancel ends another.
func TestTasksThroughFront(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a connector")
	}
	dir := scaffold(t)
	if err := os.WriteFile(filepath.Join(dir, "report.go"), []byte(reportGo), 0o644); err != nil {
		t.Fatal(err)
	}
	ds := startDev(t, dir, nil)
	release := filepath.Join(t.TempDir(), "done")
	create := func() string {
		t.Helper()
		msg := taskRequest(t, ds.url, "tools/call", "report", fmt.Sprintf(`"name":"report","arguments":{"until":%q}`, release))
		res, _ := msg["result"].(map[string]any)
		id, _ := res["taskId"].(string)
		if res["resultType"] != "task" || id == "" {
			t.Fatalf("tools/call of a task tool through mcpgen dev: %v, want a task", msg)
		}
		return id
	}
	get := func(id string) map[string]any {
		t.Helper()
		msg := taskRequest(t, ds.url, "tasks/get", id, fmt.Sprintf(`"taskId":%q`, id))
		res, _ := msg["result"].(map[string]any)
		if res == nil {
			t.Fatalf("tasks/get through mcpgen dev: %v", msg)
		}
		return res
	}
	// awaitMsg polls until the task has status (and message, when given).
	awaitMsg := func(id, status, msg string) map[string]any {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			res := get(id)
			if res["status"] == status && (msg == "" || res["statusMessage"] == msg) {
				return res
			}
			if time.Now().After(deadline) {
				t.Fatalf("task %s: %v, want %s %q", id, res, status, msg)
			}
		}
	}
	await := func(id, status string) map[string]any { t.Helper(); return awaitMsg(id, status, "") }

	// The task is working from its creation; its progress message comes
	// when the handler reports it.
	id := create()
	awaitMsg(id, "working", "writing")
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	res := await(id, "completed")
	if b, _ := json.Marshal(res["result"]); !strings.Contains(string(b), "the report") {
		t.Errorf("the completed task's result: %s, want the report", b)
	}

	os.Remove(release)
	other := create()
	await(other, "working")
	if msg := taskRequest(t, ds.url, "tasks/cancel", other, fmt.Sprintf(`"taskId":%q`, other)); msg["error"] != nil {
		t.Fatalf("tasks/cancel through mcpgen dev: %v", msg)
	}
	await(other, "cancelled")
}
