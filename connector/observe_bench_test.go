package connector_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/connector"
	"github.com/mcpgen/mcpgen/connector/telemetry"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// BenchmarkTelemetry measures what telemetry costs the server per
// tools/call: the same 2026-07-28 call served by the HTTP handler (the
// fast path) with no client or network in the loop, with telemetry off
// (no WithTelemetry); with metrics only; with every call a recorded span
// (the caller's traceparent in _meta is sampled) batched to an exporter
// that drops it, and metrics; with one call in ten traced (no
// traceparent, a ratio sampler); and as the connector binary sets it up
// (telemetry.Setup) with every call traced and exported over OTLP/HTTP to
// a receiver in the same process that reads and drops the requests, whose
// CPU counts too; otlp-root is otlp for calls without the caller's trace
// context (each span starts a trace), as bench/load's.
//
//	go test -run '^$' -bench Telemetry -benchmem ./connector/
func BenchmarkTelemetry(b *testing.B) {
	app := func() *connector.App {
		a := testApp(newProbe())
		a.Tools = a.Tools[:1]
		a.Tools[0].UI = ""
		a.Views = nil
		return a
	}
	on := func(b *testing.B, body string, sampler sdktrace.Sampler, traces bool) {
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
		defer mp.Shutdown(context.Background())
		p := telemetry.Providers{Meter: mp}
		if traces {
			tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()), sdktrace.WithSampler(sampler))
			defer tp.Shutdown(context.Background())
			p.Tracer = tp
		}
		tel, err := telemetry.New(p)
		if err != nil {
			b.Fatal(err)
		}
		benchStatelessCall(b, app(), body, connector.WithTelemetry(tel))
	}
	b.Run("off", func(b *testing.B) { benchStatelessCall(b, app(), statelessCall) })
	b.Run("metrics", func(b *testing.B) { on(b, statelessCall, nil, false) })
	b.Run("traced", func(b *testing.B) { on(b, statelessCall, sdktrace.ParentBased(sdktrace.AlwaysSample()), true) })
	otlp := func(b *testing.B, body string) {
		sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.Copy(io.Discard, r.Body) }))
		defer sink.Close()
		tel, err := telemetry.Setup(context.Background(), telemetry.Config{ServiceName: "bench", LookupEnv: func(k string) (string, bool) {
			if k == "OTEL_EXPORTER_OTLP_ENDPOINT" {
				return sink.URL, true
			}
			return "", false
		}})
		if err != nil {
			b.Fatal(err)
		}
		defer tel.Shutdown(context.Background())
		benchStatelessCall(b, app(), body, connector.WithTelemetry(tel))
	}
	b.Run("otlp", func(b *testing.B) { otlp(b, statelessCall) })
	b.Run("otlp-root", func(b *testing.B) { otlp(b, strings.Replace(statelessCall, tracedMeta, "", 1)) })
	b.Run("sampled10", func(b *testing.B) {
		on(b, strings.Replace(statelessCall, tracedMeta, "", 1), sdktrace.ParentBased(sdktrace.TraceIDRatioBased(0.1)), true)
	})
}

const tracedMeta = `,"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"`

// statelessCall is a 2026-07-28 tools/call of find_orders whose caller
// sent its trace context.
const statelessCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"find_orders","arguments":{"customer":"C42"},` +
	`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},` +
	`"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}` + tracedMeta + `}}}`

func benchStatelessCall(b *testing.B, app *connector.App, body string, opts ...connector.Option) {
	s, err := connector.NewServer(app, append([]connector.Option{connector.WithLogger(quietLogger(nil))}, opts...)...)
	if err != nil {
		b.Fatal(err)
	}
	h := s.Handler()
	serve := func() *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8080/mcp", strings.NewReader(body))
		req.Header["Content-Type"] = []string{"application/json"}
		req.Header["Accept"] = []string{"application/json, text/event-stream"}
		req.Header["Mcp-Protocol-Version"] = []string{"2026-07-28"}
		req.Header["Mcp-Method"] = []string{"tools/call"}
		req.Header["Mcp-Name"] = []string{"find_orders"}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}
	if w := serve(); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"orders":["C42-1","C42-2","C42-3"]`) || w.Header().Get("Content-Type") != "application/json" {
		b.Fatalf("first call: %d %s %s", w.Code, w.Header().Get("Content-Type"), w.Body)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0, gc0 := cpuTime(), gcTime()
	for b.Loop() {
		serve()
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(gcTime()-gc0)/float64(b.N), "gc-ns/op")
}
