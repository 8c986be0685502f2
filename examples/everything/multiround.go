package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpgen/mcpgen"
)

// The tools and the prompt below are the ones the 2026-07-28 conformance
// suite drives: questions to the client travel as input-required results
// (SEP-2322), each under the key the suite expects (mcpgen.InputKey). A
// handler asks, gets mcpgen.ErrInputRequired while the client has not
// answered, and runs again with the answer.

// Name is a one-field form: the user's name.
type Name struct {
	Name string `json:"name"`
}

// Asks the user's name, then greets them.
//
//mcpgen:tool readonly title="Input required: elicitation"
func TestInputRequiredResultElicitation(ctx context.Context) (string, error) {
	n, action, err := mcpgen.Elicit[Name](mcpgen.InputKey(ctx, "user_name"), "What is your name?")
	if err != nil {
		return "", err
	}
	if action != mcpgen.Accept {
		return "No name given (" + string(action) + ").", nil
	}
	return "Hello, " + n.Name + "!", nil
}

// Asks the client's model a question.
//
//mcpgen:tool readonly title="Input required: sampling"
func TestInputRequiredResultSampling(ctx context.Context) (string, error) {
	answer, err := mcpgen.Sample(mcpgen.InputKey(ctx, "capital_question"), "What is the capital of France?", 100)
	if err != nil {
		return "", err
	}
	return "The model answered: " + answer, nil
}

// Asks the client for its roots and lists them.
//
//mcpgen:tool readonly title="Input required: roots"
func TestInputRequiredResultListRoots(ctx context.Context) (string, error) {
	roots, err := mcpgen.Roots(mcpgen.InputKey(ctx, "client_roots"))
	if err != nil {
		return "", err
	}
	var uris []string
	for _, r := range roots {
		uris = append(uris, r.URI)
	}
	return fmt.Sprintf("The client has %d roots: %s", len(roots), strings.Join(uris, ", ")), nil
}

// Confirmation is a yes/no form.
type Confirmation struct {
	OK bool `json:"ok"`
}

// Asks for a confirmation; the answer comes back with the
// signed requestState the runtime issued, which it checks before the handler
// runs again.
//
//mcpgen:tool readonly title="Input required: request state"
func TestInputRequiredResultRequestState(ctx context.Context) (string, error) {
	c, _, err := mcpgen.Elicit[Confirmation](mcpgen.InputKey(ctx, "confirm"), "Please confirm")
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("state-ok: the requestState was verified; confirmed=%v", c.OK), nil
}

// Asks the same as test_input_required_result_request_state; the suite
// sends back a tampered requestState, which the runtime refuses (-32602).
//
//mcpgen:tool readonly title="Input required: tampered state"
func TestInputRequiredResultTamperedState(ctx context.Context) (string, error) {
	c, _, err := mcpgen.Elicit[Confirmation](mcpgen.InputKey(ctx, "confirm"), "Please confirm")
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("confirmed=%v", c.OK), nil
}

// Asks three questions at once: a form, the model and the
// roots. Every question is asked before the handler returns, so the client
// gets them in one round.
//
//mcpgen:tool readonly title="Input required: several questions"
func TestInputRequiredResultMultipleInputs(ctx context.Context) (string, error) {
	n, _, err1 := mcpgen.Elicit[Name](mcpgen.InputKey(ctx, "user_name"), "What is your name?")
	greeting, err2 := mcpgen.Sample(mcpgen.InputKey(ctx, "greeting"), "Generate a greeting", 50)
	roots, err3 := mcpgen.Roots(mcpgen.InputKey(ctx, "client_roots"))
	if err := errors.Join(err1, err2, err3); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s, %s! You have %d roots.", greeting, n.Name, len(roots)), nil
}

// Color is a one-field form: a favourite colour.
type Color struct {
	Color string `json:"color"`
}

// Asks two questions, one round each: the second only
// once the first is answered.
//
//mcpgen:tool readonly title="Input required: two rounds"
func TestInputRequiredResultMultiRound(ctx context.Context) (string, error) {
	n, _, err := mcpgen.Elicit[Name](mcpgen.InputKey(ctx, "step1"), "Step 1: What is your name?")
	if err != nil {
		return "", err
	}
	c, _, err := mcpgen.Elicit[Color](mcpgen.InputKey(ctx, "step2"), "Step 2: What is your favorite color?")
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s likes %s.", n.Name, c.Color), nil
}

// Asks only what the client declared it can answer: the
// model when it samples, the user when it elicits.
//
//mcpgen:tool readonly title="Input required: client capabilities"
func TestInputRequiredResultCapabilities(ctx context.Context) (string, error) {
	caps := mcpgen.ClientCapabilities(ctx)
	var parts []string
	var errs []error
	if caps.Sampling != nil {
		answer, err := mcpgen.Sample(mcpgen.InputKey(ctx, "model_question"), "Say hello", 20)
		errs = append(errs, err)
		parts = append(parts, "model: "+answer)
	}
	if caps.Elicitation != nil {
		n, _, err := mcpgen.Elicit[Name](mcpgen.InputKey(ctx, "user_name"), "What is your name?")
		errs = append(errs, err)
		parts = append(parts, "user: "+n.Name)
	}
	if err := errors.Join(errs...); err != nil {
		return "", err
	}
	if len(parts) == 0 {
		return "The client can answer no question.", nil
	}
	return strings.Join(parts, "; "), nil
}

// PromptContext is a one-field form: what a prompt is about.
type PromptContext struct {
	Context string `json:"context"`
}

// A prompt that asks the user what it should be about before
// it is written.
//
//mcpgen:prompt
func TestInputRequiredResultPrompt(ctx context.Context) (string, error) {
	c, _, err := mcpgen.Elicit[PromptContext](mcpgen.InputKey(ctx, "user_context"), "What context should the prompt use?")
	if err != nil {
		return "", err
	}
	return "Write about: " + c.Context, nil
}
