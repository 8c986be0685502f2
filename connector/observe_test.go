package connector_test

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen"
	"github.com/mcpgen/mcpgen/connector"
	"github.com/mcpgen/mcpgen/connector/telemetry"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// tracedApp has a tool that starts a span of its own, one that asks the
// user, and one limited to a call an hour.
func tracedApp() *connector.App {
	return &connector.App{
		Name: "traced", Version: "1.0.0",
		Tools: []connector.Tool{
			{
				Name: "lookup", Description: "Queries a database.", InputSchema: emptyInput, Result: connector.ResultText,
				Annotations: connector.Annotations{ReadOnly: true}, NeverAsks: true,
				Handler: noInput(func(ctx context.Context) (any, error) {
					_, span := trace.SpanFromContext(ctx).TracerProvider().Tracer("user").Start(ctx, "db.query")
					span.End()
					return "found", nil
				}),
			},
			{
				Name: "ask", Description: "Asks the user.", InputSchema: emptyInput, Result: connector.ResultText,
				Handler: noInput(func(ctx context.Context) (any, error) {
					_, action, err := mcpgen.Elicit[Booking](ctx, "Book?")
					return string(action), err
				}),
			},
			{
				Name: "limited", Description: "Once an hour.", InputSchema: emptyInput, Result: connector.ResultText,
				RateLimit: connector.Rate{N: 1, Per: time.Hour}, NeverAsks: true,
				Handler: noInput(func(ctx context.Context) (any, error) { return "ok", nil }),
			},
		},
	}
}

// observed is a Telemetry recording into memory.
func observed(t *testing.T) (*telemetry.Telemetry, *tracetest.SpanRecorder, *sdkmetric.ManualReader) {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	tel, err := telemetry.New(telemetry.Providers{Tracer: tp, Meter: mp})
	if err != nil {
		t.Fatal(err)
	}
	return tel, rec, reader
}

const (
	callerTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	callerSpan  = "00f067aa0ba902b7"
)

// TestTelemetrySpans checks the server span of a tool call on each path a
// call can take: the fast path in a session and statelessly, and the
// go-sdk's path over an in-memory transport (stdio's stand-in).
func TestTelemetrySpans(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, version string
		http          bool
		transport     string
	}{
		{"session", "2025-11-25", true, "tcp"},
		{"stateless", "2026-07-28", true, "tcp"},
		{"pipe", "2025-11-25", false, "pipe"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tel, rec, reader := observed(t)
			var cs *mcp.ClientSession
			if c.http {
				cs = httpClient(t, serveHTTP(t, tracedApp(), connector.WithTelemetry(tel)), c.version, nil)
			} else {
				_, cs = connectVersion(t, c.version, tracedApp(), nil, connector.WithTelemetry(tel))
			}
			meta := mcp.Meta{"traceparent": "00-" + callerTrace + "-" + callerSpan + "-01", "baggage": "tenant=acme"}
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "lookup", Arguments: map[string]any{}, Meta: meta})
			if err != nil || res.IsError {
				t.Fatalf("call: %v %+v", err, res)
			}
			var server, child sdktrace.ReadOnlySpan
			for _, s := range rec.Ended() {
				switch s.Name() {
				case "tools/call lookup":
					server = s
				case "db.query":
					child = s
				}
			}
			if server == nil || child == nil {
				t.Fatalf("spans %v: want tools/call lookup and db.query", names(rec.Ended()))
			}
			if got := server.SpanContext().TraceID().String(); got != callerTrace {
				t.Errorf("server span trace id %s, want the caller's %s", got, callerTrace)
			}
			if got := server.Parent().SpanID().String(); got != callerSpan || !server.Parent().IsRemote() {
				t.Errorf("server span parent %s (remote %v), want the caller's span %s", got, server.Parent().IsRemote(), callerSpan)
			}
			if server.SpanKind() != trace.SpanKindServer {
				t.Errorf("server span kind %v", server.SpanKind())
			}
			if child.Parent().SpanID() != server.SpanContext().SpanID() {
				t.Errorf("the handler's span is not a child of the server span")
			}
			attrs := attrMap(server.Attributes())
			want := map[string]string{
				"mcp.method.name": "tools/call", "gen_ai.tool.name": "lookup", "gen_ai.operation.name": "execute_tool",
				"mcp.protocol.version": c.version, "network.transport": c.transport,
			}
			if c.version < "2026-07-28" {
				want["mcp.session.id"] = cs.ID()
			}
			if c.http {
				want["jsonrpc.request.id"] = attrs["jsonrpc.request.id"] // any value, but set
				if attrs["jsonrpc.request.id"] == "" {
					t.Errorf("no jsonrpc.request.id on the fast path")
				}
			}
			for k, v := range want {
				if c.transport == "pipe" && k == "mcp.session.id" {
					continue // an in-memory session has no id
				}
				if attrs[k] != v {
					t.Errorf("attribute %s = %q, want %q (all: %v)", k, attrs[k], v, attrs)
				}
			}
			if _, ok := attrs["error.type"]; ok {
				t.Errorf("error.type on a call that succeeded: %v", attrs)
			}
			n := counter(t, reader, "mcp.server.operation.duration", map[string]string{"gen_ai.tool.name": "lookup", "mcpgen.outcome": "ok"})
			if n != 1 {
				t.Errorf("requests{lookup, ok} = %d, want 1", n)
			}
		})
	}
}

