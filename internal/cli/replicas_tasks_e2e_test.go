package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testenv"
)

// taskAnswer is one answer of a replica to a 2026-07-28 task request.
type taskAnswer struct {
	status  int
	replica string // X-Replica, set by HAProxy; "" for a direct request
	result  map[string]any
	err     map[string]any
}

// postTask sends one 2026-07-28 request declaring the tasks extension to
// url (the proxy or one replica), as a raw HTTP POST with the Mcp-Method
// and Mcp-Name headers, and returns the answer.
func postTask(t *testing.T, url, method, name, params string) taskAnswer {
	t.Helper()
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":{%s,%s}}`, method, params, meta)
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	req.Header.Set("Mcp-Name", name)
	hc := &http.Client{Timeout: 10 * time.Second}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, name, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if i := bytes.LastIndex(b, []byte("data: ")); i >= 0 {
		b = b[i+len("data: "):]
	}
	var msg struct {
		Result map[string]any `json:"result"`
		Error  map[string]any `json:"error"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(b), &msg); err != nil {
		t.Fatalf("%s %s: %d %v: %s", method, name, resp.StatusCode, err, b)
	}
	return taskAnswer{status: resp.StatusCode, replica: resp.Header.Get("X-Replica"), result: msg.Result, err: msg.Error}
}

// createTask calls tool as a task through url and returns the task's id
// and the replica that created it (and so runs it).
func createTask(t *testing.T, url, tool, args string) (id, replica string) {
	t.Helper()
	a := postTask(t, url, "tools/call", tool, fmt.Sprintf(`"name":%q,"arguments":%s`, tool, args))
	id, _ = a.result["taskId"].(string)
	if a.status != http.StatusOK || a.result["resultType"] != "task" || id == "" {
		t.Fatalf("tools/call %s as a task: %d %v %v", tool, a.status, a.result, a.err)
	}
	return id, a.replica
}

func getTask(t *testing.T, url, id string) taskAnswer {
	t.Helper()
	a := postTask(t, url, "tasks/get", id, fmt.Sprintf(`"taskId":%q`, id))
	if a.status != http.StatusOK || a.result == nil {
		t.Fatalf("tasks/get %s: %d %v", id, a.status, a.err)
	}
	return a
}

// TestReplicasTasks runs three replicas of examples/everything sharing a
// redis-server behind HAProxy (round robin, no stickiness) and drives
// tasks through the proxy with raw 2026-07-28 requests: polls of tasks/get
// are answered by replicas other than the one running the task, a
// tasks/cancel crossing replicas leaves the task cancelled on every
// replica, and a task whose replica is killed (-9) is reported failed with
// the lost-lease error once its lease (30 s, not configurable from outside
// the connector) runs out.
func TestReplicasTasks(t *testing.T) {
	t.Parallel()
	redis := testenv.StartRedis(t)
	bin := buildEverything(t)
	lb, replicas := startReplicas(t, bin, redis.URL(), 3)

	t.Run("polls answered by other replicas", func(t *testing.T) {
		id, creator := createTask(t, lb, "slow_compute", `{"seconds":1,"label":"poll"}`)
		answeredBy := map[string]int{}
		var last taskAnswer
		for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			last = getTask(t, lb, id)
			answeredBy[last.replica]++
			if s := last.result["status"]; s != "working" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("task %s still working after 15s: %v", id, last.result)
			}
		}
		if last.result["status"] != "completed" {
			t.Fatalf("task %s ended %v, want completed", id, last.result)
		}
		if r, _ := json.Marshal(last.result["result"]); !strings.Contains(string(r), "computed poll after 1s") {
			t.Errorf("the completed task's result: %s", r)
		}
		others := 0
		var names []string
		for name, n := range answeredBy {
			names = append(names, fmt.Sprintf("%s:%d", name, n))
			if name != creator {
				others += n
			}
		}
		sort.Strings(names)
		t.Logf("created on %s; tasks/get answered by %s", creator, strings.Join(names, " "))
		if len(answeredBy) < 2 || others == 0 || answeredBy[""] > 0 {
			t.Errorf("polls of a task created on %s were answered by %v; want several replicas, other than the creator", creator, names)
		}
	})

	t.Run("cancel crossing replicas", func(t *testing.T) {
		id, creator := createTask(t, lb, "slow_compute", `{"seconds":600,"label":"cancel"}`)
		if s := getTask(t, lb, id).result["status"]; s != "working" {
			t.Fatalf("the task before the cancel: %v, want working", s)
		}
		// Round robin: the cancel lands on a replica other than the
		// creator unless it comes round again; send it until it does.
		var cancelledOn string
		for range 3 {
			a := postTask(t, lb, "tasks/cancel", id, fmt.Sprintf(`"taskId":%q`, id))
			if a.status != http.StatusOK || a.err != nil {
				t.Fatalf("tasks/cancel through the proxy: %d %v", a.status, a.err)
			}
			if a.replica != creator {
				cancelledOn = a.replica
				break
			}
		}
		if cancelledOn == "" {
			t.Fatalf("three tasks/cancel all landed on the creator %s", creator)
		}
		t.Logf("created on %s, cancelled on %s", creator, cancelledOn)
		for i, r := range replicas {
			if s := getTask(t, r.url, id).result["status"]; s != "cancelled" {
				t.Errorf("tasks/get on replica r%d after the cancel: %v, want cancelled", i, s)
			}
		}
		// The handler on the creator stopped: its record stays cancelled
		// (a handler finishing later could not change it anyway), and
		// the creator still answers.
		time.Sleep(200 * time.Millisecond)
		if s := getTask(t, lb, id).result["status"]; s != "cancelled" {
			t.Errorf("tasks/get a moment later: %v, want cancelled", s)
		}
	})

	t.Run("kill -9 of the replica running a task", func(t *testing.T) {
		id, creator := createTask(t, lb, "slow_compute", `{"seconds":600,"label":"lost"}`)
		var victim *connector
		for i, r := range replicas {
			if creator == fmt.Sprintf("r%d", i) {
				victim = r
			}
		}
		if victim == nil {
			t.Fatalf("the task was created by %q, not a known replica", creator)
		}
		killed := time.Now()
		if err := victim.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		<-victim.exit
		victim.exit <- -9
		// The lease is 30 s from the last renewal: at most 30 s after the
		// kill the task is failed. Polled (through the proxy, which skips
		// the dead replica) for 45 s at most.
		var last taskAnswer
		for deadline := killed.Add(45 * time.Second); ; time.Sleep(500 * time.Millisecond) {
			last = getTask(t, lb, id)
			if last.result["status"] != "working" {
				break
			}
			if last.replica == creator {
				t.Errorf("the killed replica %s answered", creator)
			}
			if time.Now().After(deadline) {
				t.Fatalf("task %s still working 45s after its replica was killed: %v", id, last.result)
			}
		}
		t.Logf("task of killed %s reported %v by %s after %s", creator, last.result["status"], last.replica, time.Since(killed).Round(time.Second))
		e, _ := last.result["error"].(map[string]any)
		if last.result["status"] != "failed" || e == nil || !strings.Contains(fmt.Sprint(e["message"]), "the task was lost: the server running it stopped renewing its lease") {
			t.Fatalf("the task of a killed replica: %v, want failed with the lost-lease error", last.result)
		}
		for i, r := range replicas {
			if r == victim {
				continue
			}
			if s := getTask(t, r.url, id).result["status"]; s != "failed" {
				t.Errorf("tasks/get on replica r%d: %v, want failed", i, s)
			}
		}
	})
}
