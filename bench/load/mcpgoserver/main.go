// Command mcpgoserver is the mark3labs/mcp-go side of the load benchmark:
// find_orders with the same input and output schemas as the mcpgen
// connector, input validation on (WithInputSchemaValidation, so the
// pattern, enum and bounds are checked as mcpgen checks them), panics
// recovered, the default applied in the handler (mcp-go does not apply
// schema defaults), and the structured result with its JSON text copy
// (NewStructuredToolHandler). Served by mcp-go's Streamable HTTP server with
// its defaults, which answer both protocol eras on one endpoint;
// --stateless turns its sessions off.
package main

import (
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpgen/mcpgen/bench/load/internal/findorders"
)

func main() {
	f := findorders.ParseFlags()
	s := server.NewMCPServer("mcpgoserver", "1.0.0",
		server.WithToolCapabilities(false),
		server.WithResourceCapabilities(false, false),
		server.WithInputSchemaValidation(),
		server.WithRecovery(),
	)
	tool := mcp.NewToolWithRawSchema(findorders.Name, findorders.Description, json.RawMessage(findorders.InputSchema))
	mcp.WithToolTitle(findorders.Title)(&tool)
	mcp.WithRawOutputSchema(json.RawMessage(findorders.OutputSchema))(&tool)
	mcp.WithReadOnlyHintAnnotation(true)(&tool)
	mcp.WithIdempotentHintAnnotation(true)(&tool)
	s.AddTool(tool, mcp.NewStructuredToolHandler(func(ctx context.Context, req mcp.CallToolRequest, in findorders.Input) (findorders.Output, error) {
		if _, ok := req.GetArguments()["limit"]; !ok {
			in.Limit = findorders.DefaultLimit
		}
		return findorders.Find(ctx, in)
	}))
	s.AddResource(mcp.NewResource(findorders.SummaryURI, findorders.SummaryName,
		mcp.WithResourceDescription(findorders.SummaryDescription), mcp.WithMIMEType("text/plain")),
		func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: findorders.SummaryURI, MIMEType: "text/plain", Text: findorders.SummaryText}}, nil
		})
	findorders.Serve(f.Addr, server.NewStreamableHTTPServer(s, server.WithStateLess(f.Stateless)))
}
