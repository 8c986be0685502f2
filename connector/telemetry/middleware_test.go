package telemetry_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/mcpgen/mcpgen/connector/telemetry"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// TestNilParams checks that requests without params (ping, a tools/call
// without any, roots/list) are served and get their spans.
func TestNilParams(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tel, err := telemetry.New(telemetry.Providers{
		Tracer: sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)),
		Meter:  sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader())),
	})
	if err != nil {
		t.Fatal(err)
	}
	next := func(context.Context, string, mcp.Request) (mcp.Result, error) { return nil, nil }
	if _, err := tel.Middleware(next)(context.Background(), "ping", &mcp.ServerRequest[*mcp.PingParams]{}); err != nil {
		t.Fatal(err)
	}
	if _, err := tel.Middleware(next)(context.Background(), "tools/call", &mcp.ServerRequest[*mcp.CallToolParamsRaw]{}); err != nil {
		t.Fatal(err)
	}
	if _, err := tel.Sending(next)(context.Background(), "roots/list", &mcp.ServerRequest[*mcp.ListRootsParams]{}); err != nil {
		t.Fatal(err)
	}
	if got := len(rec.Ended()); got != 3 {
		t.Errorf("%d spans, want 3", got)
	}
}

// TestHeaderContext checks that a request without context in _meta joins
// the trace of its HTTP request's headers, whichever fields the
// propagator reads, or that of a span an HTTP middleware started, and
// that a request without any starts a trace.
func TestHeaderContext(t *testing.T) {
	const tp = "00-" + callerTrace + "-" + callerSpan + "-01"
	cases := []struct {
		name       string
		propagator propagation.TextMapPropagator
		header     http.Header
		wantTrace  string
		ambient    bool // an HTTP middleware's span in ctx
	}{
		{"w3c", nil, http.Header{"Traceparent": {tp}}, callerTrace, false},
		{"own fields", fieldPropagator{}, http.Header{"X-Caller-Trace": {tp}}, callerTrace, false},
		{"own fields, w3c header", fieldPropagator{}, http.Header{"Traceparent": {tp}}, "", false},
		{"none", nil, http.Header{"Mcp-Protocol-Version": {"2026-07-28"}}, "", false},
		{"middleware's span", nil, http.Header{}, callerTrace, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := tracetest.NewSpanRecorder()
			tel, err := telemetry.New(telemetry.Providers{
				Tracer: sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)), Propagator: c.propagator,
			})
			if err != nil {
				t.Fatal(err)
			}
			next := func(context.Context, string, mcp.Request) (mcp.Result, error) { return &mcp.CallToolResult{}, nil }
			req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "lookup"}, Extra: &mcp.RequestExtra{Header: c.header}}
			ctx := context.Background()
			if c.ambient {
				ctx = propagation.TraceContext{}.Extract(ctx, propagation.MapCarrier{"traceparent": tp})
			}
			if _, err := tel.Middleware(next)(ctx, "tools/call", req); err != nil {
				t.Fatal(err)
			}
			spans := rec.Ended()
			if len(spans) != 1 {
				t.Fatalf("%d spans, want 1", len(spans))
			}
			got := spans[0].SpanContext().TraceID().String()
			if c.wantTrace != "" && (got != c.wantTrace || spans[0].Parent().SpanID().String() != callerSpan) {
				t.Errorf("trace %s parent %s, want the caller's %s %s", got, spans[0].Parent().SpanID(), c.wantTrace, callerSpan)
			}
			if c.wantTrace == "" && (got == callerTrace || spans[0].Parent().IsValid()) {
				t.Errorf("trace %s parent %s, want a new trace", got, spans[0].Parent().SpanID())
			}
		})
	}
}

// fieldPropagator is W3C Trace Context under a header name of its own.
type fieldPropagator struct{}

func (fieldPropagator) Inject(context.Context, propagation.TextMapCarrier) {}
func (fieldPropagator) Extract(ctx context.Context, c propagation.TextMapCarrier) context.Context {
	return propagation.TraceContext{}.Extract(ctx, propagation.MapCarrier{"traceparent": c.Get("x-caller-trace")})
}
func (fieldPropagator) Fields() []string { return []string{"x-caller-trace"} }

// TestSpanNames checks span names and attributes of known and unknown
// tools, twice each (the second from the cache of span shapes), and
// that a name a client makes up never becomes a span name.
func TestSpanNames(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tel, err := telemetry.New(telemetry.Providers{Tracer: sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))})
	if err != nil {
		t.Fatal(err)
	}
	tel.SetNames([]string{"lookup"}, []string{"greet"})
	h := tel.Middleware(func(context.Context, string, mcp.Request) (mcp.Result, error) { return nil, nil })
	calls := []struct {
		method string
		req    mcp.Request
		name   string
		attrs  map[string]string
	}{
		{"tools/call", &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "lookup"}}, "tools/call lookup",
			map[string]string{"gen_ai.tool.name": "lookup", "network.transport": "pipe"}},
		{"tools/call", &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "made-up"}, Extra: &mcp.RequestExtra{Header: http.Header{"Mcp-Protocol-Version": {"2026-07-28"}}}},
			"tools/call", map[string]string{"gen_ai.tool.name": "made-up", "mcp.protocol.version": "2026-07-28", "network.protocol.name": "http"}},
		{"prompts/get", &mcp.GetPromptRequest{Params: &mcp.GetPromptParams{Name: "greet"}}, "prompts/get greet",
			map[string]string{"gen_ai.prompt.name": "greet"}},
		{"resources/read", &mcp.ReadResourceRequest{Params: &mcp.ReadResourceParams{URI: "orders://1"}}, "resources/read",
			map[string]string{"mcp.resource.uri": "orders://1", "mcp.method.name": "resources/read"}},
	}
	for range 2 {
		for _, c := range calls {
			h(context.Background(), c.method, c.req)
		}
	}
	spans := rec.Ended()
	if len(spans) != 2*len(calls) {
		t.Fatalf("%d spans, want %d", len(spans), 2*len(calls))
	}
	for i, s := range spans {
		c := calls[i%len(calls)]
		if s.Name() != c.name {
			t.Errorf("span %d: name %q, want %q", i, s.Name(), c.name)
		}
		got := map[string]string{}
		for _, kv := range s.Attributes() {
			got[string(kv.Key)] = kv.Value.Emit()
		}
		for k, v := range c.attrs {
			if got[k] != v {
				t.Errorf("span %d (%s): %s = %q, want %q (all: %v)", i, c.name, k, got[k], v, got)
			}
		}
	}
}
