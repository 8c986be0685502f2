// Command sdkserver is the go-sdk side of the load benchmark: find_orders
// registered by hand with mcp.AddTool (typed input and output, the same
// schemas as the mcpgen connector; the SDK validates the arguments, applies
// the default and returns the structured content with its JSON text copy),
// served by the SDK's Streamable HTTP handler with an in-memory event store,
// or statelessly with --stateless (the SDK serves 2026-07-28 only there).
package main

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/mcpgen/mcpgen/bench/load/internal/findorders"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	f := findorders.ParseFlags()
	s := mcp.NewServer(&mcp.Implementation{Name: "sdkserver", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{
		Name:         findorders.Name,
		Title:        findorders.Title,
		Description:  findorders.Description,
		InputSchema:  json.RawMessage(findorders.InputSchema),
		OutputSchema: json.RawMessage(findorders.OutputSchema),
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true},
	}, func(ctx context.Context, req *mcp.CallToolRequest, in findorders.Input) (*mcp.CallToolResult, findorders.Output, error) {
		out, err := findorders.Find(ctx, in)
		return nil, out, err
	})
	s.AddResource(&mcp.Resource{URI: findorders.SummaryURI, Name: findorders.SummaryName, Description: findorders.SummaryDescription, MIMEType: "text/plain"},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: findorders.SummaryURI, MIMEType: "text/plain", Text: findorders.SummaryText}}}, nil
		})
	opts := &mcp.StreamableHTTPOptions{Stateless: f.Stateless}
	if !f.Stateless {
		opts.EventStore = mcp.NewMemoryEventStore(nil)
	}
	findorders.Serve(f.Addr, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, opts))
}
