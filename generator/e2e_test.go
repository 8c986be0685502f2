package generator

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// questionConnector starts the connector built from testdata/e2e_connector.txtar
// over stdio and checks, with the go-sdk's client, that the generated
// registrations reach the wire and call the user's functions.
func questionConnector(t *testing.T, bin string) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpgen-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(bin, "--stdio")}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()

	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 1 {
		t.Fatalf("tools/list: %v %+v", err, tools)
	}
	tool := tools.Tools[0]
	if tool.Name != "find" || tool.Title != "Find orders" || tool.Annotations == nil || !tool.Annotations.ReadOnlyHint ||
		tool.Annotations.DestructiveHint == nil || *tool.Annotations.DestructiveHint ||
		!strings.HasPrefix(tool.Description, "Find lists the orders") {
		t.Errorf("tool = %+v annotations %+v", tool, tool.Annotations)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "find", Arguments: map[string]any{"customer": "acme"}})
	if err != nil || res.IsError {
		t.Fatalf("tools/call: %v %+v", err, res)
	}
	got, _ := json.Marshal(res.StructuredContent)
	// The default limit (3) comes from the schema, applied by the runtime.
	if string(got) != `{"orders":["acme-1","acme-2","acme-3"]}` {
		t.Errorf("structuredContent = %s", got)
	}

	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "orders://21"})
	if err != nil || len(rr.Contents) != 1 || rr.Contents[0].Text != "order 42" {
		t.Errorf("resources/read: %v %+v", err, rr)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "orders://abc"}); err == nil || !strings.Contains(err.Error(), `id="abc" is not an integer`) {
		t.Errorf("resources/read orders://abc: err = %v, want the binding error", err)
	}

	pr, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "review", Arguments: map[string]string{"customer": "globex"}})
	if err != nil || len(pr.Messages) != 1 {
		t.Fatalf("prompts/get: %v %+v", err, pr)
	}
	if tc, ok := pr.Messages[0].Content.(*mcp.TextContent); !ok || tc.Text != "Review the orders of globex" {
		t.Errorf("prompt message = %+v", pr.Messages[0].Content)
	}

	cr, err := cs.Complete(ctx, &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "review"},
		Argument: mcp.CompleteParamsArgument{Name: "customer", Value: "g"},
	})
	if err != nil || strings.Join(cr.Completion.Values, ",") != "globex" {
		t.Errorf("completion/complete: %v %+v", err, cr)
	}
}
