package telemetry_test

import (
	"context"
	"testing"

	"github.com/mcpgen/mcpgen/connector/telemetry"
	"github.com/modelcontextprotocol/go-sdk/mcp"
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
