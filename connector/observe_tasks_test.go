package connector_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/connector"
	"github.com/mcpgen/mcpgen/connector/store"
	"github.com/mcpgen/mcpgen/internal/testenv"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// taskApp has task tools that complete (starting a span of their own),
// end in a tool error, and run until cancelled.
func taskApp() *connector.App {
	return &connector.App{Name: "tasks", Version: "1.0.0", Tools: []connector.Tool{
		{Name: "report", Description: "Writes a report.", InputSchema: emptyInput, Result: connector.ResultText,
			Annotations: connector.Annotations{ReadOnly: true}, Task: connector.TaskRequired,
			Handler: noInput(func(ctx context.Context) (any, error) {
				_, span := trace.SpanFromContext(ctx).TracerProvider().Tracer("user").Start(ctx, "render")
				span.End()
				return "the report", nil
			})},
		{Name: "broken", Description: "Fails.", InputSchema: emptyInput, Result: connector.ResultText,
			Annotations: connector.Annotations{ReadOnly: true}, Task: connector.TaskRequired,
			Handler: noInput(func(ctx context.Context) (any, error) { return nil, errors.New("the printer is on fire") })},
		{Name: "hold", Description: "Runs until cancelled.", InputSchema: emptyInput, Result: connector.ResultText,
			Annotations: connector.Annotations{ReadOnly: true}, Task: connector.TaskRequired,
			Handler: noInput(func(ctx context.Context) (any, error) {
				<-ctx.Done()
				return nil, ctx.Err()
			})},
	}}
}