// TestTelemetryLogsTraceID checks that the request log line names the
// trace of the request's span.
func TestTelemetryLogsTraceID(t *testing.T) {
	t.Parallel()
	tel, _, _ := observed(t)
	var logs syncBuffer
	cs := httpClient(t, serveHTTP(t, tracedApp(), connector.WithTelemetry(tel), connector.WithLogger(quietLogger(&logs))), "2025-11-25", nil)
	meta := mcp.Meta{"traceparent": "00-" + callerTrace + "-" + callerSpan + "-01"}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "lookup", Arguments: map[string]any{}, Meta: meta}); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`msg=request method=tools/call tool=lookup .*trace_id=` + callerTrace).MatchString(logs.String()) {
		t.Errorf("no request line with trace_id=%s in:\n%s", callerTrace, logs.String())
	}
}

// TestTelemetryOutcomes checks error.type, the rate-limit counter, and
// that a name no server has stays out of the metrics.
func TestTelemetryOutcomes(t *testing.T) {
	t.Parallel()
	tel, rec, reader := observed(t)
	cs := httpClient(t, serveHTTP(t, tracedApp(), connector.WithTelemetry(tel)), "2025-11-25", nil)
	call(t, cs, "limited", map[string]any{})
	if res := call(t, cs, "limited", map[string]any{}); !res.IsError {
		t.Fatalf("second call not limited: %+v", res)
	}
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "no_such_tool", Arguments: map[string]any{}})
	if err == nil {
		t.Fatal("unknown tool: no error")
	}
	if n := counter(t, reader, "mcpgen.server.rate_limited", map[string]string{"gen_ai.tool.name": "limited"}); n != 1 {
		t.Errorf("mcpgen.server.rate_limited{limited} = %d, want 1", n)
	}
	if n := counter(t, reader, "mcp.server.operation.duration", map[string]string{"gen_ai.tool.name": "limited", "mcpgen.outcome": "tool_error"}); n != 1 {
		t.Errorf("requests{limited, tool_error} = %d, want 1", n)
	}
	if n := counter(t, reader, "mcp.server.operation.duration", map[string]string{"gen_ai.tool.name": "_OTHER", "mcpgen.outcome": "error"}); n != 1 {
		t.Errorf("requests{_OTHER, error} = %d, want 1", n)
	}
	if n := counter(t, reader, "mcp.server.operation.duration", map[string]string{"gen_ai.tool.name": "no_such_tool"}); n != 0 {
		t.Errorf("an unknown tool's name is a metric label")
	}
	var limited, unknown sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		a := attrMap(s.Attributes())
		if a["gen_ai.tool.name"] == "limited" && a["error.type"] != "" {
			limited = s
		}
		if a["gen_ai.tool.name"] == "no_such_tool" {
			unknown = s
		}
	}
	if limited == nil || attrMap(limited.Attributes())["error.type"] != "tool_error" || limited.Status().Description == "" {
		t.Errorf("no tools/call span with error.type tool_error and a status description: %v", names(rec.Ended()))
	}
	if unknown == nil || unknown.Name() != "tools/call" || attrMap(unknown.Attributes())["rpc.response.status_code"] == "" {
		t.Errorf("unknown tool: want a span named tools/call with rpc.response.status_code; spans %v", names(rec.Ended()))
	}
}

