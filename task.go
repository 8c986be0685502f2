package mcpgen

import (
	"context"

	"github.com/mcpgen/mcpgen/internal/taskctx"
)

// StartTask turns the call of a tool marked //mcpgen:tool task askfirst
// into a task: the questions the handler asked before (Elicit, Sample,
// Roots) went to the client as a multi-round trip of MCP 2026-07-28, each
// retried tools/call running the handler again with the answers; once it
// calls StartTask, the client gets the task's id at once and the handler
// goes on as the task, whose result the client polls with tasks/get.
// What the handler asks after StartTask the task asks (input_required,
// answered with tasks/update).
//
// It does nothing, and returns nil, when the call is not one that waits
// for its task: the tool is not marked askfirst, the client did not
// declare the tasks extension, or the task exists already (a handler
// runs again from the start after each answer). An error (the task store
// is full, the client went away) should be returned by the handler.
func StartTask(ctx context.Context) error {
	return taskctx.Start(ctx)
}
