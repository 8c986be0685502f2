// Package taskctx holds what the connector and mcpgen's own tools share
// about tasks. It carries, in the context of a tool call that runs as a
// task, what records the task's status message: the connector puts it
// there when it starts the task, and mcpgen.Progress finds it, so that
// progress in a task becomes the task's statusMessage.
package taskctx

import "context"

type progressKey struct{}

// WithProgress returns ctx carrying record, which sets the status
// message of the task ctx runs.
func WithProgress(ctx context.Context, record func(msg string)) context.Context {
	return context.WithValue(ctx, progressKey{}, record)
}

// Progress records msg as the status message of the task ctx runs, and
// reports whether ctx runs one.
func Progress(ctx context.Context, msg string) bool {
	record, ok := ctx.Value(progressKey{}).(func(string))
	if ok {
		record(msg)
	}
	return ok
}

// MetaKey is the key, in a tool's _meta of tools/list, that says
// whether the tool runs as a task: "optional" (//mcpgen:tool task) or
// "required" (task=required); absent, it never does. MCP 2026-07-28 has
// no field for it (the server decides when tools/call arrives), so
// clients such as the inspector and mcpgentest read it here to offer a
// task tool as a task.
const MetaKey = "mcpgen/task"

type startKey struct{}

// WithStart returns ctx carrying start, which creates the task of a call
// whose handler asks its questions before its task is created
// (//mcpgen:tool task askfirst): the connector puts it there, and
// mcpgen.StartTask calls it.
func WithStart(ctx context.Context, start func() error) context.Context {
	return context.WithValue(ctx, startKey{}, start)
}

// Start creates the task of the call ctx serves, if it waits for one;
// nil when ctx serves no such call, or its task exists already.
func Start(ctx context.Context) error {
	if start, ok := ctx.Value(startKey{}).(func() error); ok {
		return start()
	}
	return nil
}
