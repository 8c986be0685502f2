package main

import (
	"context"
	"sync"

	"github.com/mcpgen/mcpgen"
	"github.com/mcpgen/mcpgen/connector"
)

// The diagnostic tools of the conformance suite's server-stateless
// scenario (SEP-2575).

// Needs the client's model: a client that did not declare
// sampling gets the protocol's error -32021, not a question it cannot
// answer.
//
//mcpgen:tool readonly title="Missing capability"
func TestMissingCapability(ctx context.Context) (string, error) {
	answer, err := mcpgen.Sample(ctx, "Say hello", 20)
	if err != nil {
		return "", err
	}
	return "The model said: " + answer, nil
}

// Asks the user a question: under 2026-07-28 the question
// is the tool's result, never a request of its own on the response stream.
//
//mcpgen:tool readonly title="Streaming elicitation"
func TestStreamingElicitation(ctx context.Context) (string, error) {
	n, _, err := mcpgen.Elicit[Name](ctx, "What is your name?")
	if err != nil {
		return "", err
	}
	return "Hello, " + n.Name + "!", nil
}

// Logs three messages; a client that asked for no log level
// gets none of them.
//
//mcpgen:tool readonly title="Logging (2026-07-28)"
func TestLoggingTool(ctx context.Context) (string, error) {
	for _, msg := range []string{"first", "second", "third"} {
		mcpgen.Log(ctx, mcpgen.LevelInfo, msg)
	}
	return "logged three messages", nil
}

// toggles remembers whether the optional tool and prompt are listed.
var toggles struct {
	sync.Mutex
	toolHidden, promptHidden bool
}

// Takes test_optional_tool off the tool list, or puts it
// back, so clients see notifications/tools/list_changed.
//
//mcpgen:tool additive closedworld title="Toggle a tool"
func TestTriggerToolChange(ctx context.Context) (string, error) {
	toggles.Lock()
	defer toggles.Unlock()
	toggles.toolHidden = !toggles.toolHidden
	if err := connector.CallFrom(ctx).Server.SetToolEnabled("test_optional_tool", !toggles.toolHidden); err != nil {
		return "", err
	}
	if toggles.toolHidden {
		return "test_optional_tool is off the list", nil
	}
	return "test_optional_tool is back", nil
}

// Takes test_optional_prompt off the prompt list, or puts
// it back, so clients see notifications/prompts/list_changed.
//
//mcpgen:tool additive closedworld title="Toggle a prompt"
func TestTriggerPromptChange(ctx context.Context) (string, error) {
	toggles.Lock()
	defer toggles.Unlock()
	toggles.promptHidden = !toggles.promptHidden
	if err := connector.CallFrom(ctx).Server.SetPromptEnabled("test_optional_prompt", !toggles.promptHidden); err != nil {
		return "", err
	}
	if toggles.promptHidden {
		return "test_optional_prompt is off the list", nil
	}
	return "test_optional_prompt is back", nil
}

// A tool test_trigger_tool_change takes off the list and
// puts back.
//
//mcpgen:tool readonly title="Optional tool"
func TestOptionalTool() (string, error) {
	return "the optional tool is on the list", nil
}

// A prompt test_trigger_prompt_change takes off the list and puts back.
//
//mcpgen:prompt
func TestOptionalPrompt() (string, error) {
	return "The optional prompt is on the list.", nil
}

// RouteInput has arguments a gateway can route on without reading the
// body: clients mirror them into Mcp-Param headers (SEP-2243).
type RouteInput struct {
	Region   string `json:"region" mcpgen:"header=Region"`               // Where to run the query.
	Priority int    `json:"priority,omitempty" mcpgen:"header=Priority"` // Higher runs sooner.
	Query    string `json:"query"`                                       // What to look up.
}

// Runs a query in a region; the region also travels in the
// Mcp-Param-Region header, which the server checks against the body.
//
//mcpgen:tool readonly title="Custom headers"
func TestCustomHeaders(in RouteInput) (string, error) {
	return "ran " + in.Query + " in " + in.Region, nil
}
