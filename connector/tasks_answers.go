package connector

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/mcpgen/mcpgen/connector/store"
	"github.com/mcpgen/mcpgen/internal/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

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
	tr.edit(id, store.TaskUpdate{Status: store.TaskWorking})
	return answers, true
}

// setPending records the questions a task waits on.
func (tr *taskRunner) setPending(id string, questions mcp.InputRequestMap) {
	b, err := json.Marshal(questions)
	if err != nil {
		tr.s.logger.Error("task questions", "task", id, "err", err)
	}
	tr.edit(id, store.TaskUpdate{Status: store.TaskInputRequired, Input: b})
}

// update takes the client's answers to an input_required task: answers to
// questions not asked are ignored, an answer that is not one is -32602.
// They go to the task's handler, here or, over the store's Bus, on the
// replica running it.
func (tr *taskRunner) update(ctx context.Context, rec store.Task, raw map[string]json.RawMessage) error {
	if rec.Status != store.TaskInputRequired || len(rec.Input) == 0 {
		return nil // nothing waits: the update changes nothing
	}
	var asked map[string]struct {
		Method string `json:"method"`
	}
	json.Unmarshal(rec.Input, &asked)
	answers := map[string]json.RawMessage{}
	for k, q := range asked {
		b, ok := raw[k]
		if !ok {
			continue
		}
		if _, err := parseAnswer(b); err != nil {
			return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("inputResponses[%q] is not an answer to the %s request asked", k, q.Method)}
		}
		answers[k] = b
	}
	if len(answers) == 0 {
		return nil
	}
	tr.mu.Lock()
	rt := tr.running[rec.ID]
	tr.mu.Unlock()
	if rt != nil {
		return tr.answer(rec.ID, rt, answers)
	}
	msg, _ := json.Marshal(taskMessage{ID: rec.ID, Answers: answers})
	if err := tr.bus.Publish(ctx, topicTasks, msg); err != nil {
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "handing the answers to the server running the task: " + err.Error()}
	}
	return nil
}

// parseAnswer reads one of the inputResponses.
func parseAnswer(b json.RawMessage) (mcp.InputResponse, error) {
	var one mcp.InputResponseMap
	if err := json.Unmarshal([]byte(`{"a":`+string(b)+`}`), &one); err != nil {
		return nil, err
	}
	if one["a"] == nil {
		return nil, errors.New("empty answer")
	}
	return one["a"], nil
}

// answer gives the task running here the answers to the questions it
// still waits on; when none is left, its handler runs again.
func (tr *taskRunner) answer(id string, rt *runningTask, raw map[string]json.RawMessage) error {
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
		a, err := parseAnswer(b)
		if err != nil {
			return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("inputResponses[%q] is not an answer to %T", k, q)}
		}
		answers[k] = a
	}
	for k, a := range answers {
		rt.answers[k] = a
	}
	rt.pending = left
	if len(left) == 0 {
		close(rt.ready)
		return nil
	}
	tr.setPending(id, left)
	return nil
}

// cancel ends a task: its record says cancelled at once (unless it ended
// first, then it stays as it is), and its handler, here or on the replica
// running it, sees its ctx end.
func (tr *taskRunner) cancel(ctx context.Context, rec store.Task) error {
	if rec.Status.Final() {
		return nil
	}
	_, err := tr.store.Update(ctx, rec.ID, store.TaskUpdate{Status: store.TaskCancelled, Message: errTaskCancelled.Error()})
	switch {
	case errors.Is(err, store.ErrFinal), errors.Is(err, store.ErrNotFound):
		return nil
	case err != nil:
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "cancelling the task: " + err.Error()}
	}
	tr.taskChanged(rec.ID)
	tr.mu.Lock()
	rt := tr.running[rec.ID]
	tr.mu.Unlock()
	if rt != nil {
		rt.cancel(errTaskCancelled)
		return nil
	}
	// Another replica runs it. Should the message be lost, that replica's
	// next lease renewal finds the task cancelled.
	msg, _ := json.Marshal(taskMessage{ID: rec.ID, Cancel: true})
	if err := tr.bus.Publish(ctx, topicTasks, msg); err != nil {
		tr.s.logger.Warn("telling the server running a task it was cancelled; it stops at its next lease renewal", "task", rec.ID, "err", err)
	}
	return nil
}

// edit applies u to a task's record. The store applies it atomically and
// never to a task that has ended, so a late edit cannot undo an ending
// (the first ending wins). An edit applied is told to the listen streams
// following the task (taskChanged).
func (tr *taskRunner) edit(id string, u store.TaskUpdate) {
	_, err := tr.store.Update(context.Background(), id, u)
	if err == nil {
		tr.taskChanged(id)
	}
	if err != nil && !errors.Is(err, store.ErrFinal) && !errors.Is(err, store.ErrConflict) && !errors.Is(err, store.ErrNotFound) {
		tr.s.logger.Error("task update", "task", id, "err", err)
	}
}

// taskFields are the fields of a Task on the wire (2026-07-28).
func taskFields(rec store.Task) map[string]any {
	m := map[string]any{
		"taskId":         rec.ID,
		"status":         rec.Status,
		"createdAt":      rec.Created.UTC().Format(time.RFC3339Nano),
		"lastUpdatedAt":  rec.Updated.UTC().Format(time.RFC3339Nano),
		"ttlMs":          rec.TTL.Milliseconds(),
		"pollIntervalMs": taskPollInterval.Milliseconds(),
	}
	if rec.Message != "" {
		m["statusMessage"] = rec.Message
	}
	return m
}

// createTaskResult answers the tools/call that created a task.
func createTaskResult(rec store.Task) map[string]any {
	m := taskFields(rec)
	m["resultType"] = "task"
	return m
}

// detailedTask answers tasks/get: the task with its result, error or
// questions inlined.
func detailedTask(rec store.Task) map[string]any {
	m := taskFields(rec)
	m["resultType"] = "complete"
	switch {
	case rec.Status == store.TaskCompleted && rec.Result != nil:
		m["result"] = json.RawMessage(rec.Result)
	case rec.Status == store.TaskFailed && rec.Result != nil:
		m["error"] = json.RawMessage(rec.Result) // the JSON-RPC error it failed with
	case rec.Status == store.TaskInputRequired && rec.Input != nil:
		m["inputRequests"] = json.RawMessage(rec.Input)
	}
	return m
}

func ack() map[string]any { return map[string]any{"resultType": "complete"} }

// reply writes the answer to a task method: the result, or the error with
// the HTTP status 2026-07-28 gives its code.
func (tr *taskRunner) reply(w http.ResponseWriter, id json.RawMessage, res map[string]any, err error) {
	w.Header().Set("Content-Type", "application/json")
	if err != nil {
		w.WriteHeader(wire.ErrorStatus(true, err))
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
