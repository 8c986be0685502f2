package connector_test

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/connector"
	"github.com/mcpgen/mcpgen/connector/telemetry"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// otlpSpans is an OTLP/HTTP receiver keeping the spans it is sent.
type otlpSpans struct {
	mu    sync.Mutex
	spans []*tracepb.Span
	errs  []string
}

func (o *otlpSpans) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	var req coltracepb.ExportTraceServiceRequest
	o.mu.Lock()
	defer o.mu.Unlock()
	if err := proto.Unmarshal(b, &req); err != nil {
		o.errs = append(o.errs, err.Error())
		return
	}
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			o.spans = append(o.spans, ss.Spans...)
		}
	}
}

// named returns the spans called name.
func (o *otlpSpans) named(name string) []*tracepb.Span {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []*tracepb.Span
	for _, s := range o.spans {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// setupOTLP is telemetry as a connector binary sets it up (Setup), with
// spans exported to a receiver; flush sends what is batched.
func setupOTLP(t *testing.T) (tel *telemetry.Telemetry, recv *otlpSpans, flush func()) {
	t.Helper()
	recv = &otlpSpans{}
	srv := httptest.NewServer(recv)
	t.Cleanup(srv.Close)
	tel, err := telemetry.Setup(context.Background(), telemetry.Config{ServiceName: "traced", LookupEnv: func(k string) (string, bool) {
		switch k {
		case "OTEL_EXPORTER_OTLP_ENDPOINT":
			return srv.URL, true
		case "OTEL_METRICS_EXPORTER":
			return "none", true
		}
		return "", false
	}})
	if err != nil || tel == nil {
		t.Fatalf("Setup: %v %v", tel, err)
	}
	return tel, recv, func() {
		if err := tel.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
		if len(recv.errs) > 0 {
			t.Errorf("receiver: %v", recv.errs)
		}
	}
}

func hexID(b []byte) string { return hex.EncodeToString(b) }

func spanAttrs(s *tracepb.Span) map[string]string {
	m := map[string]string{}
	for _, kv := range s.Attributes {
		m[kv.Key] = kv.Value.GetStringValue()
	}
	return m
}

// TestTelemetrySetupSpans checks, with telemetry set up as the binary
// does (where the request spans are mcpgen's own, not the SDK's), that a
// call's span continues the caller's trace, that what nests under it
// does (the handler's span, a question to the client, a rate limit's
// event), that a task's spans keep their trace, and that the request log
// names the trace.
func TestTelemetrySetupSpans(t *testing.T) {
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "20") // read by both batchers from the process's environment
	tel, recv, flush := setupOTLP(t)
	var logs syncBuffer
	asked := make(chan string, 1)
	cs := httpClient(t, serveHTTP(t, tracedApp(), connector.WithTelemetry(tel), connector.WithLogger(quietLogger(&logs))), "2025-11-25", &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			tp, _ := req.Params.Meta["traceparent"].(string)
			asked <- tp
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
	})
	meta := mcp.Meta{"traceparent": "00-" + callerTrace + "-" + callerSpan + "-01"}
	for _, tool := range []string{"lookup", "ask", "limited", "limited"} {
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}, Meta: meta}); err != nil {
			t.Fatalf("call %s: %v", tool, err)
		}
	}
	clientSaw := <-asked
	flush()

	one := func(name string) *tracepb.Span {
		t.Helper()
		ss := recv.named(name)
		if len(ss) != 1 {
			var all []string
			recv.mu.Lock()
			for _, s := range recv.spans {
				all = append(all, s.Name)
			}
			recv.mu.Unlock()
			t.Fatalf("%d spans named %q, want 1; spans: %q", len(ss), name, all)
		}
		return ss[0]
	}
	lookup, query := one("tools/call lookup"), one("db.query")
	if hexID(lookup.TraceId) != callerTrace || hexID(lookup.ParentSpanId) != callerSpan || lookup.Flags&0x200 == 0 || lookup.Kind != tracepb.Span_SPAN_KIND_SERVER {
		t.Errorf("tools/call lookup: trace %x parent %x flags %#x kind %v; want the caller's, remote, server", lookup.TraceId, lookup.ParentSpanId, lookup.Flags, lookup.Kind)
	}
	if a := spanAttrs(lookup); a["mcp.session.id"] != cs.ID() || a["gen_ai.tool.name"] != "lookup" || a["jsonrpc.request.id"] == "" {
		t.Errorf("tools/call lookup attributes %v", a)
	}
	if hexID(query.ParentSpanId) != hexID(lookup.SpanId) || hexID(query.TraceId) != callerTrace {
		t.Errorf("db.query: parent %x in trace %x, want the call's span %x", query.ParentSpanId, query.TraceId, lookup.SpanId)
	}
	ask, elicit := one("tools/call ask"), one("elicitation/create")
	if hexID(elicit.ParentSpanId) != hexID(ask.SpanId) || elicit.Kind != tracepb.Span_SPAN_KIND_CLIENT {
		t.Errorf("elicitation/create: parent %x kind %v, want a client span under %x", elicit.ParentSpanId, elicit.Kind, ask.SpanId)
	}
	if want := "00-" + callerTrace + "-" + hexID(elicit.SpanId) + "-01"; clientSaw != want {
		t.Errorf("the client got traceparent %q, want %q", clientSaw, want)
	}
	limited := recv.named("tools/call limited")
	if len(limited) != 2 {
		t.Fatalf("%d tools/call limited spans, want 2", len(limited))
	}
	second := limited[1]
	if len(second.Events) != 1 || second.Events[0].Name != "rate_limited" || spanAttrs(second)["error.type"] != "tool_error" || second.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR {
		t.Errorf("the limited call: events %v, attributes %v, status %v", second.Events, spanAttrs(second), second.Status)
	}
	if !regexp.MustCompile(`msg=request method=tools/call tool=lookup .*trace_id=` + callerTrace).MatchString(logs.String()) {
		t.Errorf("no request line with trace_id=%s in:\n%s", callerTrace, logs.String())
	}

	// A task, made by a call: its span and its handler's keep the trace.
	tel, recv, flush = setupOTLP(t)
	url := serveHTTP(t, taskApp(), connector.WithTelemetry(tel))
	id := createTask(t, url, "report")
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		_, res := taskPost(t, url, "", "tasks/get", id, fmt.Sprintf(`"taskId":%q`, id))
		// The task's span ends just after its status is stored; the
		// batches go out every 20 ms.
		if r, _ := res["result"].(map[string]any); r["status"] == "completed" && len(recv.named("task report")) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s: %v", id, res)
		}
	}
	flush()
	task, render := one("task report"), one("render")
	if hexID(task.TraceId) != callerTrace || hexID(render.ParentSpanId) != hexID(task.SpanId) {
		t.Errorf("task report in trace %x, render under %x; want the caller's trace and the task's span %x", task.TraceId, render.ParentSpanId, task.SpanId)
	}
}