// createTask sends a 2026-07-28 tools/call of a task tool whose _meta
// carries the caller's trace context, and returns the task's id.
func createTask(t *testing.T, url, tool string) string {
	t.Helper()
	meta := `"_meta":{"traceparent":"00-` + callerTrace + `-` + callerSpan + `-01","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":%q,"arguments":{},%s}}`, tool, meta)
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", tool)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if i := bytes.LastIndex(b, []byte("data: ")); i >= 0 {
		b = b[i+len("data: "):]
	}
	var msg struct {
		Result struct {
			TaskID string `json:"taskId"`
		} `json:"result"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(b), &msg); err != nil || msg.Result.TaskID == "" {
		t.Fatalf("tools/call %s: %v: %s", tool, err, b)
	}
	return msg.Result.TaskID
}

// endedSpan waits for the span named name to end.
func endedSpan(t *testing.T, rec *tracetest.SpanRecorder, name string) sdktrace.ReadOnlySpan {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		for _, s := range rec.Ended() {
			if s.Name() == name {
				return s
			}
		}
	}
	t.Fatalf("no span %q; spans: %v", name, names(rec.Ended()))
	return nil
}

// TestTelemetryTasks checks a task's span, from its creation to its final
// status, in the caller's trace with the handler's spans under it, and
// the task metrics: the duration by tool and final status, and the tasks
// running.
func TestTelemetryTasks(t *testing.T) {
	t.Parallel()
	tel, rec, reader := observed(t)
	url := serveHTTP(t, taskApp(), connector.WithTelemetry(tel))

	id := createTask(t, url, "report")
	task := endedSpan(t, rec, "task report")
	render := endedSpan(t, rec, "render")
	if got := task.SpanContext().TraceID().String(); got != callerTrace {
		t.Errorf("task span trace %s, want the caller's %s", got, callerTrace)
	}
	if got := task.Parent().SpanID().String(); got != callerSpan {
		t.Errorf("task span parent %s, want the caller's span %s", got, callerSpan)
	}
	if render.Parent().SpanID() != task.SpanContext().SpanID() {
		t.Errorf("the handler's span is not under the task's")
	}
	want := map[string]string{"mcpgen.task.id": id, "gen_ai.tool.name": "report", "gen_ai.operation.name": "execute_tool", "mcpgen.task.status": "completed"}
	attrs := attrMap(task.Attributes())
	for k, v := range want {
		if attrs[k] != v {
			t.Errorf("task span: %s = %q, want %q (all: %v)", k, attrs[k], v, attrs)
		}
	}
	if task.Status().Code == codes.Error || attrs["error.type"] != "" {
		t.Errorf("a completed task's span: status %v, attributes %v", task.Status(), attrs)
	}

	createTask(t, url, "broken")
	broken := endedSpan(t, rec, "task broken")
	if a := attrMap(broken.Attributes()); a["mcpgen.task.status"] != "completed" || a["error.type"] != "tool_error" ||
		broken.Status().Code != codes.Error || !strings.Contains(broken.Status().Description, "on fire") {
		t.Errorf("a task ending in a tool error: status %v, attributes %v", broken.Status(), a)
	}

	id = createTask(t, url, "hold")
	if n := counter(t, reader, "mcpgen.server.tasks", map[string]string{"gen_ai.tool.name": "hold"}); n != 1 {
		t.Errorf("tasks running while hold runs: %d, want 1", n)
	}
	if status, res := taskPost(t, url, "", "tasks/cancel", id, fmt.Sprintf(`"taskId":%q`, id)); status != http.StatusOK || res["error"] != nil {
		t.Fatalf("tasks/cancel: %d %v", status, res)
	}
	cancelled := endedSpan(t, rec, "task hold")
	if a := attrMap(cancelled.Attributes()); a["mcpgen.task.status"] != "cancelled" || a["error.type"] != "cancelled" {
		t.Errorf("a cancelled task's span: attributes %v", a)
	}

	for _, c := range []struct {
		tool, status, errType string
	}{{"report", "completed", ""}, {"broken", "completed", "tool_error"}, {"hold", "cancelled", "cancelled"}} {
		want := map[string]string{"gen_ai.tool.name": c.tool, "mcpgen.task.status": c.status, "error.type": c.errType}
		if n := counter(t, reader, "mcpgen.server.task.duration", want); n != 1 {
			t.Errorf("task.duration%v = %d, want 1", want, n)
		}
	}
	if n := counter(t, reader, "mcpgen.server.tasks", nil); n != 0 {
		t.Errorf("tasks running after both ended: %d", n)
	}
}

// TestTelemetryStoreSpans checks that with a Redis store the round trips
// made during a call are client spans under its span (a rate-limited
// tool takes from its bucket in the store), that the connector still sees
// the store's health, and that the memory store makes none.
func TestTelemetryStoreSpans(t *testing.T) {
	t.Parallel()
	t.Run("memory", func(t *testing.T) {
		t.Parallel()
		tel, rec, _ := observed(t)
		cs := httpClient(t, serveHTTP(t, tracedApp(), connector.WithTelemetry(tel)), "2025-11-25", nil)
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "limited", Arguments: map[string]any{}}); err != nil {
			t.Fatal(err)
		}
		endedSpan(t, rec, "tools/call limited")
		for _, s := range rec.Ended() {
			if strings.HasPrefix(s.Name(), "store ") {
				t.Errorf("the memory store made span %q", s.Name())
			}
		}
	})
	t.Run("redis", func(t *testing.T) {
		t.Parallel()
		r := testenv.StartRedis(t)
		st, err := store.Open(context.Background(), r.URL()+"/0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		tel, rec, _ := observed(t)
		url := serveHTTP(t, tracedApp(), connector.WithTelemetry(tel), connector.WithStore(st))
		cs := httpClient(t, url, "2025-11-25", nil)
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "limited", Arguments: map[string]any{}}); err != nil {
			t.Fatal(err)
		}
		call := endedSpan(t, rec, "tools/call limited")
		take := endedSpan(t, rec, "store Limiter.Take")
		if take.Parent().SpanID() != call.SpanContext().SpanID() || take.SpanKind() != trace.SpanKindClient {
			t.Errorf("store Limiter.Take: kind %v, not a client span under the call's", take.SpanKind())
		}
		if a := attrMap(take.Attributes()); a["db.system.name"] != "redis" || a["mcpgen.store.operation"] != "Limiter.Take" {
			t.Errorf("store Limiter.Take attributes %v", a)
		}
	})
}
