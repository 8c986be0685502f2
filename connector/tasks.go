package connector

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/internal/wire"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TaskSupport says whether a tool runs as a task (//mcpgen:tool task).
type TaskSupport uint8

const (
	// TaskNever: the tool always answers at once (the default).
	TaskNever TaskSupport = iota
	// TaskOptional: the tool runs as a task for a client that supports
	// tasks, at once for the others.
	TaskOptional
	// TaskRequired: the tool runs only as a task; a client without tasks
	// gets the protocol's error.
	TaskRequired
)

// TasksExtension is the name of the MCP tasks extension (SEP-2663), in
// capabilities.extensions of server/discover and of a client's request.
const TasksExtension = "io.modelcontextprotocol/tasks"

// Defaults of tasks: how long a task's record lasts, and how often a
// client is asked to poll.
const (
	taskTTL          = time.Hour
	taskPollInterval = 200 * time.Millisecond
)

// taskRunner serves the tasks of one server: it creates them on tools/call,
// runs their handlers and answers tasks/get, tasks/update and tasks/cancel
// of MCP 2026-07-28. The records live in a TaskStore; what only the
// replica running a task has (its cancel function, the answers it waits
// for) lives here.
type taskRunner struct {
	s     *Server
	store TaskStore
	next  http.Handler

	mu      sync.Mutex
	running map[string]*runningTask
	editMu  sync.Mutex // serializes edit
}

// runningTask is a task whose handler runs in this process.
type runningTask struct {
	cancel  context.CancelCauseFunc
	mu      sync.Mutex
	pending mcp.InputRequestMap  // questions not answered yet
	answers mcp.InputResponseMap // answers received for them
	ready   chan struct{}        // closed when every question has an answer
}

// taskProgressKey carries, in a task's ctx, what records its progress.
type taskProgressKey struct{}

// TaskProgress records msg as the statusMessage of the task ctx runs,
// and reports whether ctx runs one (mcpgen.Progress calls it).
func TaskProgress(ctx context.Context, msg string) bool {
	f, ok := ctx.Value(taskProgressKey{}).(func(string))
	if ok {
		f(msg)
	}
	return ok
}

// errTaskCancelled is the cause of a task's ctx when tasks/cancel ended it.
var errTaskCancelled = errors.New("the task was cancelled")

func (s *Server) hasTaskTools() bool {
	for _, t := range s.tools {
		if t.def.Task != TaskNever {
			return true
		}
	}
	return false
}

// wrapTasks puts the task methods in front of next (2026-07-28 requests
// only; everything else passes through untouched).
func (s *Server) wrapTasks(next http.Handler) http.Handler {
	if !s.hasTaskTools() {
		return next
	}
	if s.tasks == nil {
		s.tasks = &taskRunner{s: s, store: s.opts.taskStore, running: map[string]*runningTask{}}
		if s.tasks.store == nil {
			s.tasks.store = NewMemoryTaskStore(0)
		}
	}
	s.tasks.next = next
	return s.tasks
}

// taskRequest is the part of a JSON-RPC request the task methods read.
type taskRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  struct {
		Meta           mcp.Meta                   `json:"_meta"`
		Name           string                     `json:"name"`
		Arguments      json.RawMessage            `json:"arguments"`
		TaskID         string                     `json:"taskId"`
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
		RequestState   string                     `json:"requestState"`
	} `json:"params"`
}

