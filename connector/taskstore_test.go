package connector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/connector/store"
)

// TestTaskLease checks the lease that task records carry in the store:
// the server running a task renews it, so a long task stays working; a
// cancel recorded in the store reaches the handler with the next renewal
// even when no message says so; and once renewals stop (the server died)
// tasks/get reports the task failed, and the ending stays.
func TestTaskLease(t *testing.T) {
	st := store.NewMemory(store.MemoryOptions{})
	ended := make(chan error, 2)
	app := &App{Name: "lease", Tools: []Tool{{Name: "hold", Description: "Runs until cancelled.",
		InputSchema: `{"type":"object"}`, Result: ResultText, Annotations: Annotations{ReadOnly: true}, Task: TaskRequired,
		Handler: func(ctx context.Context, _ json.RawMessage) (any, error) {
			select {
			case <-ctx.Done():
				ended <- context.Cause(ctx)
			case <-time.After(time.Minute):
				ended <- nil
			}
			return "held", nil
		}}}}
	s, err := NewServer(app, WithStore(st))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	const lease = 150 * time.Millisecond
	s.tasks.lease = lease

	post := func(method, name, params string) map[string]any {
		t.Helper()
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":{%s,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}`, method, params)
		req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", method)
		req.Header.Set("Mcp-Name", name)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var msg struct{ Result map[string]any }
		if err := json.Unmarshal(b, &msg); err != nil || msg.Result == nil {
			t.Fatalf("%s: %d %s", method, resp.StatusCode, b)
		}
		return msg.Result
	}
	create := func() string {
		id, _ := post("tools/call", "hold", `"name":"hold","arguments":{}`)["taskId"].(string)
		if id == "" {
			t.Fatal("no task created")
		}
		return id
	}
	get := func(id string) map[string]any { return post("tasks/get", id, fmt.Sprintf(`"taskId":%q`, id)) }

	id := create()
	time.Sleep(4 * lease)
	if res := get(id); res["status"] != "working" {
		t.Fatalf("a task running past four leases: %v, want working (its lease renewed)", res)
	}
	// A cancel that only the record knows of (its message lost).
	if _, err := st.Tasks().Update(context.Background(), id, store.TaskUpdate{Status: store.TaskCancelled}); err != nil {
		t.Fatal(err)
	}
	select {
	case cause := <-ended:
		if !errors.Is(cause, errTaskCancelled) {
			t.Errorf("the handler ended with %v, want the task's cancel", cause)
		}
	case <-time.After(20 * lease):
		t.Fatal("a cancel recorded in the store did not stop the handler at a lease renewal")
	}

	// The server stops renewing, as if it died.
	id = create()
	s.tasks.mu.Lock()
	s.tasks.stopListen()
	s.tasks.mu.Unlock()
	time.Sleep(2 * lease)
	res := get(id)
	e, _ := res["error"].(map[string]any)
	if res["status"] != "failed" || e == nil || !strings.Contains(fmt.Sprint(res["statusMessage"]), "stopped renewing its lease") {
		t.Fatalf("a task whose lease ran out: %v, want failed with the reason", res)
	}
	// Its handler ending late does not undo the failure.
	s.tasks.mu.Lock()
	rt := s.tasks.running[id]
	s.tasks.mu.Unlock()
	rt.cancel(errors.New("late"))
	<-ended
	time.Sleep(50 * time.Millisecond)
	if res := get(id); res["status"] != "failed" {
		t.Errorf("after the lost task's handler ended: %v, want it still failed", res)
	}
}
