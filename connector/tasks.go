package connector

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/internal/httpedge"
	"github.com/mcpgen/mcpgen/internal/taskctx"
	"github.com/mcpgen/mcpgen/internal/wire"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpgen/mcpgen/connector/store"
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

// tasksExtension is the name of the MCP tasks extension (SEP-2663), in
// capabilities.extensions of server/discover and of a client's request.
const tasksExtension = "io.modelcontextprotocol/tasks"

// Defaults of tasks: how long a task's record lasts, how often a client
// is asked to poll, and how long a task's record vouches for the replica
// running it.
const (
	taskTTL          = time.Hour
	taskPollInterval = 200 * time.Millisecond
	// taskLease: the replica running a task renews the lease in its record
	// every third of it; a replica answering for a task whose lease ran
	// out reports it failed, so a task whose replica died is never
	// working forever.
	taskLease = 30 * time.Second
)

// topicTasks carries, between replicas sharing a store, what must reach
// the replica running a task: a cancel, or the answers of tasks/update.
const topicTasks = "tasks"

// taskMessage is one message on topicTasks.
type taskMessage struct {
	ID      string                     `json:"id"`
	Cancel  bool                       `json:"cancel,omitempty"`
	Answers map[string]json.RawMessage `json:"answers,omitempty"`
}

// taskRunner serves the tasks of one server: it creates them on tools/call,
// runs their handlers and answers tasks/get, tasks/update and tasks/cancel
// of MCP 2026-07-28. The records live in the server's store (WithStore),
// so that any replica sharing it answers for any task; what only the
// replica running a task has (its cancel function, the answers it waits
// for) lives here, and reaches it over the store's Bus.
type taskRunner struct {
	s     *Server
	store store.Tasks
	bus   store.Bus
	next  http.Handler
	lease time.Duration // taskLease (tests shorten it)

	mu      sync.Mutex
	running map[string]*runningTask
	// stopListen ends the goroutine that renews leases and hears
	// topicTasks; it runs while a task runs here.
	stopListen context.CancelFunc
	// watchers are the subscriptions/listen streams here that follow
	// tasks (tasks_listen.go).
	watchers taskWatchers
	// v1streams are the event streams of 2025-11-25 sessions here, sent
	// notifications/tasks/status (tasks_v1_notify.go).
	v1streams v1Streams
}

