package mcpgen

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpgen/mcpgen/connector"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// InputKey returns ctx under which the next question the handler asks
// (Elicit, Sample, SampleMessage, Roots) is sent under key in the
// input-required result of MCP 2026-07-28, where the client answers it
// under the same key. Without it the runtime numbers the questions
// (mcpgen-1, mcpgen-2, ...), which is enough unless a client or a spec
// expects particular names. Keys must differ within one call:
//
//	name, _, err := mcpgen.Elicit[Name](mcpgen.InputKey(ctx, "user_name"), "What is your name?")
func InputKey(ctx context.Context, key string) context.Context {
	return connector.WithInputKey(ctx, key)
}

// Roots asks the client for its roots (roots/list): the directories or
// other places it lets the server work in. The client must declare the
// roots capability. Under MCP 2026-07-28 the question ends the call and the
// handler runs again with the answer: return when Roots returns
// ErrInputRequired.
func Roots(ctx context.Context) ([]*mcp.Root, error) {
	c := connector.CallFrom(ctx)
	if c == nil {
		return nil, ErrNoRequest
	}
	raw, err := c.Ask(ctx, &mcp.ListRootsParams{})
	if err != nil {
		return nil, err
	}
	var res mcp.ListRootsResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("mcpgen.Roots: reading the client's answer: %v", err)
	}
	return res.Roots, nil
}

// ClientCapabilities returns what the calling client declared it can do
// (elicitation, sampling, roots, extensions): a handler that can do with
// or without a question asks only what the client can answer. It is never
// nil; outside a handler it is empty.
func ClientCapabilities(ctx context.Context) *mcp.ClientCapabilities {
	return connector.CallFrom(ctx).ClientCapabilities()
}