// TestTelemetryAsk checks that a question to the client gets a client
// span under the call's, whose context the client receives in _meta.
func TestTelemetryAsk(t *testing.T) {
	t.Parallel()
	tel, rec, _ := observed(t)
	got := make(chan string, 1)
	cs := httpClient(t, serveHTTP(t, tracedApp(), connector.WithTelemetry(tel)), "2025-11-25", &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			tp, _ := req.Params.Meta["traceparent"].(string)
			got <- tp
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
	})
	meta := mcp.Meta{"traceparent": "00-" + callerTrace + "-" + callerSpan + "-01"}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}, Meta: meta}); err != nil {
		t.Fatal(err)
	}
	tp := <-got
	var server, ask sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		switch s.Name() {
		case "tools/call ask":
			server = s
		case "elicitation/create":
			ask = s
		}
	}
	if server == nil || ask == nil {
		t.Fatalf("spans %v: want tools/call ask and elicitation/create", names(rec.Ended()))
	}
	if ask.SpanKind() != trace.SpanKindClient || ask.Parent().SpanID() != server.SpanContext().SpanID() {
		t.Errorf("elicitation/create: kind %v, parent %s; want a client span under %s", ask.SpanKind(), ask.Parent().SpanID(), server.SpanContext().SpanID())
	}
	if want := "00-" + callerTrace + "-" + ask.SpanContext().SpanID().String() + "-01"; tp != want {
		t.Errorf("the client got traceparent %q, want %q", tp, want)
	}
}

// TestTelemetryInputRequired checks that a 2026-07-28 call ending with
// questions for the client marks its span, and that the call that brings
// the answers is a span of the same trace.
func TestTelemetryInputRequired(t *testing.T) {
	t.Parallel()
	tel, rec, _ := observed(t)
	cs := httpClient(t, serveHTTP(t, tracedApp(), connector.WithTelemetry(tel)), "2026-07-28", &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
	})
	meta := mcp.Meta{"traceparent": "00-" + callerTrace + "-" + callerSpan + "-01"}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}, Meta: meta})
	if err != nil || textOf(t, res) != "decline" {
		t.Fatalf("ask: %v %+v", err, res)
	}
	var asked bool
	for _, s := range rec.Ended() {
		if s.Name() != "tools/call ask" {
			continue
		}
		for _, ev := range s.Events() {
			if ev.Name == "input_required" && len(ev.Attributes) == 1 && slices.Equal(ev.Attributes[0].Value.AsStringSlice(), []string{"elicitation/create"}) {
				asked = true
			}
		}
	}
	if !asked {
		t.Errorf("no tools/call ask span with an input_required event naming elicitation/create: %v", names(rec.Ended()))
	}
}

func names(spans []sdktrace.ReadOnlySpan) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name())
	}
	return out
}

func attrMap(kvs []attribute.KeyValue) map[string]string {
	m := map[string]string{}
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value.Emit()
	}
	return m
}

// counter sums the points of the counter name whose attributes include
// want; for a histogram, their counts.
func counter(t *testing.T, reader *sdkmetric.ManualReader, name string, want map[string]string) int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != name {
				continue
			}
			type point struct {
				attrs attribute.Set
				n     int64
			}
			var points []point
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					points = append(points, point{p.Attributes, p.Value})
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					points = append(points, point{p.Attributes, int64(p.Count)})
				}
			default:
				t.Fatalf("%s is %T", name, m.Data)
			}
		points:
			for _, p := range points {
				for k, v := range want {
					if got, _ := p.attrs.Value(attribute.Key(k)); !strings.EqualFold(got.Emit(), v) {
						continue points
					}
				}
				n += p.n
			}
		}
	}
	return n
}

// TestRunTelemetryFlags checks the binary's telemetry settings: a value
// it cannot export is a usage error naming the variable, and
// --metrics-addr serves Prometheus text on its own listener.
func TestRunTelemetryFlags(t *testing.T) {
	t.Parallel()
	env := func(m map[string]string) connector.Option {
		return connector.WithEnv(func(k string) (string, bool) { v, ok := m[k]; return v, ok })
	}
	var stderr strings.Builder
	code := connector.Run(context.Background(), tracedApp(), []string{"--addr", "127.0.0.1:0"}, nil, io.Discard, &stderr,
		env(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}))
	if code != 2 || !strings.Contains(stderr.String(), "OTEL_EXPORTER_OTLP_PROTOCOL") {
		t.Errorf("grpc: exit %d, %q; want 2 naming the variable", code, stderr.String())
	}

	_, out, _, _ := startRun(t, tracedApp(), []string{"--addr", "127.0.0.1:0"}, map[string]string{"MCPGEN_METRICS_ADDR": "127.0.0.1:0"})
	m := regexp.MustCompile(`serving metrics at (http://\S+/metrics)`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no metrics line in %q", out.String())
	}
	url := m[1]
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{"mcpgen_server_sessions", "mcpgen_server_streams", `service_name="traced"`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics has no %s:\n%s", want, body)
		}
	}
}
