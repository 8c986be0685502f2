package store

import (
	"context"
	"errors"
	"time"
)

// TaskStatus is where a task stands, as MCP tasks name it.
type TaskStatus string

// The statuses of a task. Completed, failed and cancelled are final.
const (
	TaskWorking       TaskStatus = "working"
	TaskInputRequired TaskStatus = "input_required"
	TaskCompleted     TaskStatus = "completed"
	TaskFailed        TaskStatus = "failed"
	TaskCancelled     TaskStatus = "cancelled"
)

// Final reports whether s is a status a task never leaves.
func (s TaskStatus) Final() bool {
	return s == TaskCompleted || s == TaskFailed || s == TaskCancelled
}

// Task is the record of one long-running tool call.
type Task struct {
	// ID is the task's handle: unguessable, made by the caller of Create.
	ID string
	// Owner is who may see it: the verified subject with auth, else ""
	// (anyone holding the id).
	Owner   string
	Status  TaskStatus
	Message string // the status message, if any
	// Result is the task's outcome once Status is final (the tool's
	// result, or the error it failed with), opaque to the store.
	Result []byte
	// Input is what an input_required task waits for (the questions it
	// asked), opaque to the store; kept only while Status is
	// input_required.
	Input []byte
	// Lease is when the replica running the task must have renewed it by
	// (an Update); past it, a working task whose replica died can be
	// failed (see TaskUpdate.IfLeaseBefore). Zero: no lease.
	Lease   time.Time
	Created time.Time
	Updated time.Time
	// TTL is how long the record is kept after Created.
	TTL time.Duration
}

// TaskUpdate is a change of a task. Zero fields are left as they are
// (an update with only a Lease renews the lease), except Input, which is
// dropped whenever the status after the update is not input_required.
type TaskUpdate struct {
	Status  TaskStatus
	Message string
	Result  []byte
	Input   []byte
	Lease   time.Time
	// IfStatus, when set, applies the update only to a task whose status
	// is IfStatus (a progress message must not turn an input_required
	// task back into a working one).
	IfStatus TaskStatus
	// IfLeaseBefore, when set, applies the update only to a task whose
	// lease is set and before it: how a replica fails a task whose
	// runner stopped renewing, without racing a renewal.
	IfLeaseBefore time.Time
}

// Tasks keeps task records.
//
// Contract:
//   - Create stores t durably before it returns (a task handle is only
//     handed out once the record is readable by every replica), with
//     Created and Updated set to now when zero; when t.ID is taken it
//     stores nothing and returns an error wrapping ErrExists. t.TTL must be
//     more than 0: the record expires TTL after Created. Records are
//     bounded: past its bound (of all tasks, or of one owner's), a backend
//     stores nothing and returns an error wrapping ErrFull, at the latest
//     when one owner keeps that many tasks that are still running.
//   - Get returns the record, or an error wrapping ErrNotFound once it
//     expired or never existed.
//   - Update applies u atomically and returns the record after it, with
//     Updated set to now; on a task whose status is already final it
//     changes nothing and returns the record with an error wrapping
//     ErrFinal (so a cancel and a completion cannot both win, and a late
//     edit cannot undo an ending). When a condition of u (IfStatus,
//     IfLeaseBefore) does not hold it changes nothing and returns the
//     record with an error wrapping ErrConflict.
//   - List returns the owner's tasks, newest first, at most limit of them
//     (all when limit <= 0) after the cursor ("" for the first page), and
//     the cursor of the next page ("" after the last). Other owners' tasks
//     never appear.
type Tasks interface {
	Create(ctx context.Context, t Task) error
	Get(ctx context.Context, id string) (Task, error)
	Update(ctx context.Context, id string, u TaskUpdate) (Task, error)
	List(ctx context.Context, owner, cursor string, limit int) (tasks []Task, next string, err error)
}

// ErrConflict is returned (wrapped) by Tasks.Update when a condition of
// the update does not hold.
var ErrConflict = errors.New("store: the task is not in the state the update expects")

// ErrFinal is returned (wrapped) by Tasks.Update for a task already
// completed, failed or cancelled.
var ErrFinal = errors.New("store: the task's status is final")
