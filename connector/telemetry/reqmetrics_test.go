package telemetry

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"
)

// TestRequestMetricsMatchSDK checks that the request histograms recorded
// by mcpgen give a reader what the SDK's instruments would: the same
// names, units, descriptions, buckets (a value on a bound counts in that
// bound's bucket), counts, sums, minimums and maximums, by attribute set.
func TestRequestMetricsMatchSDK(t *testing.T) {
	ctx := context.Background()
	sets := []attribute.Set{
		attribute.NewSet(keyMethodName.String("tools/call"), keyOutcome.String("ok")),
		attribute.NewSet(keyMethodName.String("tools/list"), keyOutcome.String("error"), keyErrorType.String("-32602")),
	}
	durations := []float64{0, 0.0005, 0.0007, 0.02, 1, 60, 400}
	sizes := []int64{0, 64, 65, 5000, 1 << 20, 10 << 20}

	sdkReader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkReader))
	defer mp.Shutdown(ctx)
	sdk, err := newTelemetry(Providers{Meter: mp}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rm := newRequestMetrics()
	for i, set := range sets {
		s := rm.newSeries(set)
		for j, d := range durations[i:] {
			size := sizes[j%len(sizes)]
			sized := j%3 != 2
			s.record(d, size, sized)
			sdk.duration.Record(ctx, d, metric.WithAttributeSet(set))
			if sized {
				sdk.resultSize.Record(ctx, size, metric.WithAttributeSet(set))
			}
		}
	}
	var want metricdata.ResourceMetrics
	if err := sdkReader.Collect(ctx, &want); err != nil {
		t.Fatal(err)
	}
	got, err := rm.Produce(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(want.ScopeMetrics) != 1 || len(got) != 1 {
		t.Fatalf("scopes: SDK %d, mcpgen's %d; want 1 each", len(want.ScopeMetrics), len(got))
	}
	// The SDK's meter has the other instruments too.
	want.ScopeMetrics[0].Metrics = slices.DeleteFunc(want.ScopeMetrics[0].Metrics, func(m metricdata.Metrics) bool {
		return m.Name != durationName && m.Name != sizeName
	})
	metricdatatest.AssertEqual(t, want.ScopeMetrics[0], got[0], metricdatatest.IgnoreTimestamp())
}

// TestRequestMetricsEmpty checks that nothing recorded produces nothing,
// as the SDK leaves out an instrument without a measurement, and that a
// series with durations only has no result size.
func TestRequestMetricsEmpty(t *testing.T) {
	rm := newRequestMetrics()
	if got, err := rm.Produce(context.Background()); got != nil || err != nil {
		t.Fatalf("nothing recorded: got %v, %v", got, err)
	}
	rm.newSeries(attribute.NewSet(keyMethodName.String("ping"))).record(0.001, 0, false)
	got, _ := rm.Produce(context.Background())
	if len(got) != 1 || len(got[0].Metrics) != 1 || got[0].Metrics[0].Name != durationName {
		t.Fatalf("a duration alone: got %+v", got)
	}
}

// TestSetupRecordsRequestMetrics checks the request histograms through
// Setup's Prometheus handler: recorded by mcpgen, one series per
// attribute set, named as before.
func TestSetupRecordsRequestMetrics(t *testing.T) {
	tel, err := Setup(context.Background(), Config{ServiceName: "t", Prometheus: true, LookupEnv: func(string) (string, bool) { return "", false }})
	if err != nil {
		t.Fatal(err)
	}
	defer tel.Shutdown(context.Background())
	if tel.reqMetrics == nil || tel.duration != nil {
		t.Fatal("Setup without exemplars: the request histograms should be mcpgen's")
	}
	tel.SetNames([]string{"lookup"}, nil)
	ok := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "found"}}}
	h := tel.Middleware(func(_ context.Context, _ string, req mcp.Request) (mcp.Result, error) {
		if req.GetParams().(*mcp.CallToolParamsRaw).Name == "bad" {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "no"}
		}
		return ok, nil
	})
	call := func(name string) {
		h(context.Background(), "tools/call", &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: name}, Extra: &mcp.RequestExtra{Header: http.Header{}}})
	}
	for range 3 {
		call("lookup")
	}
	call("bad")
	rec := httptest.NewRecorder()
	tel.MetricsHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body := rec.Body.String()
	for _, want := range []string{
		`mcp_server_operation_duration_seconds_count{gen_ai_operation_name="execute_tool",gen_ai_tool_name="lookup",mcp_method_name="tools/call",mcpgen_outcome="ok",network_transport="tcp",otel_scope_name="github.com/mcpgen/mcpgen/connector"`,
		`mcp_server_operation_duration_seconds_count{error_type="-32602",gen_ai_operation_name="execute_tool",gen_ai_tool_name="_OTHER",mcp_method_name="tools/call",mcpgen_outcome="error"`,
		`mcpgen_server_result_size_bytes_sum{gen_ai_operation_name="execute_tool",gen_ai_tool_name="lookup",mcp_method_name="tools/call",mcpgen_outcome="ok",network_transport="tcp",otel_scope_name="github.com/mcpgen/mcpgen/connector"`,
		`# HELP mcp_server_operation_duration_seconds ` + durationDescription,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if n := strings.Count(body, "# TYPE mcp_server_operation_duration_seconds histogram"); n != 1 {
		t.Errorf("the duration histogram is described %d times; want once", n)
	}
	if t.Failed() {
		t.Log(body)
	}
}

// TestSetupExemplarsUseSDK checks that with exemplars asked for the SDK's
// instruments record the request histograms: only they keep exemplars.
func TestSetupExemplarsUseSDK(t *testing.T) {
	t.Setenv("OTEL_METRICS_EXEMPLAR_FILTER", "trace_based")
	tel, err := Setup(context.Background(), Config{ServiceName: "t", Prometheus: true, LookupEnv: func(string) (string, bool) { return "", false }})
	if err != nil {
		t.Fatal(err)
	}
	defer tel.Shutdown(context.Background())
	if tel.reqMetrics != nil || tel.duration == nil {
		t.Fatal("with OTEL_METRICS_EXEMPLAR_FILTER the SDK's instruments should record")
	}
}
