package conformance

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestBothEras has a 2026-07-28 client (stateless: server/discover,
// per-request _meta and headers, multi-round-trip questions,
// subscriptions/listen) and a 2025-11-25 client (a session) use the same
// running binary, started with its default flags, at the same time.
func TestBothEras(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and serves examples/everything; skipped in -short mode")
	}
	url := serve(t, everythingBinary(t))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	answer := func(*mcp.ElicitParams) map[string]any {
		return map[string]any{"username": "gopher", "email": "gopher@example.com"}
	}
	clients := map[string]*goClient{
		"2026-07-28": connect(t, ctx, &mcp.StreamableClientTransport{Endpoint: url}, "2026-07-28", answer),
		"2025-11-25": connect(t, ctx, &mcp.StreamableClientTransport{Endpoint: url}, "2025-11-25", answer),
	}
	for v, c := range clients {
		if got := c.InitializeResult().ProtocolVersion; got != v {
			t.Fatalf("client asking for %s negotiated %s", v, got)
		}
		if got := c.InitializeResult().ServerInfo.Name; got != "everything" {
			t.Errorf("%s: serverInfo.name = %q", v, got)
		}
	}
	if id := clients["2026-07-28"].ID(); id != "" {
		t.Errorf("the 2026-07-28 client got session id %q; that era has no sessions", id)
	}
	if id := clients["2025-11-25"].ID(); id == "" {
		t.Error("the 2025-11-25 client got no session id")
	}

	// Both subscribe to the watched resource: a resources/subscribe in the
	// session, a subscriptions/listen stream for 2026-07-28.
	const watched = "test://watched-resource"
	for v, c := range clients {
		if err := c.Subscribe(ctx, &mcp.SubscribeParams{URI: watched}); err != nil {
			t.Fatalf("%s: subscribe: %v", v, err)
		}
	}

	// Everything else runs for both clients at once.
	var wg sync.WaitGroup
	for v, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tools, err := c.ListTools(ctx, nil)
			if err != nil || len(tools.Tools) < 14 {
				t.Errorf("%s: tools/list: %v %+v", v, err, tools)
			}
			res, err := c.CallTool(ctx, &mcp.CallToolParams{Name: "test_simple_text"})
			if err != nil || res.IsError || contentText(res.Content) != "This is a simple text response for testing." {
				t.Errorf("%s: test_simple_text: %v %+v", v, err, res)
			}
			read, err := c.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://static-text"})
			if err != nil || read.Contents[0].Text != "This is the content of the static text resource." {
				t.Errorf("%s: resources/read: %v %+v", v, err, read)
			}
			prompt, err := c.GetPrompt(ctx, &mcp.GetPromptParams{Name: "test_prompt_with_arguments", Arguments: map[string]string{"arg1": "a", "arg2": v}})
			if err != nil || !strings.Contains(contentText([]mcp.Content{prompt.Messages[0].Content}), v) {
				t.Errorf("%s: prompts/get: %v %+v", v, err, prompt)
			}
			// A question to the client: a request in the session, an
			// input-required result and a second call for 2026-07-28.
			res, err = c.CallTool(ctx, &mcp.CallToolParams{Name: "test_elicitation", Arguments: map[string]any{"message": "Who are you?"}})
			if err != nil || res.IsError || !strings.Contains(contentText(res.Content), "gopher@example.com") {
				t.Errorf("%s: test_elicitation: %v %+v", v, err, res)
			}
			res, err = c.CallTool(ctx, &mcp.CallToolParams{Name: "test_sampling", Arguments: map[string]any{"prompt": "Capital of France?"}})
			if err != nil || res.IsError || contentText(res.Content) != "LLM response: Paris" {
				t.Errorf("%s: test_sampling: %v %+v", v, err, res)
			}
		}()
	}
	wg.Wait()
	for v, c := range clients {
		c.mu.Lock()
		n := len(c.elicited)
		c.mu.Unlock()
		if n != 1 {
			t.Errorf("%s: the client was asked %d questions, want 1", v, n)
		}
	}

	// One change notifies both: on the session's stream and on the listen
	// stream.
	clients["2025-11-25"].call(t, ctx, &mcp.CallToolParams{Name: "update_watched_resource"})
	for v, c := range clients {
		select {
		case uri := <-c.updated:
			if uri != watched {
				t.Errorf("%s: notified of %s, want %s", v, uri, watched)
			}
		case <-ctx.Done():
			t.Fatalf("%s: no notifications/resources/updated", v)
		}
	}
}
