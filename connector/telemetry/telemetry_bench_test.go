package telemetry_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/connector/telemetry"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// BenchmarkMiddleware measures the middleware alone around a handler that
// does nothing: what telemetry adds to each request, with every call a
// recorded span (the caller's traceparent is sampled), batched to an
// exporter, and its metrics (the SDK's span, telemetry.New; and
// mcpgen's own request span exported over OTLP, telemetry.Setup); and
// with metrics only (no tracer). setup-root is setup for a request
// without a caller's context.
//
//	go test -run '^$' -bench Middleware -benchmem ./connector/telemetry/
func BenchmarkMiddleware(b *testing.B) {
	req := &mcp.CallToolRequest{
		Params: &mcp.CallToolParamsRaw{Name: "lookup", Meta: mcp.Meta{"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}},
		Extra:  &mcp.RequestExtra{Header: http.Header{"Mcp-Protocol-Version": {"2026-07-28"}}},
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "found"}}}
	next := func(context.Context, string, mcp.Request) (mcp.Result, error) { return res, nil }
	run := func(b *testing.B, p telemetry.Providers) {
		tel, err := telemetry.New(p)
		if err != nil {
			b.Fatal(err)
		}
		tel.SetNames([]string{"lookup"}, nil)
		h := tel.Middleware(next)
		ctx, id := requestContext(b), json.RawMessage("7")
		b.ReportAllocs()
		cpu0 := cpuTime()
		for b.Loop() {
			h(telemetry.WithRequestID(ctx, id), "tools/call", req)
		}
		b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
	}
	b.Run("traces+metrics", func(b *testing.B) {
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
		defer tp.Shutdown(context.Background())
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
		defer mp.Shutdown(context.Background())
		run(b, telemetry.Providers{Tracer: tp, Meter: mp})
	})
	setup := func(b *testing.B, req mcp.Request) {
		// As the connector binary sets it up: the request span is
		// mcpgen's own, exported over OTLP/HTTP to a receiver in this
		// process that drops it (its CPU counts too), metrics to OTLP.
		// The loop ends spans faster than one goroutine posts them, so
		// some are dropped (and said in the log) after their encoding;
		// a larger OTEL_BSP_MAX_QUEUE_SIZE would not help, since the
		// SDK's batch processor of the same provider makes a channel of
		// that size, whose every slot the garbage collector scans.
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
		tel.SetNames([]string{"lookup"}, nil)
		h := tel.Middleware(next)
		ctx, id := requestContext(b), json.RawMessage("7")
		b.ReportAllocs()
		cpu0 := cpuTime()
		for b.Loop() {
			h(telemetry.WithRequestID(ctx, id), "tools/call", req)
		}
		b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
	}
	b.Run("setup", func(b *testing.B) { setup(b, req) })
	b.Run("setup-root", func(b *testing.B) {
		// A request without a caller's context, as bench/load's: the
		// span starts a trace.
		setup(b, &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "lookup"}, Extra: req.Extra})
	})
	b.Run("metrics", func(b *testing.B) {
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
		defer mp.Shutdown(context.Background())
		run(b, telemetry.Providers{Meter: mp})
	})
}

// requestContext is a context as deep as a request's in a connector
// binary: net/http's (the server, the local address, the connection's
// and the request's cancellation) and the connector's own values, as
// the middleware gets it; a context value not in it costs a walk
// through each.
func requestContext(tb testing.TB) context.Context {
	type key struct{ n int }
	ctx := context.WithValue(context.Background(), http.ServerContextKey, (*http.Server)(nil))
	ctx = context.WithValue(ctx, http.LocalAddrContextKey, net.Addr(nil))
	ctx, stopConn := context.WithCancel(ctx)
	tb.Cleanup(stopConn)
	ctx, stopRequest := context.WithCancel(ctx)
	tb.Cleanup(stopRequest)
	ctx = context.WithValue(ctx, key{1}, "caller address")
	return context.WithValue(ctx, key{2}, "session")
}

// cpuTime is the CPU time (user + system) this process has used: the
// exporting goroutine's included.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
