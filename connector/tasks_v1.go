package connector

// The experimental tasks of MCP 2025-11-25 (SEP-1686), in sessions at that
// revision, beside the tasks extension of 2026-07-28 (tasks.go) on the
// same endpoint.
//
// A client asks for a task with the task param of tools/call:
//
//	{"method":"tools/call","params":{"name":"export","arguments":{...},"task":{"ttl":60000}}}
//
// and gets a CreateTaskResult, {"task":{"taskId", "status", ...}}; it
// polls tasks/get, reads the tool's result with tasks/result (which waits
// until the task ends), lists its tasks with tasks/list and cancels one
// with tasks/cancel. The go-sdk knows none of this (its session would
// drop the task param, and answers tasks/* -32601), so these requests are
// answered here, at the HTTP level, before the go-sdk and the fast path;
// initialize and tools/list pass through the go-sdk and are completed by
// receiving middleware (the tasks capability, execution.taskSupport).
//
// The tasks are the same as 2026-07-28's: the same records in the store,
// the same runner, lease, cancel and Bus, so that any replica sharing the
// store answers for any task. Who may see a task: with authorization on,
// the token subject that created it (in any session); without, whoever
// holds its id, from any session, while tasks/list lists only the tasks
// of the session that created them (visibleTo).

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpgen/mcpgen/connector/store"
	"github.com/mcpgen/mcpgen/internal/httpedge"
	"github.com/mcpgen/mcpgen/internal/wire"
)

// relatedTaskKey is the _meta key that ties a message to a task
// (2025-11-25); tasks/result carries it.
const relatedTaskKey = "io.modelcontextprotocol/related-task"

// resultWait is how often tasks/result reads a task it waits on again,
// should the Bus have lost the message of its end.
const resultWait = time.Second

