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

	"github.com/mcpgen/mcpgen/connector"
	"github.com/mcpgen/mcpgen/connector/store"
	"github.com/mcpgen/mcpgen/internal/authgate"
	"github.com/mcpgen/mcpgen/internal/testenv"
)

// listenTasks opens a raw 2026-07-28 subscriptions/listen stream (request
// id 7) as the subject token names, asking for the tasks ids and for the
// notifications of also (`"toolsListChanged":true,`, or ""), and returns
// the messages of its event stream as they arrive.
func listenTasks(t *testing.T, ctx context.Context, url, token, also string, ids ...string) <-chan map[string]any {
	t.Helper()
	list, _ := json.Marshal(ids)
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{"notifications":{%s"taskIds":%s},%s}}`, also, list, meta)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		resp.Body.Close()
		t.Fatalf("subscriptions/listen: %s %s", resp.Status, resp.Header.Get("Content-Type"))
	}
	msgs := make(chan map[string]any, 64)
	go func() {
		defer close(msgs)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			var m map[string]any
			if json.Unmarshal([]byte(data), &m) != nil {
				m = map[string]any{"unparsed": data}
			}
			msgs <- m
		}
	}()
	return msgs
}

// nextMessage returns the next message of a listen stream.
func nextMessage(t *testing.T, msgs <-chan map[string]any, what string) map[string]any {
	t.Helper()
	select {
	case m, ok := <-msgs:
		if !ok {
			t.Fatalf("the listen stream ended, waiting for %s", what)
		}
		return m
	case <-time.After(5 * time.Second): // less than the streams' resync: a change is pushed when it happens
		t.Fatalf("no %s on the listen stream", what)
	}
	return nil
}

// TestListenTaskNotifications checks notifications/tasks on a
// subscriptions/listen stream: the ack lists only the subscribed tasks the
// caller may see (not another subject's, not an unknown id), the task's
// state is pushed right after the ack, and its completion is pushed with
// the result and the listen's id in _meta; the other subject's task is
// never pushed. With two servers sharing a store (memory, Redis), the
// stream is opened on B while the task runs on A.
func TestListenTaskNotifications(t *testing.T) {
	t.Run("one server", func(t *testing.T) {
		testListenTaskNotifications(t, nil, "")
	})
	// The go-sdk follows the tools too: the stream is its as much as ours.
	t.Run("one server with toolsListChanged", func(t *testing.T) {
		testListenTaskNotifications(t, nil, `"toolsListChanged":true,`)
	})
	t.Run("across servers/memory", func(t *testing.T) {
		shared := store.NewMemory(store.MemoryOptions{})
		testListenTaskNotifications(t, func() store.Store { return shared }, "")
	})
	t.Run("across servers/redis", func(t *testing.T) {
		r := testenv.StartRedis(t)
		testListenTaskNotifications(t, func() store.Store {
			st, err := store.Open(context.Background(), r.URL()+"/0")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		}, "")
	})
}

// testListenTaskNotifications runs the tasks on A and listens on B; open
// nil: A and B are one server. also is listenTasks's.
func testListenTaskNotifications(t *testing.T, open func() store.Store, also string) {
	verify := func(_ context.Context, token string, _ *http.Request) (*authgate.Identity, error) {
		return &authgate.Identity{Subject: token, Expiry: time.Now().Add(time.Minute)}, nil
	}
	release := map[string]chan struct{}{"alice": make(chan struct{}), "mallory": make(chan struct{})}
	defer close(release["alice"])
	app := func() *connector.App {
		a := authApp()
		a.Tools = append(a.Tools, connector.Tool{Name: "report", Description: "Writes a report.", InputSchema: emptyInput,
			Result: connector.ResultText, Annotations: connector.Annotations{ReadOnly: true}, Task: connector.TaskRequired,
			Handler: func(ctx context.Context, _ json.RawMessage) (any, error) {
				id := connector.IdentityFrom(ctx)
				select {
				case <-release[id.Subject]:
				case <-ctx.Done():
				}
				return "the report of " + id.Subject, nil
			}})
		return a
	}
	auth := authgate.Auth{Issuer: "https://as.example.com", Verifier: verify}
	var a, b string
	if open == nil {
		base, _ := serveAuth(t, app(), auth)
		a, b = base+"/mcp", base+"/mcp"
	} else {
		baseA, _ := serveAuth(t, app(), auth, connector.WithStore(open()))
		baseB, _ := serveAuth(t, app(), auth, connector.WithStore(open()))
		a, b = baseA+"/mcp", baseB+"/mcp"
	}
	create := func(token string) string {
		t.Helper()
		status, created := taskPost(t, a, token, "tools/call", "report", `"name":"report","arguments":{}`)
		res, _ := created["result"].(map[string]any)
		id, _ := res["taskId"].(string)
		if status != http.StatusOK || id == "" {
			t.Fatalf("creating a task for %s: %d %v", token, status, created)
		}
		return id
	}
	mine, foreign := create("alice"), create("mallory")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	msgs := listenTasks(t, ctx, b, "alice", also, mine, foreign, "no-such-task")
	ack := nextMessage(t, msgs, "acknowledgement")
	params, _ := ack["params"].(map[string]any)
	notif, _ := params["notifications"].(map[string]any)
	if ack["method"] != "notifications/subscriptions/acknowledged" || fmt.Sprint(notif["taskIds"]) != fmt.Sprint([]any{mine}) {
		t.Fatalf("the first message: %v, want the ack with taskIds [%s] only", ack, mine)
	}
	if also != "" && notif["toolsListChanged"] != true {
		t.Errorf("the ack: %v, want toolsListChanged kept", ack)
	}

	// Each message after the ack: a notifications/tasks of alice's task.
	check := func(m map[string]any) map[string]any {
		t.Helper()
		p, _ := m["params"].(map[string]any)
		meta, _ := p["_meta"].(map[string]any)
		if m["method"] != "notifications/tasks" || p["taskId"] != mine || meta["io.modelcontextprotocol/subscriptionId"] != float64(7) {
			t.Fatalf("on the listen stream: %v, want notifications/tasks of %s with subscriptionId 7", m, mine)
		}
		return p
	}
	if p := check(nextMessage(t, msgs, "the task's state")); p["status"] != "working" {
		t.Errorf("the state pushed after the ack: %v, want working", p)
	}
	// Mallory's task ends: nothing is pushed of it to alice.
	close(release["mallory"])
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		_, got := taskPost(t, a, "mallory", "tasks/get", foreign, fmt.Sprintf(`"taskId":%q`, foreign))
		if r, _ := got["result"].(map[string]any); r["status"] == "completed" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("mallory's task did not complete: %v", got)
		}
	}
	release["alice"] <- struct{}{}
	for {
		p := check(nextMessage(t, msgs, "the task's completion"))
		if p["status"] == "working" {
			continue
		}
		r, _ := json.Marshal(p["result"])
		if p["status"] != "completed" || !strings.Contains(string(r), "the report of alice") {
			t.Fatalf("the task's change pushed: %v, want completed with its result", p)
		}
		break
	}
	select {
	case m := <-msgs:
		if m != nil {
			t.Errorf("after the completion: %v, want nothing more", m)
		}
	case <-time.After(300 * time.Millisecond):
	}
}
