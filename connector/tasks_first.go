package connector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/connector/store"
	"github.com/mcpgen/mcpgen/internal/taskctx"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A tool marked askfirst (ToolDef.TaskAsksFirst) asks its questions before
// its task is created, the composition of SEP-2322 and SEP-2663: the
// handler runs in the tools/call itself, what it asks goes back as an
// input-required result (no task yet), the client calls the tool again
// with the answers and the requestState, the handler runs again from the
// start, and when it calls mcpgen.StartTask the task is created: that
// tools/call answers the CreateTaskResult, and the handler goes on as the
// task, as if the task had run it from the start.

// firstRound is what one tools/call of an askfirst tool ends with: the
// task its handler started, or, when it started none, what it returned.
type firstRound struct {
	task store.Task
	res  *mcp.CallToolResult
	err  error
}

// askFirst serves one tools/call of the askfirst tool t from a client that
// declared the tasks extension.
func (tr *taskRunner) askFirst(w http.ResponseWriter, r *http.Request, reqID json.RawMessage, t *tool, params *mcp.CallToolParamsRaw,
	requestState string, responses map[string]json.RawMessage) {
	params.RequestState = requestState
	for k, b := range responses {
		a, err := parseAnswer(b)
		if err != nil {
			tr.reply(w, reqID, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("inputResponses[%q] is not an answer: %v", k, err)})
			return
		}
		if params.InputResponses == nil {
			params.InputResponses = mcp.InputResponseMap{}
		}
		params.InputResponses[k] = a
	}
	owner := subject(r)
	// The handler may outlive the request, as the task: it keeps the
	// request's values (the caller's identity), and ends with the request
	// only until its task exists.
	ctx, cancel := context.WithCancelCause(context.WithoutCancel(r.Context()))
	unhook := context.AfterFunc(r.Context(), func() { cancel(context.Cause(r.Context())) })
	rt := &runningTask{cancel: cancel}
	call := &mcp.CallToolRequest{Params: params,
		Extra: &mcp.RequestExtra{TokenInfo: auth.TokenInfoFromContext(r.Context()), Header: r.Header.Clone()}}
	done := make(chan firstRound, 1)
	var (
		mu  sync.Mutex
		id  string      // the task's, once started
		ttl *time.Timer // ends the task when it outlives its ttl
	)
	taskID := func() string {
		mu.Lock()
		defer mu.Unlock()
		if id == "-" {
			return ""
		}
		return id
	}
	start := func() error {
		mu.Lock()
		defer mu.Unlock()
		if id == "-" {
			return errors.New("mcpgen: StartTask after the handler returned")
		}
		if id != "" {
			return nil // a later run of the handler: the task exists
		}
		if ctx.Err() != nil {
			return context.Cause(ctx) // the client went away
		}
		rec, err := tr.newTask(ctx, t, owner)
		if err != nil {
			return err
		}
		if !unhook() {
			// The request ended while the task was created: it will never
			// be told, so the task ends at once.
			tr.edit(rec.ID, store.TaskUpdate{Status: store.TaskCancelled, Message: "the client went away before the task was created"})
			return context.Cause(ctx)
		}
		id = rec.ID
		tr.start(id, rt)
		ttl = time.AfterFunc(rec.TTL, func() { cancel(errors.New("the task outlived its ttl")) })
		done <- firstRound{task: rec}
		return nil
	}
	ctx = taskctx.WithStart(ctx, start)
	ctx = taskctx.WithProgress(ctx, tr.progress(taskID))
	go func() {
		res, err := t.handle(ctx, call)
		mu.Lock()
		tid := id
		if tid == "" {
			id = "-" // too late to start: the answer below is the call's
		}
		mu.Unlock()
		if tid == "" {
			unhook()
			cancel(nil)
			done <- firstRound{res: res, err: err}
			return
		}
		defer ttl.Stop()
		defer tr.stopped(tid)
		if tr.settle(ctx, tid, rt, call, res, err) {
			tr.run(ctx, t, tid, rt, call)
		}
	}()
	round := <-done
	switch {
	case round.task.ID != "":
		tr.reply(w, reqID, createTaskResult(round.task), nil)
	case round.err != nil:
		tr.reply(w, reqID, nil, round.err)
	default:
		res, err := roundResult(round.res)
		tr.reply(w, reqID, res, err)
	}
}

// roundResult is the answer to a tools/call whose handler ended without
// starting its task: its questions (an input-required result with the
// signed requestState, and no task), or its result.
func roundResult(res *mcp.CallToolResult) (map[string]any, error) {
	if res == nil {
		res = &mcp.CallToolResult{}
	}
	b, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	m := map[string]any{}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	m["resultType"] = "complete"
	if len(res.InputRequests) > 0 {
		m["resultType"] = "input_required"
		delete(m, "content") // an input-required result has no content
	} else if m["content"] == nil {
		m["content"] = []any{}
	}
	return m, nil
}
