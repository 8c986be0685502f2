package telemetry

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Attribute keys of tasks.
const (
	keyTaskID     = attribute.Key("mcpgen.task.id")
	keyTaskStatus = attribute.Key("mcpgen.task.status")
)

// taskBounds are the buckets of the task duration histogram, in seconds:
// those of requests, then up to a task's default TTL of an hour.
var taskBounds = append(durationBounds[:len(durationBounds):len(durationBounds)], 600, 1800, 3600)

// Task is what TaskStarted is told of a task that starts running.
type Task struct {
	ID   string
	Tool string
	// Session is the session of a task of MCP 2025-11-25 ("" under
	// 2026-07-28, which has none).
	Session string
	// Created is when the task was created (its record's Created); zero
	// means now.
	Created time.Time
	// Meta and Header are the _meta of the tools/call that created the
	// task and its HTTP header: where the caller's trace context is.
	Meta   map[string]any
	Header http.Header
}

// TaskEnd is how a task ended, for the function TaskStarted returns.
type TaskEnd struct {
	// Status is the task's final status: completed, failed or cancelled;
	// anything else (the store could not be read) is recorded as _OTHER.
	Status  string
	Message string
	// Result is the task's result (a CallToolResult when completed), read
	// for isError.
	Result []byte
}

// TaskStarted starts the span of a task that runs from its creation to
// its final status, named "task <tool>", and counts it among the tasks
// running (mcpgen.server.tasks). The span is a child of the span in ctx
// if there is one, else it continues the caller's trace from the
// creating request's _meta (traceparent), else from its HTTP header: the
// task's handler runs in the ctx returned, so its spans nest under the
// task's. Call ended once, with how the task ended: it ends the span and
// records the task's duration (mcpgen.server.task.duration).
func (t *Telemetry) TaskStarted(ctx context.Context, task Task) (_ context.Context, ended func(TaskEnd)) {
	if t == nil {
		return ctx, func(TaskEnd) {}
	}
	start := task.Created
	if start.IsZero() {
		start = time.Now()
	}
	tool := task.Tool
	if !t.tools[tool] {
		tool = other
	}
	var span trace.Span
	if t.tracing {
		parent := ctx
		if !trace.SpanContextFromContext(ctx).IsValid() {
			if _, ok := task.Meta["traceparent"].(string); ok {
				parent = t.propagator.Extract(ctx, metaCarrier(task.Meta))
			} else if task.Header != nil {
				parent = t.propagator.Extract(ctx, propagation.HeaderCarrier(task.Header))
			}
		}
		name := "task"
		if tool != other {
			name = "task " + tool
		}
		attrs := []attribute.KeyValue{keyTaskID.String(task.ID), keyToolName.String(task.Tool),
			keyOperationName.String("execute_tool")}
		if task.Session != "" {
			attrs = append(attrs, keySessionID.String(task.Session))
		}
		ctx, span = t.tracer.Start(parent, name, trace.WithTimestamp(start), trace.WithAttributes(attrs...))
	}
	toolAttr := keyToolName.String(tool)
	t.tasks.Add(ctx, 1, metric.WithAttributes(toolAttr))
	done := ctx
	return ctx, func(e TaskEnd) {
		ctx := context.WithoutCancel(done)
		t.tasks.Add(ctx, -1, metric.WithAttributes(toolAttr))
		status, errType := e.Status, ""
		switch status {
		case "completed":
			if isToolError(e.Result) {
				errType = "tool_error"
			}
		case "failed", "cancelled":
			errType = status
		default:
			status, errType = other, other
		}
		attrs := []attribute.KeyValue{toolAttr, keyTaskStatus.String(status)}
		if errType != "" {
			attrs = append(attrs, keyErrorType.String(errType))
		}
		t.taskDuration.Record(ctx, time.Since(start).Seconds(), metric.WithAttributes(attrs...))
		if span == nil {
			return
		}
		span.SetAttributes(keyTaskStatus.String(status))
		if errType != "" {
			span.SetAttributes(keyErrorType.String(errType))
			msg := e.Message
			if errType == "tool_error" {
				msg = toolErrorJSON(e.Result)
			}
			if msg == "" {
				msg = errType
			}
			span.SetStatus(codes.Error, msg)
		}
		span.End()
	}
}

// isToolError reports whether a CallToolResult in JSON has isError set.
func isToolError(result []byte) bool {
	return bytes.Contains(result, []byte(`"isError":true`))
}

// toolErrorJSON is the first text of an isError CallToolResult in JSON,
// for the span's status description.
func toolErrorJSON(result []byte) string {
	var r struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	json.Unmarshal(result, &r)
	for _, c := range r.Content {
		if c.Text != "" {
			const max = 200
			if len(c.Text) > max {
				return c.Text[:max]
			}
			return c.Text
		}
	}
	return ""
}