// runningTask is a task whose handler runs in this process.
type runningTask struct {
	cancel  context.CancelCauseFunc
	mu      sync.Mutex
	pending mcp.InputRequestMap  // questions not answered yet
	answers mcp.InputResponseMap // answers received for them
	ready   chan struct{}        // closed when every question has an answer
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

// wrapTasks puts the task methods in front of next (2026-07-28 requests,
// and those of sessions at 2025-11-25: tasks_v1.go; everything else
// passes through untouched).
func (s *Server) wrapTasks(next http.Handler) http.Handler {
	if !s.hasTaskTools() {
		return next
	}
	if s.tasks == nil {
		s.tasks = &taskRunner{s: s, store: s.state.Tasks(), bus: s.state.Bus(), lease: taskLease,
			running: map[string]*runningTask{}}
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
	if sid := r.Header.Get("Mcp-Session-Id"); sid != "" && tr.s.sessionVersion(sid) == wire.TasksV1Version {
		tr.serveV1(w, r, sid) // tasks_v1.go: the tasks of 2025-11-25
		return
	}
	m := r.Header.Get("Mcp-Method")
	if r.Method != http.MethodPost || r.Header.Get("Mcp-Protocol-Version") < wire.StatelessVersion || r.Body == nil ||
		(m != "tools/call" && m != "tasks/get" && m != "tasks/update" && m != "tasks/cancel" && m != "subscriptions/listen") {
		tr.next.ServeHTTP(w, r)
		return
	}
	body, ok := httpedge.ReadBody(w, r, tr.s.opts.maxBodyBytes)
	if !ok {
		return
	}
	if m == "subscriptions/listen" {
		tr.serveListen(w, r, body) // tasks_listen.go: notifications/tasks
		return
	}
	pass := func() {
		r.Body, r.ContentLength = httpedge.NewBody(body), int64(len(body))
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
		params := &mcp.CallToolParamsRaw{Meta: req.Params.Meta, Name: req.Params.Name, Arguments: req.Params.Arguments}
		if t.def.TaskAsksFirst {
			tr.askFirst(w, r, req.ID, t, params, req.Params.RequestState, req.Params.InputResponses) // tasks_first.go
			return
		}
		rec, err := tr.create(r, t, subject(r), params, nil)
		if err != nil {
			tr.reply(w, req.ID, nil, err)
			return
		}
		tr.reply(w, req.ID, createTaskResult(rec), nil)
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
		tr.reply(w, req.ID, ack(), tr.update(r.Context(), rec, req.Params.InputResponses))
	case "tasks/cancel":
		tr.reply(w, req.ID, ack(), tr.cancel(r.Context(), rec))
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
	_, ok := caps.Extensions[tasksExtension]
	return ok
}

// missingTasks is -32021 naming the tasks extension.
func missingTasks(why string) error {
	data, _ := json.Marshal(map[string]any{"requiredCapabilities": map[string]any{
		"extensions": map[string]any{tasksExtension: struct{}{}}}})
	return &jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities,
		Message: "Missing required client capability: " + why + "; declare the extension " + tasksExtension, Data: data}
}

// subject is the authenticated caller of r, "" without auth.
func subject(r *http.Request) string {
	if ti := auth.TokenInfoFromContext(r.Context()); ti != nil {
		return ti.UserID
	}
	return ""
}

// lookup returns the task id names if the caller may see it: a task is
// visible only to the subject who created it. A task whose runner stopped
// renewing its lease is failed first.
func (tr *taskRunner) lookup(r *http.Request, id string) (store.Task, error) {
	return tr.lookupAs(r.Context(), subject(r), id)
}

// visibleTo reports whether a task owned by recOwner may be seen by a
// caller who would own their tasks as owner. With authorization, owners
// are token subjects and must match. Without, a task is whoever holds its
// unguessable id's, from any session on any replica: its owner ("" for a
// 2026-07-28 request, "session ID" for a 2025-11-25 session, whose
// tasks/list shows only its own) only scopes listing.
func visibleTo(recOwner, owner string) bool {
	return recOwner == owner || (anonymousOwner(recOwner) && anonymousOwner(owner))
}

// anonymousOwner reports whether owner is that of a caller without
// authorization.
func anonymousOwner(owner string) bool {
	return owner == "" || strings.HasPrefix(owner, sessionOwnerPrefix)
}

// lookupAs is lookup for the caller owner (a store.Task's Owner).
func (tr *taskRunner) lookupAs(ctx context.Context, owner, id string) (store.Task, error) {
	rec, err := tr.store.Get(ctx, id)
	if err == nil && !visibleTo(rec.Owner, owner) {
		err = store.ErrNotFound
	}
	if errors.Is(err, store.ErrNotFound) {
		return rec, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown task %q (it never existed, expired, or belongs to someone else)", id)}
	}
	if err != nil {
		return rec, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "reading the task: " + err.Error()}
	}
	if !rec.Status.Final() && !rec.Lease.IsZero() && time.Now().After(rec.Lease) {
		rec = tr.orphaned(ctx, rec)
	}
	return rec, nil
}

// orphaned fails a task whose lease ran out: the replica running it
// stopped (it died, or lost the store) and nobody will end it. The store
// applies it only if the lease is still out, so a renewal racing it wins.
func (tr *taskRunner) orphaned(ctx context.Context, rec store.Task) store.Task {
	msg := fmt.Sprintf("the task was lost: the server running it stopped renewing its lease (due %s); call the tool again",
		rec.Lease.UTC().Format(time.RFC3339))
	e, _ := json.Marshal(&jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: msg})
	got, err := tr.store.Update(ctx, rec.ID, store.TaskUpdate{Status: store.TaskFailed, Message: msg, Result: e, IfLeaseBefore: time.Now()})
	switch {
	case err == nil:
		tr.taskChanged(rec.ID)
		return got
	case errors.Is(err, store.ErrFinal), errors.Is(err, store.ErrConflict):
		return got
	}
	tr.s.logger.Error("failing a task whose lease ran out", "task", rec.ID, "err", err)
	return rec
}

