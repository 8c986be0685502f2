package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcpgen/mcpgen"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The tools the tasks scenarios of the 2026-07-28 conformance suite drive
// (the io.modelcontextprotocol/tasks extension, SEP-2663). A tool marked
// task runs as a task for a client that supports tasks: the client gets
// the task's id at once and polls tasks/get; the handler stays a plain
// function.

// GreetInput names whom greet greets.
type GreetInput struct {
	Name string `json:"name"` // Whom to greet.
}

// Greets someone, at once (never a task).
//
//mcpgen:tool readonly title="Greet"
func Greet(in GreetInput) (string, error) {
	return "Hello, " + in.Name + "!", nil
}

// SlowInput says how long slow_compute works.
type SlowInput struct {
	Seconds float64 `json:"seconds" mcpgen:"min=0,max=3600"` // How long to work, in seconds.
	Label   string  `json:"label,omitempty"`                 // A label echoed in the result.
}

// Works for the given number of seconds, then answers; a
// cancelled task stops at once.
//
//mcpgen:tool readonly task title="Slow computation"
func SlowCompute(ctx context.Context, in SlowInput) (string, error) {
	select {
	case <-time.After(time.Duration(in.Seconds * float64(time.Second))):
	case <-ctx.Done():
		return "", ctx.Err()
	}
	return fmt.Sprintf("computed %s after %gs", in.Label, in.Seconds), nil
}

// Always fails after a second, as a tool error: the task
// completes with an isError result. It runs only as a task.
//
//mcpgen:tool readonly task=required title="Failing job"
func FailingJob(ctx context.Context) (string, error) {
	select {
	case <-time.After(time.Second):
	case <-ctx.Done():
		return "", ctx.Err()
	}
	return "", errors.New("the job failed: the input archive is corrupt")
}

// Fails with a protocol error (JSON-RPC internal error):
// the task ends failed, with the error.
//
//mcpgen:tool readonly task title="Protocol error job"
func ProtocolErrorJob() (string, error) {
	return "", &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error: the worker crashed"}
}

// DeleteInput names the file confirm_delete deletes.
type DeleteInput struct {
	Filename string `json:"filename"` // The file to delete.
}

// Asks the user to confirm before it deletes a file: the
// task waits in input_required until the answer comes (tasks/update).
//
//mcpgen:tool destructive task title="Confirm delete"
func ConfirmDelete(ctx context.Context, in DeleteInput) (string, error) {
	c, action, err := mcpgen.Elicit[Confirmation](ctx, "Delete "+in.Filename+"?")
	if err != nil {
		return "", err
	}
	if action != mcpgen.Accept || !c.OK {
		return "Kept " + in.Filename + ".", nil
	}
	return "Deleted " + in.Filename + ".", nil
}

// Asks two questions at once; the task waits until both
// are answered, one tasks/update at a time or together.
//
//mcpgen:tool readonly task title="Two questions"
func MultiInput(ctx context.Context) (string, error) {
	n, _, err1 := mcpgen.Elicit[Name](mcpgen.InputKey(ctx, "name"), "What is your name?")
	c, _, err2 := mcpgen.Elicit[Color](mcpgen.InputKey(ctx, "color"), "What is your favorite color?")
	if err := errors.Join(err1, err2); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s likes %s.", n.Name, c.Color), nil
}

// Asks the user's name first, as a multi-round trip (no task
// yet); once answered it becomes a task, which greets them.
//
//mcpgen:tool readonly task=required askfirst title="Questions, then a task"
func TestToolWithTask(ctx context.Context) (string, error) {
	n, action, err := mcpgen.Elicit[Name](mcpgen.InputKey(ctx, "user_name"), "What is your name?")
	if err != nil {
		return "", err
	}
	if err := mcpgen.StartTask(ctx); err != nil {
		return "", err
	}
	mcpgen.Progress(ctx, 0, 0, "greeting "+n.Name)
	if action != mcpgen.Accept {
		return "No name given (" + string(action) + ").", nil
	}
	return "Hello, " + n.Name + "! (from a task)", nil
}
