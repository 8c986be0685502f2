package connector_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen"
	"github.com/mcpgen/mcpgen/connector"
	"github.com/mcpgen/mcpgen/connector/store"
	"github.com/mcpgen/mcpgen/internal/authgate"
	"github.com/mcpgen/mcpgen/internal/testenv"
)

// taskPost sends one 2026-07-28 request declaring the tasks extension
// (testenv.TaskPost).
var taskPost = testenv.TaskPost

// TestTaskVisibleOnlyToItsSubject checks that with authorization on, a task
// answers tasks/get and tasks/cancel only for the token subject that
// created it: to anyone else it is an unknown task (-32602), and their
// cancel does not end it. It also checks that mcpgen.Progress in a task
// sets the task's statusMessage.
func TestTaskVisibleOnlyToItsSubject(t *testing.T) {
	verify := func(_ context.Context, token string, _ *http.Request) (*authgate.Identity, error) {
		return &authgate.Identity{Subject: token, Expiry: time.Now().Add(time.Minute)}, nil
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
	base, _ := serveAuth(t, app, authgate.Auth{Issuer: "https://as.example.com", Verifier: verify})
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

// TestTasksAcrossServers runs two servers sharing one store, as replicas
// behind a load balancer do: a task created on A is answered by tasks/get
// on B, a tasks/cancel sent to B stops the handler running on A, the
// answers of a tasks/update sent to B reach the handler waiting on A, and
// a task whose server died (its lease ran out) is reported failed, not
// working forever. The memory store (two servers in one process) always
// runs; Redis runs against a real redis-server.
func TestTasksAcrossServers(t *testing.T) {
	t.Run("memory", func(t *testing.T) {
		shared := store.NewMemory(store.MemoryOptions{})
		testTasksAcrossServers(t, func() store.Store { return shared })
	})
	t.Run("redis", func(t *testing.T) {
		r := testenv.StartRedis(t)
		testTasksAcrossServers(t, func() store.Store {
			st, err := store.Open(context.Background(), r.URL()+"/0")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		})
	})
}

func testTasksAcrossServers(t *testing.T, open func() store.Store) {
	verify := func(_ context.Context, token string, _ *http.Request) (*authgate.Identity, error) {
		return &authgate.Identity{Subject: token, Expiry: time.Now().Add(time.Minute)}, nil
	}
	started, ended := make(chan struct{}, 1), make(chan error, 1)
	app := func() *connector.App {
		a := authApp()
		a.Tools = append(a.Tools,
			connector.Tool{Name: "hold", Description: "Runs until cancelled.", InputSchema: emptyInput,
				Result: connector.ResultText, Annotations: connector.Annotations{ReadOnly: true}, Task: connector.TaskRequired,
				Handler: func(ctx context.Context, _ json.RawMessage) (any, error) {
					mcpgen.Progress(ctx, 1, 2, "")
					started <- struct{}{}
					select {
					case <-ctx.Done():
						ended <- context.Cause(ctx)
					case <-time.After(time.Minute):
						ended <- nil
					}
					return "held", nil
				}},
			connector.Tool{Name: "ask", Description: "Asks before it answers.", InputSchema: emptyInput,
				Result: connector.ResultText, Annotations: connector.Annotations{ReadOnly: true}, Task: connector.TaskRequired,
				Handler: func(ctx context.Context, _ json.RawMessage) (any, error) {
					c, action, err := mcpgen.Elicit[struct {
						OK bool `json:"ok"`
					}](ctx, "Go on?")
					if err != nil {
						return nil, err
					}
					return fmt.Sprintf("%s %v", action, c.OK), nil
				}})
		return a
	}
	stA, stB := open(), open()
	baseA, _ := serveAuth(t, app(), authgate.Auth{Issuer: "https://as.example.com", Verifier: verify}, connector.WithStore(stA))
	baseB, _ := serveAuth(t, app(), authgate.Auth{Issuer: "https://as.example.com", Verifier: verify}, connector.WithStore(stB))
	a, b := baseA+"/mcp", baseB+"/mcp"
	get := func(id string) map[string]any {
		t.Helper()
		status, got := taskPost(t, b, "alice", "tasks/get", id, fmt.Sprintf(`"taskId":%q`, id))
		res, _ := got["result"].(map[string]any)
		if status != http.StatusOK || res == nil {
			t.Fatalf("tasks/get on B: %d %v", status, got)
		}
		return res
	}
	await := func(id, status string) map[string]any {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			res := get(id)
			if res["status"] == status {
				return res
			}
			if time.Now().After(deadline) {
				t.Fatalf("task %s on B: %v, want %s", id, res, status)
			}
		}
	}
	create := func(tool string) string {
		t.Helper()
		status, created := taskPost(t, a, "alice", "tools/call", tool, fmt.Sprintf(`"name":%q,"arguments":{}`, tool))
		res, _ := created["result"].(map[string]any)
		id, _ := res["taskId"].(string)
		if status != http.StatusOK || res["resultType"] != "task" || id == "" {
			t.Fatalf("creating a %s task on A: %d %v", tool, status, created)
		}
		return id
	}

	// Created on A, seen on B with its progress; cancelled on B, stopped on A.
	id := create("hold")
	<-started
	if res := get(id); res["status"] != "working" || res["statusMessage"] != "1 of 2" {
		t.Errorf("tasks/get on B of a task running on A: %v, want working with statusMessage \"1 of 2\"", res)
	}
	if status, got := taskPost(t, b, "mallory", "tasks/cancel", id, fmt.Sprintf(`"taskId":%q`, id)); status != http.StatusBadRequest {
		t.Errorf("tasks/cancel on B by another subject: %d %v, want -32602", status, got)
	}
	if status, got := taskPost(t, b, "alice", "tasks/cancel", id, fmt.Sprintf(`"taskId":%q`, id)); status != http.StatusOK || got["error"] != nil {
		t.Fatalf("tasks/cancel on B: %d %v", status, got)
	}
	select {
	case cause := <-ended:
		if cause == nil || cause.Error() != "the task was cancelled" {
			t.Errorf("the handler on A ended with %v, want the task's cancel", cause)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("tasks/cancel on B did not reach the handler running on A")
	}
	await(id, "cancelled")

	// Asks on A; answered through B.
	id = create("ask")
	res := await(id, "input_required")
	questions, _ := res["inputRequests"].(map[string]any)
	if len(questions) != 1 {
		t.Fatalf("inputRequests on B: %v, want one question", res)
	}
	var answers []string
	for k := range questions {
		answers = append(answers, fmt.Sprintf(`%q:{"action":"accept","content":{"ok":true}}`, k))
	}
	params := fmt.Sprintf(`"taskId":%q,"inputResponses":{%s}`, id, strings.Join(answers, ","))
	if status, got := taskPost(t, b, "alice", "tasks/update", id, params); status != http.StatusOK || got["error"] != nil {
		t.Fatalf("tasks/update on B: %d %v", status, got)
	}
	res = await(id, "completed")
	if r, _ := json.Marshal(res["result"]); !strings.Contains(string(r), "accept true") {
		t.Errorf("the answered task's result on B: %s, want \"accept true\"", r)
	}

	// A task whose server stopped renewing its lease: failed, with why.
	lost := "lost-" + fmt.Sprint(time.Now().UnixNano())
	if err := stA.Tasks().Create(context.Background(), store.Task{ID: lost, Owner: "alice", Status: store.TaskWorking,
		TTL: time.Hour, Lease: time.Now().Add(-time.Second)}); err != nil {
		t.Fatal(err)
	}
	res = get(lost)
	e, _ := res["error"].(map[string]any)
	if res["status"] != "failed" || e == nil || !strings.Contains(fmt.Sprint(e["message"]), "stopped renewing its lease") {
		t.Errorf("tasks/get of a task whose server died: %v, want failed with the reason", res)
	}
}

// TestTaskRefusedWhenStoreFull: past the store's bound a task is refused
// before its handler runs, with the retry-later error, and the caller's
// running task is untouched.
func TestTaskRefusedWhenStoreFull(t *testing.T) {
	verify := func(_ context.Context, token string, _ *http.Request) (*authgate.Identity, error) {
		return &authgate.Identity{Subject: token, Expiry: time.Now().Add(time.Minute)}, nil
	}
	release := make(chan struct{})
	defer close(release)
	var runs atomic.Int32
	app := authApp()
	app.Tools = append(app.Tools, connector.Tool{Name: "report", Description: "Writes a report.", InputSchema: emptyInput,
		Result: connector.ResultText, Annotations: connector.Annotations{ReadOnly: true}, Task: connector.TaskRequired,
		Handler: func(ctx context.Context, _ json.RawMessage) (any, error) {
			runs.Add(1)
			select {
			case <-release:
			case <-ctx.Done():
			}
			return "the report", nil
		}})
	base, _ := serveAuth(t, app, authgate.Auth{Issuer: "https://as.example.com", Verifier: verify},
		connector.WithStore(store.NewMemory(store.MemoryOptions{MaxTasks: 1})))
	url := base + "/mcp"
	status, created := taskPost(t, url, "alice", "tools/call", "report", `"name":"report","arguments":{}`)
	res, _ := created["result"].(map[string]any)
	id, _ := res["taskId"].(string)
	if status != http.StatusOK || id == "" {
		t.Fatalf("the first task: %d %v", status, created)
	}
	_, refused := taskPost(t, url, "alice", "tools/call", "report", `"name":"report","arguments":{}`)
	if e, _ := refused["error"].(map[string]any); e == nil || e["code"] != float64(-32000) || !strings.Contains(fmt.Sprint(e["message"]), "try again later") {
		t.Errorf("a task past the store's bound: %v, want error -32000 saying to try again later", refused)
	}
	if _, got := taskPost(t, url, "alice", "tasks/get", id, fmt.Sprintf(`"taskId":%q`, id)); got["result"] == nil {
		t.Errorf("the running task after a refused one: %v", got)
	}
	if n := runs.Load(); n > 1 {
		t.Errorf("%d handlers ran; the refused task's must not", n)
	}
}