func (tr *taskRunner) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m := r.Header.Get("Mcp-Method")
	if r.Method != http.MethodPost || r.Header.Get("Mcp-Protocol-Version") < wire.StatelessVersion || r.Body == nil ||
		(m != "tools/call" && m != "tasks/get" && m != "tasks/update" && m != "tasks/cancel") {
		tr.next.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, tr.s.opts.maxBodyBytes))
	r.Body.Close()
	if err != nil {
		http.Error(w, "request body too large or unreadable", http.StatusRequestEntityTooLarge)
		return
	}
	pass := func() {
		r.Body, r.ContentLength = readBody(body), int64(len(body))
		tr.next.ServeHTTP(w, r)
	}
	var req taskRequest
	if json.Unmarshal(body, &req) != nil || req.JSONRPC != "2.0" || !wire.ValidID(req.ID) || req.Method != m ||
		req.Params.Meta[mcp.MetaKeyProtocolVersion] == nil || req.Params.Meta[mcp.MetaKeyClientCapabilities] == nil {
		pass() // the go-sdk answers what is wrong
		return
	}
	declared := declaresTasks(req.Params.Meta)
	if m == "tools/call" {
		t, ok := tr.s.tools[req.Params.Name]
		if !ok || t.hidden.Load() || t.def.Task == TaskNever || (!declared && t.def.Task == TaskOptional) {
			pass()
			return
		}
		if !declared {
			tr.reply(w, req.ID, nil, missingTasks("tool "+t.def.Name+" runs only as a task"))
			return
		}
		if name := strings.TrimSpace(r.Header.Get("Mcp-Name")); name != req.Params.Name {
			pass() // the go-sdk answers the header mismatch
			return
		}
		res, err := tr.create(r, t, &req)
		tr.reply(w, req.ID, res, err)
		return
	}
	if !declared {
		tr.reply(w, req.ID, nil, missingTasks(m+" needs the tasks extension"))
		return
	}
	if name := strings.TrimSpace(r.Header.Get("Mcp-Name")); name != req.Params.TaskID {
		tr.reply(w, req.ID, nil, &jsonrpc.Error{Code: mcp.CodeHeaderMismatch,
			Message: fmt.Sprintf("Mcp-Name header %q does not match params.taskId %q", name, req.Params.TaskID)})
		return
	}
	rec, err := tr.lookup(r, req.Params.TaskID)
	if err != nil {
		tr.reply(w, req.ID, nil, err)
		return
	}
	switch m {
	case "tasks/get":
		tr.reply(w, req.ID, detailedTask(rec), nil)
	case "tasks/update":
		tr.reply(w, req.ID, ack(), tr.update(rec, req.Params.InputResponses))
	case "tasks/cancel":
		tr.cancel(rec)
		tr.reply(w, req.ID, ack(), nil)
	}
}

// declaresTasks reports whether a request's client capabilities list the
// tasks extension.
func declaresTasks(meta mcp.Meta) bool {
	b, _ := json.Marshal(meta[mcp.MetaKeyClientCapabilities])
	var caps struct {
		Extensions map[string]json.RawMessage `json:"extensions"`
	}
	json.Unmarshal(b, &caps)
	_, ok := caps.Extensions[TasksExtension]
	return ok
}

// missingTasks is -32021 naming the tasks extension.
func missingTasks(why string) error {
	data, _ := json.Marshal(map[string]any{"requiredCapabilities": map[string]any{
		"extensions": map[string]any{TasksExtension: struct{}{}}}})
	return &jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities,
		Message: "Missing required client capability: " + why + "; declare the extension " + TasksExtension, Data: data}
}

// subject is the authenticated caller of r, "" without auth.
func subject(r *http.Request) string {
	if ti := auth.TokenInfoFromContext(r.Context()); ti != nil {
		return ti.UserID
	}
	return ""
}

// lookup returns the task id names if the caller may see it: a task is
// visible only to the subject who created it.
func (tr *taskRunner) lookup(r *http.Request, id string) (*TaskRecord, error) {
	rec, err := tr.store.Get(r.Context(), id)
	if err == nil && rec.Subject != subject(r) {
		err = ErrTaskNotFound
	}
	if errors.Is(err, ErrTaskNotFound) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown task %q (it never existed, expired, or belongs to someone else)", id)}
	}
	return rec, err
}

// create stores a new task for a call of t and starts its handler; the
// record is in the store before the client learns the task's id.
func (tr *taskRunner) create(r *http.Request, t *tool, req *taskRequest) (map[string]any, error) {
	now := time.Now().UTC()
	rec := &TaskRecord{ID: rand.Text(), Subject: subject(r), Tool: t.def.Name, Status: TaskWorking,
		Created: now, Updated: now, TTL: taskTTL}
	if err := tr.store.Create(r.Context(), rec); err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "creating the task: " + err.Error()}
	}
	// The task outlives the request: it keeps the request's values (the
	// caller's identity), not its cancellation.
	ctx, cancel := context.WithCancelCause(context.WithoutCancel(r.Context()))
	ctx, stop := context.WithTimeoutCause(ctx, rec.TTL, errors.New("the task outlived its ttl"))
	rt := &runningTask{cancel: cancel}
	tr.mu.Lock()
	tr.running[rec.ID] = rt
	tr.mu.Unlock()
	params := &mcp.CallToolParamsRaw{Meta: req.Params.Meta, Name: req.Params.Name, Arguments: req.Params.Arguments}
	extra := &mcp.RequestExtra{TokenInfo: auth.TokenInfoFromContext(r.Context()), Header: r.Header.Clone()}
	ctx = context.WithValue(ctx, taskProgressKey{}, func(msg string) {
		tr.edit(rec.ID, func(r *TaskRecord) {
			if r.Status == TaskWorking {
				r.Message = msg
			}
		})
	})
	go func() {
		defer stop()
		defer func() {
			tr.mu.Lock()
			delete(tr.running, rec.ID)
			tr.mu.Unlock()
		}()
		tr.run(ctx, t, rec.ID, rt, params, extra)
	}()
	return createTaskResult(rec), nil
}