// taskRequestV1 is the part of a 2025-11-25 request the task methods read.
type taskRequestV1 struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  struct {
		Meta      mcp.Meta        `json:"_meta"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Task      json.RawMessage `json:"task"`
		TaskID    string          `json:"taskId"`
		Cursor    string          `json:"cursor"`
	} `json:"params"`
}

// serveV1 serves a request in session sid, at 2025-11-25: tools/call of a
// task tool and the task methods are answered here, anything else goes to
// next untouched.
func (tr *taskRunner) serveV1(w http.ResponseWriter, r *http.Request, sid string) {
	if r.Method == http.MethodGet {
		tr.serveStreamV1(w, r, sid) // tasks_v1_notify.go: notifications/tasks/status
		return
	}
	if r.Method != http.MethodPost || r.Body == nil {
		tr.next.ServeHTTP(w, r)
		return
	}
	body, ok := httpedge.ReadBody(w, r, tr.s.opts.maxBodyBytes)
	if !ok {
		return
	}
	pass := func() {
		r.Body, r.ContentLength = httpedge.NewBody(body), int64(len(body))
		tr.next.ServeHTTP(w, r)
	}
	var req taskRequestV1
	if json.Unmarshal(body, &req) != nil || req.JSONRPC != "2.0" || !wire.ValidID(req.ID) {
		pass() // not a request (a notification, an answer, a batch), or the go-sdk answers what is wrong
		return
	}
	switch req.Method {
	case "tools/call", "tasks/get", "tasks/result", "tasks/list", "tasks/cancel":
	default:
		pass()
		return
	}
	user, known := tr.s.fastPath.SessionUser(sid)
	if !known || user != subject(r) {
		pass() // the go-sdk answers an unknown session (404) or another's (403)
		return
	}
	owner := subject(r)
	if owner == "" {
		owner = sessionOwnerPrefix + sid // without authorization: listed in its session only
	}
	ctx := r.Context()
	p := &req.Params
	switch req.Method {
	case "tools/call":
		t, ok := tr.s.tools[p.Name]
		asTask := len(p.Task) > 0 && string(p.Task) != "null"
		switch {
		case !ok || t.hidden.Load() || (t.def.Task == TaskOptional && !asTask):
			pass() // an unknown tool, or a call answered at once
		case t.def.Task == TaskNever && asTask:
			tr.replyV1(w, req.ID, nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
				Message: "tool " + p.Name + " does not run as a task (its execution.taskSupport is forbidden); call it without the task param"})
		case t.def.Task == TaskNever:
			pass()
		case !asTask:
			tr.replyV1(w, req.ID, nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
				Message: "tool " + p.Name + " runs only as a task (its execution.taskSupport is required); call it with the task param"})
		default:
			ss := tr.s.fastPath.Session(sid)
			if ss == nil {
				// Parked (park.go): the task's questions and notifications
				// travel on the go-sdk session.
				if !tr.s.bringBack(w, r, sid) {
					return
				}
				if ss = tr.s.fastPath.Session(sid); ss == nil {
					pass() // it has ended: the go-sdk answers 404
					return
				}
			}
			tr.s.fastPath.Pin(sid) // the task holds its go-sdk session: not parked again
			params := &mcp.CallToolParamsRaw{Meta: p.Meta, Name: p.Name, Arguments: p.Arguments}
			// The handler's questions name the task (tasks_v1_notify.go).
			rt, named := tr.withV1Task(r)
			rec, err := tr.create(rt, t, owner, params, ss)
			if err != nil {
				rec.ID = ""
			}
			named(rec.ID)
			if err != nil {
				tr.replyV1(w, req.ID, nil, err)
				return
			}
			tr.replyV1(w, req.ID, map[string]any{"task": taskV1(rec)}, nil)
		}
	case "tasks/list":
		res, err := tr.listV1(ctx, owner, p.Cursor)
		tr.replyV1(w, req.ID, res, err)
	case "tasks/get":
		rec, err := tr.lookupAs(ctx, owner, p.TaskID)
		if err != nil {
			tr.replyV1(w, req.ID, nil, err)
			return
		}
		tr.replyV1(w, req.ID, taskV1(rec), nil)
	case "tasks/cancel":
		res, err := tr.cancelV1(ctx, owner, p.TaskID)
		tr.replyV1(w, req.ID, res, err)
	case "tasks/result":
		rec, err := tr.awaitV1(ctx, owner, p.TaskID)
		if ctx.Err() != nil {
			return // the client left
		}
		if err != nil {
			tr.replyV1(w, req.ID, nil, err)
			return
		}
		res, err := resultV1(rec)
		tr.replyV1(w, req.ID, res, err)
	}
}

// taskV1 is a task on the wire of 2025-11-25 (Task): ttl and pollInterval
// in milliseconds.
func taskV1(rec store.Task) map[string]any {
	m := map[string]any{
		"taskId":        rec.ID,
		"status":        rec.Status,
		"createdAt":     rec.Created.UTC().Format(time.RFC3339Nano),
		"lastUpdatedAt": rec.Updated.UTC().Format(time.RFC3339Nano),
		"ttl":           rec.TTL.Milliseconds(),
		"pollInterval":  taskPollInterval.Milliseconds(),
	}
	if rec.Message != "" {
		m["statusMessage"] = rec.Message
	}
	return m
}

// listV1 answers tasks/list: the caller's tasks, newest first, a page at
// a time.
// sessionOwnerPrefix starts the owner of a task created without
// authorization in a 2025-11-25 session: "session " and the session's id.
const sessionOwnerPrefix = "session "

func (tr *taskRunner) listV1(ctx context.Context, owner, cursor string) (map[string]any, error) {
	size := tr.s.opts.pageSize
	if size <= 0 {
		size = mcp.DefaultPageSize
	}
	recs, next, err := tr.store.List(ctx, owner, cursor, size)
	if err != nil {
		if cursor != "" {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "listing the tasks: " + err.Error()}
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "listing the tasks: " + err.Error()}
	}
	tasks := make([]map[string]any, 0, len(recs))
	for _, rec := range recs {
		if !rec.Status.Final() && !rec.Lease.IsZero() && time.Now().After(rec.Lease) {
			rec = tr.orphaned(ctx, rec)
		}
		tasks = append(tasks, taskV1(rec))
	}
	res := map[string]any{"tasks": tasks}
	if next != "" {
		res["nextCursor"] = next
	}
	return res, nil
}

// cancelV1 answers tasks/cancel: the task, cancelled. A task that ended
// already cannot be (-32602, as 2025-11-25 says).
func (tr *taskRunner) cancelV1(ctx context.Context, owner, id string) (map[string]any, error) {
	rec, err := tr.lookupAs(ctx, owner, id)
	if err != nil {
		return nil, err
	}
	if rec.Status.Final() {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("task %q has ended (%s): it cannot be cancelled", id, rec.Status)}
	}
	if err := tr.cancel(ctx, rec); err != nil {
		return nil, err
	}
	if after, err := tr.store.Get(ctx, id); err == nil {
		rec = after
	}
	return taskV1(rec), nil
}

// awaitV1 returns the task once it has ended, or an error; it waits as
// long as ctx lasts.
func (tr *taskRunner) awaitV1(ctx context.Context, owner, id string) (store.Task, error) {
	rec, err := tr.lookupAs(ctx, owner, id)
	if err != nil || rec.Status.Final() {
		return rec, err
	}
	// Watching before the next read: an end between the two is heard.
	wt := tr.watchers.watch(tr, []string{id})
	defer tr.watchers.unwatch(wt)
	tick := time.NewTicker(resultWait)
	defer tick.Stop()
	for {
		rec, err = tr.lookupAs(ctx, owner, id)
		if err != nil || rec.Status.Final() {
			return rec, err
		}
		select {
		case <-ctx.Done():
			return rec, ctx.Err()
		case <-wt.wake:
			wt.take()
		case <-tick.C:
		}
	}
}

// resultV1 answers tasks/result of an ended task: the tool's result, with
// the task named in its _meta; the error the task failed with; for a
// cancelled task, an error saying so.
func resultV1(rec store.Task) (map[string]any, error) {
	switch rec.Status {
	case store.TaskCompleted:
		var res map[string]any
		if err := json.Unmarshal(rec.Result, &res); err != nil || res == nil {
			res = map[string]any{"content": []any{}}
		}
		delete(res, "resultType") // 2026-07-28's, as tasks/get inlines it
		meta, _ := res["_meta"].(map[string]any)
		if meta == nil {
			meta = map[string]any{}
		}
		meta[relatedTaskKey] = map[string]any{"taskId": rec.ID}
		res["_meta"] = meta
		return res, nil
	case store.TaskFailed:
		we := &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: rec.Message}
		if len(rec.Result) > 0 {
			json.Unmarshal(rec.Result, we)
		}
		return nil, we
	}
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("task %q was cancelled: it has no result", rec.ID)}
}

// replyV1 writes the answer to a request of a 2025-11-25 session: a plain
// JSON response (the client accepts it in place of an event stream).
func (tr *taskRunner) replyV1(w http.ResponseWriter, id json.RawMessage, res map[string]any, err error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	if err != nil {
		w.Write(wire.ErrorResponse(id, err))
		return
	}
	b, merr := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": res})
	if merr != nil {
		w.Write(wire.ErrorResponse(id, merr))
		return
	}
	w.Write(b)
}

// taskSupport is what tools/list of a 2025-11-25 session shows as the
// tool's execution.taskSupport: "" for a tool that never runs as a task.
func (s *Server) taskSupport(name string) string {
	t, ok := s.tools[name]
	if !ok {
		return ""
	}
	switch t.def.Task {
	case TaskOptional:
		return "optional"
	case TaskRequired:
		return "required"
	}
	return ""
}

// tasksV1Capability is the tasks capability of a server with task tools,
// in the initialize result of a 2025-11-25 session.
var tasksV1Capability = map[string]any{
	"list":     map[string]any{},
	"cancel":   map[string]any{},
	"requests": map[string]any{"tools": map[string]any{"call": map[string]any{}}},
}

// announceTasksV1 is receiving middleware of a server with task tools: in
// a session at 2025-11-25, initialize declares the tasks capability and
// tools/list shows each tool's execution.taskSupport (the fast path shows
// the same list: fastDispatcher.TaskSupport).
func (s *Server) announceTasksV1(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil {
			return res, err
		}
		switch x := res.(type) {
		case *mcp.InitializeResult:
			if x != nil && method == "initialize" && x.ProtocolVersion == wire.TasksV1Version {
				return initializeV1{x}, nil
			}
		case *mcp.ListToolsResult:
			if ss, ok := req.GetSession().(*mcp.ServerSession); ok && x != nil && ss != nil {
				if p := ss.InitializeParams(); p != nil && p.ProtocolVersion == wire.TasksV1Version {
					return wire.ListToolsV1(x, s.taskSupport), nil
				}
			}
		}
		return res, err
	}
}

// initializeV1 is an initialize result with the tasks capability, which
// mcp.ServerCapabilities lacks.
type initializeV1 struct{ *mcp.InitializeResult }

func (r initializeV1) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(r.InitializeResult)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	var caps map[string]any
	json.Unmarshal(m["capabilities"], &caps)
	if caps == nil {
		caps = map[string]any{}
	}
	caps["tasks"] = tasksV1Capability
	if m["capabilities"], err = json.Marshal(caps); err != nil {
		return nil, err
	}
	return json.Marshal(m)
}
