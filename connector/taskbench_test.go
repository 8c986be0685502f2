package connector_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mcpgen/mcpgen/connector"
	"github.com/mcpgen/mcpgen/connector/store"
	"github.com/mcpgen/mcpgen/internal/testenv"
)

// BenchmarkTaskRoundTrip measures the cost of one task from creation to
// result over loopback HTTP (2026-07-28, the tasks extension declared):
// tools/call of a task tool whose handler returns at once, then tasks/get
// sent back to back until the task is completed, on the memory store and
// on a real redis-server (skipped without one). gets/op is how many
// tasks/get a task took; cpu-ns/op is the CPU of client and server
// together (not redis-server's), steadier than wall time on a shared
// machine. plain-call is the floor: the same tool, not a task, answered
// at once by one tools/call over the same path.
//
//	go test -run '^$' -bench TaskRoundTrip -benchtime 200x ./connector/
func BenchmarkTaskRoundTrip(b *testing.B) {
	b.Run("plain-call", func(b *testing.B) {
		benchTaskRoundTrip(b, store.NewMemory(store.MemoryOptions{}), connector.TaskNever)
	})
	b.Run("memory", func(b *testing.B) {
		benchTaskRoundTrip(b, store.NewMemory(store.MemoryOptions{}), connector.TaskRequired)
	})
	b.Run("redis", func(b *testing.B) {
		r := testenv.StartRedis(b)
		st, err := store.Open(context.Background(), r.URL()+"/0?max_tasks=100000000")
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
		benchTaskRoundTrip(b, st, connector.TaskRequired)
	})
}

func benchTaskRoundTrip(b *testing.B, st store.Store, task connector.TaskSupport) {
	app := &connector.App{Name: "taskbench", Tools: []connector.Tool{{Name: "quick", Description: "Answers at once.",
		InputSchema: emptyInput, Result: connector.ResultText, Annotations: connector.Annotations{ReadOnly: true},
		Task:    task,
		Handler: func(context.Context, json.RawMessage) (any, error) { return "done", nil }}}}
	s, err := connector.NewServer(app, connector.WithLogger(quietLogger(nil)), connector.WithStore(st))
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	b.Cleanup(ts.Close)
	hc := ts.Client()
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
	post := func(method, name, params string) map[string]any {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":{%s,%s}}`, method, params, meta)
		req, _ := http.NewRequest(http.MethodPost, ts.URL, bytes.NewBufferString(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", method)
		req.Header.Set("Mcp-Name", name)
		resp, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if i := bytes.LastIndex(raw, []byte("data: ")); i >= 0 {
			raw = raw[i+len("data: "):]
		}
		var msg struct{ Result map[string]any }
		if err := json.Unmarshal(bytes.TrimSpace(raw), &msg); err != nil || msg.Result == nil {
			b.Fatalf("%s: %d %s", method, resp.StatusCode, raw)
		}
		return msg.Result
	}
	gets := 0
	roundTrip := func() {
		res := post("tools/call", "quick", `"name":"quick","arguments":{}`)
		if task == connector.TaskNever {
			if res["content"] == nil {
				b.Fatalf("tools/call: %v, want the result", res)
			}
			return
		}
		id, _ := res["taskId"].(string)
		if id == "" {
			b.Fatal("no task created")
		}
		get := fmt.Sprintf(`"taskId":%q`, id)
		for {
			res := post("tasks/get", id, get)
			gets++
			switch res["status"] {
			case "completed":
				return
			case "working":
			default:
				b.Fatalf("task %s: %v, want working then completed", id, res)
			}
		}
	}
	roundTrip() // the first call resolves the schema and dials
	gets = 0
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for b.Loop() {
		roundTrip()
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(gets)/float64(b.N), "gets/op")
}