// run calls the handler until it ends; each time it asks the client
// something, the task waits in input_required for the answers
// (tasks/update) and the handler runs again with them.
func (tr *taskRunner) run(ctx context.Context, t *tool, id string, rt *runningTask, params *mcp.CallToolParamsRaw, extra *mcp.RequestExtra) {
	for {
		res, err := t.handle(ctx, &mcp.CallToolRequest{Params: params, Extra: extra})
		if ctx.Err() != nil {
			tr.finish(id, func(rec *TaskRecord) {
				rec.Status, rec.Message = TaskCancelled, context.Cause(ctx).Error()
				if !errors.Is(context.Cause(ctx), errTaskCancelled) {
					rec.Status = TaskFailed
					rec.Error, _ = json.Marshal(&jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: rec.Message})
				}
			})
			return
		}
		if err != nil {
			var we *jsonrpc.Error
			if !errors.As(err, &we) {
				we = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
			}
			tr.finish(id, func(rec *TaskRecord) {
				rec.Status, rec.Message = TaskFailed, we.Message
				rec.Error, _ = json.Marshal(we)
			})
			return
		}
		if res != nil && len(res.InputRequests) > 0 {
			answers, ok := tr.wait(ctx, id, rt, res.InputRequests)
			if !ok {
				continue // cancelled: the next round reports it
			}
			params.RequestState, params.InputResponses = res.RequestState, answers
			continue
		}
		result, merr := json.Marshal(res)
		if merr == nil && !bytes.Contains(result, []byte(`"resultType"`)) && len(result) > 1 {
			// The inlined result is a complete CallToolResult of 2026-07-28.
			result = append([]byte(`{"resultType":"complete",`), result[1:]...)
			if string(result) == `{"resultType":"complete",}` {
				result = []byte(`{"resultType":"complete"}`)
			}
		}
		tr.finish(id, func(rec *TaskRecord) {
			if merr != nil {
				rec.Status, rec.Message = TaskFailed, merr.Error()
				rec.Error, _ = json.Marshal(&jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: merr.Error()})
				return
			}
			rec.Status, rec.Result = TaskCompleted, result
		})
		return
	}
}

