package connector_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkCallToolTransports compares one tools/call over the three HTTP
// transports of a connector, with the Go SDK's client in a session
// (2025-11-25 over /mcp): Streamable HTTP, HTTP+SSE and WebSocket.
func BenchmarkCallToolTransports(b *testing.B) {
	app := testApp(newProbe())
	base, _ := serveStreams(b, app)
	args := map[string]any{"customer": "C42"}
	run := func(b *testing.B, cs *mcp.ClientSession) {
		ctx := context.Background()
		b.ReportAllocs()
		b.ResetTimer()
		cpu0 := cpuTime()
		for b.Loop() {
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "find_orders", Arguments: args}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
	}
	b.Run("mcp", func(b *testing.B) {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).
			Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: base + "/mcp"}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		run(b, cs)
	})
	for _, kind := range []string{"sse", "ws"} {
		b.Run(kind, func(b *testing.B) {
			cs, err := streamClient(b, base, kind, nil, nil)
			if err != nil {
				b.Fatal(err)
			}
			run(b, cs)
		})
	}
}
