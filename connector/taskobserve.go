package connector

import (
	"context"
	"net/http"
	"time"

	"github.com/mcpgen/mcpgen/connector/store"
	"github.com/mcpgen/mcpgen/connector/telemetry"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// observeTask starts the span and metrics of task rec, created here for a
// call of t (package telemetry; nothing when telemetry is off): the
// task's handler runs in the ctx returned, so its spans nest under the
// task's. Call ended once the handler returned: it reads the task's final
// status from the store (whichever replica ended it: a cancel, a lost
// lease) and ends the span.
func (tr *taskRunner) observeTask(ctx context.Context, r *http.Request, t *tool, rec store.Task, params *mcp.CallToolParamsRaw, ss *mcp.ServerSession) (_ context.Context, ended func()) {
	tel := tr.s.tel
	if tel == nil {
		return ctx, func() {}
	}
	task := telemetry.Task{ID: rec.ID, Tool: t.def.Name, Created: rec.Created, Header: r.Header}
	if params != nil {
		task.Meta = params.Meta
	}
	if ss != nil {
		task.Session = ss.ID()
	}
	ctx, end := tel.TaskStarted(ctx, task)
	return ctx, func() {
		rctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		final, err := tr.store.Get(rctx, rec.ID)
		if err != nil {
			final.Status = "" // recorded as unknown
		}
		end(telemetry.TaskEnd{Status: string(final.Status), Message: final.Message, Result: final.Result})
	}
}