// wait parks the task in input_required until every question has an
// answer, and returns the answers; false when the task was cancelled.
func (tr *taskRunner) wait(ctx context.Context, id string, rt *runningTask, questions mcp.InputRequestMap) (mcp.InputResponseMap, bool) {
	rt.mu.Lock()
	rt.pending, rt.answers, rt.ready = questions, mcp.InputResponseMap{}, make(chan struct{})
	ready := rt.ready
	rt.mu.Unlock()
	tr.setPending(id, questions)
	select {
	case <-ready:
	case <-ctx.Done():
		return nil, false
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	answers := rt.answers
	rt.pending, rt.answers = nil, nil
	tr.edit(id, func(rec *TaskRecord) { rec.Status, rec.InputRequests = TaskWorking, nil })
	return answers, true
}

// setPending records the questions a task waits on.
func (tr *taskRunner) setPending(id string, questions mcp.InputRequestMap) {
	b, err := json.Marshal(questions)
	if err != nil {
		tr.s.logger.Error("task questions", "task", id, "err", err)
	}
	tr.edit(id, func(rec *TaskRecord) { rec.Status, rec.InputRequests = TaskInputRequired, b })
}

// update hands the client's answers to the task waiting for them; answers
// to questions not asked are ignored, an answer that is not one is -32602.
func (tr *taskRunner) update(rec *TaskRecord, raw map[string]json.RawMessage) error {
	tr.mu.Lock()
	rt := tr.running[rec.ID]
	tr.mu.Unlock()
	if rt == nil || rec.Status != TaskInputRequired {
		return nil // nothing waits: the update changes nothing
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.pending == nil {
		return nil
	}
	left := mcp.InputRequestMap{}
	answers := mcp.InputResponseMap{}
	for k, q := range rt.pending {
		b, ok := raw[k]
		if !ok {
			left[k] = q
			continue
		}
		var one mcp.InputResponseMap
		if err := json.Unmarshal([]byte(`{"a":`+string(b)+`}`), &one); err != nil || one["a"] == nil {
			return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("inputResponses[%q] is not an answer to %T", k, q)}
		}
		answers[k] = one["a"]
	}
	for k, a := range answers {
		rt.answers[k] = a
	}
	rt.pending = left
	if len(left) == 0 {
		close(rt.ready)
		return nil
	}
	tr.setPending(rec.ID, left)
	return nil
}

// cancel ends a running task; a terminal one stays as it is.
func (tr *taskRunner) cancel(rec *TaskRecord) {
	if rec.Status.Terminal() {
		return
	}
	tr.mu.Lock()
	rt := tr.running[rec.ID]
	tr.mu.Unlock()
	if rt != nil {
		rt.cancel(errTaskCancelled)
	}
	// Reported cancelled at once; the handler sees its ctx end.
	tr.finish(rec.ID, func(r *TaskRecord) { r.Status, r.Message = TaskCancelled, errTaskCancelled.Error() })
}

// edit changes a task's record unless it has ended. Edits in this process
// are serialized, so that a late one cannot undo an ending.
func (tr *taskRunner) edit(id string, change func(*TaskRecord)) {
	tr.editMu.Lock()
	defer tr.editMu.Unlock()
	ctx := context.Background()
	rec, err := tr.store.Get(ctx, id)
	if err != nil || rec.Status.Terminal() {
		return
	}
	change(rec)
	rec.Updated = time.Now().UTC()
	if err := tr.store.Update(ctx, rec); err != nil && !errors.Is(err, ErrTaskNotFound) {
		tr.s.logger.Error("task update", "task", id, "err", err)
	}
}

// finish ends a task (the first ending wins).
func (tr *taskRunner) finish(id string, end func(*TaskRecord)) {
	tr.edit(id, func(rec *TaskRecord) {
		end(rec)
		rec.InputRequests = nil
	})
}

// taskFields are the fields of a Task on the wire (2026-07-28).
func taskFields(rec *TaskRecord) map[string]any {
	m := map[string]any{
		"taskId":         rec.ID,
		"status":         rec.Status,
		"createdAt":      rec.Created.Format(time.RFC3339Nano),
		"lastUpdatedAt":  rec.Updated.Format(time.RFC3339Nano),
		"ttlMs":          rec.TTL.Milliseconds(),
		"pollIntervalMs": taskPollInterval.Milliseconds(),
	}
	if rec.Message != "" {
		m["statusMessage"] = rec.Message
	}
	return m
}

// createTaskResult answers the tools/call that created a task.
func createTaskResult(rec *TaskRecord) map[string]any {
	m := taskFields(rec)
	m["resultType"] = "task"
	return m
}

// detailedTask answers tasks/get: the task with its result, error or
// questions inlined.
func detailedTask(rec *TaskRecord) map[string]any {
	m := taskFields(rec)
	m["resultType"] = "complete"
	switch {
	case rec.Status == TaskCompleted && rec.Result != nil:
		m["result"] = rec.Result
	case rec.Status == TaskFailed && rec.Error != nil:
		m["error"] = rec.Error
	case rec.Status == TaskInputRequired && rec.InputRequests != nil:
		m["inputRequests"] = rec.InputRequests
	}
	return m
}

func ack() map[string]any { return map[string]any{"resultType": "complete"} }

// reply writes the answer to a task method: the result, or the error with
// the HTTP status 2026-07-28 gives its code.
func (tr *taskRunner) reply(w http.ResponseWriter, id json.RawMessage, res map[string]any, err error) {
	w.Header().Set("Content-Type", "application/json")
	if err != nil {
		w.WriteHeader(errorStatus(true, err))
		w.Write(wire.ErrorResponse(id, err))
		return
	}
	if res != nil {
		res["_meta"] = mcp.Meta{mcp.MetaKeyServerInfo: tr.s.impl}
	}
	b, merr := json.Marshal(res)
	if merr != nil {
		w.WriteHeader(http.StatusOK)
		w.Write(wire.ErrorResponse(id, merr))
		return
	}
	var out bytes.Buffer
	out.WriteString(`{"jsonrpc":"2.0","id":`)
	out.Write(id)
	out.WriteString(`,"result":`)
	out.Write(b)
	out.WriteString("}")
	w.WriteHeader(http.StatusOK)
	w.Write(out.Bytes())
}