// create stores a new task of owner for a call of t and starts its
// handler (in session ss, nil under 2026-07-28); the record is in the
// store before the client learns the task's id.
func (tr *taskRunner) create(r *http.Request, t *tool, owner string, params *mcp.CallToolParamsRaw, ss *mcp.ServerSession) (store.Task, error) {
	rec, err := tr.newTask(r.Context(), t, owner)
	if err != nil {
		return rec, err
	}
	// The task outlives the request: it keeps the request's values (the
	// caller's identity), not its cancellation.
	ctx, cancel := context.WithCancelCause(context.WithoutCancel(r.Context()))
	ctx, stop := context.WithTimeoutCause(ctx, rec.TTL, errors.New("the task outlived its ttl"))
	ctx, observed := tr.observeTask(ctx, r, t, rec, params, ss) // taskobserve.go: the task's span and metrics
	rt := &runningTask{cancel: cancel}
	tr.start(rec.ID, rt)
	call := &mcp.CallToolRequest{Session: ss, Params: params,
		Extra: &mcp.RequestExtra{TokenInfo: auth.TokenInfoFromContext(r.Context()), Header: r.Header.Clone()}}
	ctx = taskctx.WithProgress(ctx, tr.progress(func() string { return rec.ID }))
	go func() {
		defer stop()
		defer tr.stopped(rec.ID)
		defer observed()
		tr.run(ctx, t, rec.ID, rt, call)
	}()
	return rec, nil
}

// newTask stores a new working task of owner for a call of t.
func (tr *taskRunner) newTask(ctx context.Context, t *tool, owner string) (store.Task, error) {
	now := time.Now().UTC()
	rec := store.Task{ID: rand.Text(), Owner: owner, Status: store.TaskWorking,
		Created: now, Updated: now, TTL: taskTTL, Lease: now.Add(tr.lease)}
	if err := tr.store.Create(ctx, rec); err != nil {
		if errors.Is(err, store.ErrFull) {
			// Nothing ran: the client may try again once tasks finish.
			tr.s.logger.Warn("task refused: the task store is full", "tool", t.def.Name, "err", err)
			return rec, &jsonrpc.Error{Code: wire.CodeRetryLater, Message: "too many tasks are kept for this caller; try again later"}
		}
		return rec, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "creating the task: " + err.Error()}
	}
	return rec, nil
}

// progress records a handler's progress as the status message of its
// task, whose id is id() ("" while it has none: then it is dropped).
func (tr *taskRunner) progress(id func() string) func(msg string) {
	return func(msg string) {
		if tid := id(); msg != "" && tid != "" {
			tr.edit(tid, store.TaskUpdate{Message: msg, IfStatus: store.TaskWorking})
		}
	}
}

// start registers a task running here; with the first one, it starts
// listening for cancels and answers and renewing leases.
func (tr *taskRunner) start(id string, rt *runningTask) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.running[id] = rt
	if tr.stopListen != nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	tr.stopListen = cancel
	// Subscribed before the client learns the task's id, so that no
	// cancel sent for it is missed.
	sub := tr.subscribe(ctx)
	go tr.listen(ctx, sub)
}

// stopped forgets a task that ended here; with the last one, it stops
// listening.
func (tr *taskRunner) stopped(id string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	delete(tr.running, id)
	if len(tr.running) == 0 && tr.stopListen != nil {
		tr.stopListen()
		tr.stopListen = nil
	}
}

// subscribe subscribes to topicTasks; nil when the store cannot (then a
// cancel still arrives with the next lease renewal, which finds the task
// ended).
func (tr *taskRunner) subscribe(ctx context.Context) store.Subscription {
	sub, err := tr.bus.Subscribe(ctx, topicTasks)
	if err != nil {
		tr.s.logger.Warn("tasks/cancel and tasks/update sent to other replicas reach this one late or not at all until the store is back", "err", err)
		return nil
	}
	return sub
}

// listen delivers what other replicas send to the tasks running here, and
// renews their leases, until ctx is done.
func (tr *taskRunner) listen(ctx context.Context, sub store.Subscription) {
	defer func() {
		if sub != nil {
			sub.Close()
		}
	}()
	tick := time.NewTicker(tr.lease / 3)
	defer tick.Stop()
	for {
		var msgs <-chan store.Message
		if sub != nil {
			msgs = sub.C()
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			tr.renew(ctx)
			if sub == nil {
				sub = tr.subscribe(ctx)
			}
		case m, ok := <-msgs:
			if !ok {
				sub.Close()
				sub = nil // subscribed again at the next tick
				continue
			}
			tr.deliver(m.Data)
		}
	}
}

