package telemetry_test

import (
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mcpgen/mcpgen/connector/telemetry"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

func envOf(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// TestSetupOff checks that nothing configured means no Telemetry.
func TestSetupOff(t *testing.T) {
	for _, env := range []map[string]string{
		{},
		{"OTEL_SERVICE_NAME": "x"},
		{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_SDK_DISABLED": "true"},
		{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_TRACES_EXPORTER": "none", "OTEL_METRICS_EXPORTER": "none"},
	} {
		tel, err := telemetry.Setup(context.Background(), telemetry.Config{LookupEnv: envOf(env)})
		if tel != nil || err != nil {
			t.Errorf("%v: got %v, %v; want nil, nil", env, tel, err)
		}
	}
}

// TestSetupRefuses checks that what a connector cannot export stops it
// with a message naming the variable.
func TestSetupRefuses(t *testing.T) {
	ep := "http://127.0.0.1:4318"
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"OTEL_TRACES_EXPORTER": "console"}, `OTEL_TRACES_EXPORTER="console"`},
		{map[string]string{"OTEL_METRICS_EXPORTER": "prometheus"}, "--metrics-addr"},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": ep, "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, "http/protobuf"},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": ep, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json"}, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4318"}, "http:// or https://"},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": ep, "OTEL_EXPORTER_OTLP_HEADERS": "api-key"}, "OTEL_EXPORTER_OTLP_HEADERS"},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": ep, "OTEL_EXPORTER_OTLP_METRICS_TIMEOUT": "5s"}, "OTEL_EXPORTER_OTLP_METRICS_TIMEOUT"},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": ep, "OTEL_EXPORTER_OTLP_COMPRESSION": "zstd"}, "gzip or none"},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": ep, "OTEL_EXPORTER_OTLP_CERTIFICATE": "/nonexistent/ca.pem"}, "OTEL_EXPORTER_OTLP_CERTIFICATE"},
	} {
		tel, err := telemetry.Setup(context.Background(), telemetry.Config{LookupEnv: envOf(c.env)})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, %v; want an error naming %s", c.env, tel, err, c.want)
		}
	}
}

// TestOTLPExport checks the runtime's OTLP/HTTP exporters against a
// receiver decoding the collector's request types: the per-signal
// endpoint, headers, gzip, a retried 503, and what a request's span and
// metrics hold.
func TestOTLPExport(t *testing.T) {
	var (
		mu       sync.Mutex
		traces   []*coltracepb.ExportTraceServiceRequest
		metrics  []*colmetricpb.ExportMetricsServiceRequest
		problems []string
		failed   bool
	)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if r.Header.Get("Api-Key") != "s x" || r.Header.Get("Content-Type") != "application/x-protobuf" || r.Header.Get("Content-Encoding") != "gzip" {
			problems = append(problems, r.URL.Path+": headers "+strings.Join([]string{r.Header.Get("Api-Key"), r.Header.Get("Content-Type"), r.Header.Get("Content-Encoding")}, "|"))
		}
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			problems = append(problems, err.Error())
			return
		}
		body, _ := io.ReadAll(zr)
		switch r.URL.Path {
		case "/custom/traces":
			if !failed {
				failed = true
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			req := &coltracepb.ExportTraceServiceRequest{}
			if err := proto.Unmarshal(body, req); err != nil {
				problems = append(problems, err.Error())
			}
			traces = append(traces, req)
		case "/v1/metrics":
			req := &colmetricpb.ExportMetricsServiceRequest{}
			if err := proto.Unmarshal(body, req); err != nil {
				problems = append(problems, err.Error())
			}
			metrics = append(metrics, req)
		default:
			problems = append(problems, "unexpected path "+r.URL.Path)
		}
	}))
	defer recv.Close()
	tel, err := telemetry.Setup(context.Background(), telemetry.Config{
		ServiceName: "acme", ServiceVersion: "1.2.3",
		LookupEnv: envOf(map[string]string{
			"OTEL_EXPORTER_OTLP_ENDPOINT":        recv.URL,
			"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": recv.URL + "/custom/traces",
			"OTEL_EXPORTER_OTLP_HEADERS":         "api-key=s%20x",
			"OTEL_EXPORTER_OTLP_COMPRESSION":     "gzip",
		}),
	})
	if err != nil || tel == nil {
		t.Fatalf("Setup: %v, %v", tel, err)
	}
	tel.SetNames([]string{"lookup"}, nil)
	h := tel.Middleware(func(context.Context, string, mcp.Request) (mcp.Result, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "no such key"}}}, nil
	})
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "lookup", Meta: mcp.Meta{"traceparent": "00-" + callerTrace + "-" + callerSpan + "-01"}}}
	h(context.Background(), "tools/call", req)
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(problems) > 0 {
		t.Errorf("receiver: %v", problems)
	}
	if len(traces) != 1 || len(metrics) == 0 {
		t.Fatalf("received %d trace and %d metric requests, want 1 and at least 1", len(traces), len(metrics))
	}
	rs := traces[0].ResourceSpans
	if len(rs) != 1 || len(rs[0].ScopeSpans) != 1 || len(rs[0].ScopeSpans[0].Spans) != 1 {
		t.Fatalf("trace request %v", traces[0])
	}
	res := map[string]string{}
	for _, kv := range rs[0].Resource.Attributes {
		res[kv.Key] = kv.Value.GetStringValue()
	}
	if res["service.name"] != "acme" || res["service.version"] != "1.2.3" {
		t.Errorf("resource %v", res)
	}
	if got := rs[0].ScopeSpans[0].Scope.Name; got != telemetry.ScopeName {
		t.Errorf("scope %q", got)
	}
	s := rs[0].ScopeSpans[0].Spans[0]
	attrs := map[string]string{}
	for _, kv := range s.Attributes {
		attrs[kv.Key] = kv.Value.GetStringValue()
	}
	if s.Name != "tools/call lookup" || s.Kind != 2 || s.Status.GetCode() != 2 || s.Status.GetMessage() != "no such key" ||
		attrs["error.type"] != "tool_error" || attrs["network.transport"] != "pipe" || s.EndTimeUnixNano < s.StartTimeUnixNano {
		t.Errorf("span %v", s)
	}
	var count uint64
	for _, rm := range metrics[len(metrics)-1].ResourceMetrics {
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				if m.Name == "mcp.server.operation.duration" {
					for _, p := range m.GetHistogram().GetDataPoints() {
						count += p.Count
						if len(p.BucketCounts) != len(p.ExplicitBounds)+1 {
							t.Errorf("histogram point with %d buckets for %d bounds", len(p.BucketCounts), len(p.ExplicitBounds))
						}
					}
				}
			}
		}
	}
	if count != 1 {
		t.Errorf("mcp.server.operation.duration count %d, want 1", count)
	}
}

const (
	callerTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	callerSpan  = "00f067aa0ba902b7"
)
