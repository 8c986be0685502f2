package connector_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpgen/mcpgen/connector"
	"github.com/mcpgen/mcpgen/connector/store"
)

// TestServersSharingAStore runs two servers on one state store, as replicas
// given the same store do: a caller's rate-limit bucket is one across both,
// while a server with a store of its own keeps its own.
func TestServersSharingAStore(t *testing.T) {
	app := func() *connector.App {
		a := testApp(newProbe())
		a.Tools = a.Tools[:1]
		a.Tools[0].UI = ""
		a.Tools[0].RateLimit = connector.Rate{N: 2, Per: time.Hour}
		a.Views = nil
		return a
	}
	shared := store.NewMemory(store.MemoryOptions{})
	_, one := connect(t, app(), nil, connector.WithStore(shared))
	_, two := connect(t, app(), nil, connector.WithStore(shared))
	_, own := connect(t, app(), nil)
	callOrders := func(cs *mcp.ClientSession) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "find_orders", Arguments: map[string]any{"customer": "C42"}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for i, cs := range []*mcp.ClientSession{one, two} {
		if res := callOrders(cs); res.IsError {
			t.Fatalf("call %d: %s", i+1, textOf(t, res))
		}
	}
	if res := callOrders(one); !res.IsError || !strings.Contains(textOf(t, res), "at most 2 calls to find_orders per 1h") {
		t.Errorf("third call across the two servers = %v %q; want the limit", res.IsError, textOf(t, res))
	}
	if res := callOrders(own); res.IsError {
		t.Errorf("a server with its own store was limited by the others' calls: %s", textOf(t, res))
	}
}