// renew extends the lease of every task running here. A task found ended
// (cancelled on another replica, or failed there as lost) is stopped.
func (tr *taskRunner) renew(ctx context.Context) {
	tr.mu.Lock()
	running := make(map[string]*runningTask, len(tr.running))
	for id, rt := range tr.running {
		running[id] = rt
	}
	tr.mu.Unlock()
	for id, rt := range running {
		rec, err := tr.store.Update(ctx, id, store.TaskUpdate{Lease: time.Now().Add(tr.lease)})
		switch {
		case err == nil || ctx.Err() != nil:
		case errors.Is(err, store.ErrFinal) && rec.Status == store.TaskCancelled:
			rt.cancel(errTaskCancelled)
		case errors.Is(err, store.ErrFinal):
			rt.cancel(fmt.Errorf("the task ended elsewhere: %s %s", rec.Status, rec.Message))
		case errors.Is(err, store.ErrNotFound):
			rt.cancel(errors.New("the task's record is gone from the store"))
		default:
			tr.s.logger.Warn("renewing a task's lease", "task", id, "err", err)
		}
	}
}

// deliver hands a message of topicTasks to the task it names, if it runs
// here.
func (tr *taskRunner) deliver(data []byte) {
	var m taskMessage
	if json.Unmarshal(data, &m) != nil {
		return
	}
	tr.mu.Lock()
	rt := tr.running[m.ID]
	tr.mu.Unlock()
	switch {
	case rt == nil:
	case m.Cancel:
		rt.cancel(errTaskCancelled)
	default:
		if err := tr.answer(m.ID, rt, m.Answers); err != nil {
			tr.s.logger.Warn("answers of tasks/update", "task", m.ID, "err", err)
		}
	}
}

// run calls the handler until it ends; each time it asks the client
// something, the task waits in input_required for the answers
// (tasks/update) and the handler runs again with them.
func (tr *taskRunner) run(ctx context.Context, t *tool, id string, rt *runningTask, call *mcp.CallToolRequest) {
	for {
		res, err := t.handle(ctx, call)
		if !tr.settle(ctx, id, rt, call, res, err) {
			return
		}
	}
}

// settle records in the task what one run of its handler ended with;
// true when the handler must run again: it asked questions, call now
// carries their answers (or the task was cancelled meanwhile, which the
// next run reports).
func (tr *taskRunner) settle(ctx context.Context, id string, rt *runningTask, call *mcp.CallToolRequest, res *mcp.CallToolResult, err error) bool {
	if ctx.Err() != nil {
		u := store.TaskUpdate{Status: store.TaskCancelled, Message: context.Cause(ctx).Error()}
		if !errors.Is(context.Cause(ctx), errTaskCancelled) {
			u.Status = store.TaskFailed
			u.Result, _ = json.Marshal(&jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: u.Message})
		}
		tr.edit(id, u)
		return false
	}
	if err != nil {
		var we *jsonrpc.Error
		if !errors.As(err, &we) {
			we = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
		}
		u := store.TaskUpdate{Status: store.TaskFailed, Message: we.Message}
		u.Result, _ = json.Marshal(we)
		tr.edit(id, u)
		return false
	}
	if res != nil && len(res.InputRequests) > 0 {
		answers, ok := tr.wait(ctx, id, rt, res.InputRequests)
		if ok {
			call.Params.RequestState, call.Params.InputResponses = res.RequestState, answers
		}
		return true
	}
	result, merr := json.Marshal(res)
	if merr != nil {
		e, _ := json.Marshal(&jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: merr.Error()})
		tr.edit(id, store.TaskUpdate{Status: store.TaskFailed, Message: merr.Error(), Result: e})
		return false
	}
	tr.edit(id, store.TaskUpdate{Status: store.TaskCompleted, Result: completeResult(result)})
	return false
}

// completeResult marks a CallToolResult as complete, as 2026-07-28
// inlines it in tasks/get.
func completeResult(result []byte) []byte {
	if !bytes.Contains(result, []byte(`"resultType"`)) && len(result) > 1 {
		result = append([]byte(`{"resultType":"complete",`), result[1:]...)
		if string(result) == `{"resultType":"complete",}` {
			result = []byte(`{"resultType":"complete"}`)
		}
	}
	return result
}
