package runtime_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/telemetry"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// BenchmarkTelemetry measures what telemetry costs the server per
// tools/call: the same 2026-07-28 call carrying a sampled traceparent in
// its _meta, served by the HTTP handler (the fast path) with no client
// or network in the loop, with telemetry off (no WithTelemetry) and on
// (every call a recorded span, batched to an exporter, and its metrics).
//
//	go test -run '^$' -bench Telemetry -benchmem ./runtime/
func BenchmarkTelemetry(b *testing.B) {
	app := func() *runtime.App {
		a := testApp(newProbe())
		a.Tools = a.Tools[:1]
		a.Tools[0].UI = ""
		a.Views = nil
		return a
	}
	b.Run("off", func(b *testing.B) {
		benchStatelessCall(b, app())
	})
	b.Run("on", func(b *testing.B) {
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
		defer tp.Shutdown(context.Background())
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
		defer mp.Shutdown(context.Background())
		tel, err := telemetry.New(telemetry.Providers{Tracer: tp, Meter: mp})
		if err != nil {
			b.Fatal(err)
		}
		benchStatelessCall(b, app(), runtime.WithTelemetry(tel))
	})
}

// statelessCall is a 2026-07-28 tools/call of find_orders whose caller
// sent its trace context.
const statelessCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"find_orders","arguments":{"customer":"C42"},` +
	`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},` +
	`"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"},` +
	`"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}}`

func benchStatelessCall(b *testing.B, app *runtime.App, opts ...runtime.Option) {
	s, err := runtime.NewServer(app, append([]runtime.Option{runtime.WithLogger(quietLogger(nil))}, opts...)...)
	if err != nil {
		b.Fatal(err)
	}
	h := s.Handler()
	serve := func() *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8080/mcp", strings.NewReader(statelessCall))
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
	cpu0 := cpuTime()
	for b.Loop() {
		serve()
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}
