package main

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpgen/mcpgen"
)

// Sends three log messages while it works.
//
//mcpgen:tool readonly title="Logging"
func TestToolWithLogging(ctx context.Context) (string, error) {
	for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
		if i > 0 {
			time.Sleep(50 * time.Millisecond)
		}
		mcpgen.Log(ctx, mcpgen.LevelInfo, msg)
	}
	return "Tool with logging executed successfully", nil
}

// Reports its progress three times: 0, 50 and 100 of 100.
//
//mcpgen:tool readonly title="Progress"
func TestToolWithProgress(ctx context.Context) (string, error) {
	for _, p := range []float64{0, 50, 100} {
		if p > 0 {
			time.Sleep(50 * time.Millisecond)
		}
		mcpgen.Progress(ctx, p, 100, fmt.Sprintf("%.0f%% done", p))
	}
	return "Tool with progress executed successfully", nil
}

// SamplingInput is what test_sampling asks the client's model.
type SamplingInput struct {
	Prompt string `json:"prompt"` // The prompt to send to the LLM.
}

// Asks the client's language model to answer a prompt.
//
//mcpgen:tool readonly title="Sampling"
func TestSampling(ctx context.Context, in SamplingInput) (string, error) {
	answer, err := mcpgen.Sample(ctx, in.Prompt, 100)
	if err != nil {
		return "", err
	}
	return "LLM response: " + answer, nil
}

// ElicitationInput is the question test_elicitation puts to the user.
type ElicitationInput struct {
	Message string `json:"message"` // The message to show the user.
}

// Contact is the form test_elicitation asks the user to fill in.
type Contact struct {
	Username string `json:"username" mcpgen:"description=User's response"`
	Email    string `json:"email" mcpgen:"description=User's email address"`
}

// Asks the user for a name and an email address.
//
//mcpgen:tool readonly title="Elicitation"
func TestElicitation(ctx context.Context, in ElicitationInput) (string, error) {
	contact, action, err := mcpgen.Elicit[Contact](ctx, in.Message)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("User response: action=%s, content=%+v", action, contact), nil
}

// Profile is a form whose every field has a default (SEP-1034).
type Profile struct {
	Name     string  `json:"name" mcpgen:"default=John Doe"`
	Age      int     `json:"age" mcpgen:"default=30"`
	Score    float64 `json:"score" mcpgen:"default=95.5"`
	Status   string  `json:"status" mcpgen:"enum=active|inactive|pending,default=active"`
	Verified bool    `json:"verified" mcpgen:"default=true"`
}

// Asks for a profile, offering a default for
// every field.
//
//mcpgen:tool readonly title="Elicitation with defaults"
func TestElicitationSep1034Defaults(ctx context.Context) (string, error) {
	p, action, err := mcpgen.Elicit[Profile](ctx, "Please review your profile")
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Elicitation completed: action=%s, content=%+v", action, p), nil
}

// Closes its response stream before it answers, so the
// client must reconnect and resume the stream to get the result (SEP-1699).
//
//mcpgen:tool readonly title="Reconnection"
func TestReconnection(ctx context.Context) (string, error) {
	mcpgen.CloseStream(ctx, 10*time.Millisecond)
	time.Sleep(100 * time.Millisecond)
	return "Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.", nil
}

// Choices is a form with each kind of choice elicitation offers (SEP-1330).
type Choices struct {
	UntitledSingle string   `json:"untitledSingle" mcpgen:"enum=option1|option2|option3"`
	TitledSingle   string   `json:"titledSingle" mcpgen:"enum=value1:First Option|value2:Second Option|value3:Third Option"`
	LegacyEnum     string   `json:"legacyEnum" mcpgen:"enum=opt1|opt2|opt3,enumNames=Option One|Option Two|Option Three"`
	UntitledMulti  []string `json:"untitledMulti" mcpgen:"enum=option1|option2|option3"`
	TitledMulti    []string `json:"titledMulti" mcpgen:"enum=value1:First Choice|value2:Second Choice|value3:Third Choice"`
}

// Asks the user to pick from single- and
// multi-select lists, with and without display titles.
//
//mcpgen:tool readonly title="Elicitation with enums"
func TestElicitationSep1330Enums(ctx context.Context) (string, error) {
	c, action, err := mcpgen.Elicit[Choices](ctx, "Please make your choices")
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Elicitation completed: action=%s, content=%+v", action, c), nil
}
