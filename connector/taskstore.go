package connector

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"
)

// TaskStatus is the state of a task (MCP tasks: SEP-2663, SEP-1686).
type TaskStatus string

// The states of a task. Completed, failed and cancelled are terminal.
const (
	TaskWorking       TaskStatus = "working"
	TaskInputRequired TaskStatus = "input_required"
	TaskCompleted     TaskStatus = "completed"
	TaskFailed        TaskStatus = "failed"
	TaskCancelled     TaskStatus = "cancelled"
)

// Terminal reports whether a task in status s has ended.
func (s TaskStatus) Terminal() bool {
	return s == TaskCompleted || s == TaskFailed || s == TaskCancelled
}

// TaskRecord is what a TaskStore keeps of one task: enough for any replica
// to answer tasks/get.
type TaskRecord struct {
	ID      string
	Subject string // the authenticated caller who created it; "" without auth
	Tool    string
	Status  TaskStatus
	Message string // statusMessage: the latest progress message, or why it failed
	Created time.Time
	Updated time.Time
	TTL     time.Duration // kept this long after Created
	// Result is the tool's result (a CallToolResult) once completed.
	Result json.RawMessage
	// Error is the JSON-RPC error ({code, message, data}) once failed.
	Error json.RawMessage
	// InputRequests are the questions an input_required task waits on (an
	// InputRequestMap), only those not answered yet.
	InputRequests json.RawMessage
}

// ErrTaskNotFound is returned by a TaskStore for an unknown or expired task.
var ErrTaskNotFound = errors.New("no such task")

// TaskStore keeps task records. Create must have stored the record durably
// when it returns: the client may ask for the task at once, of any
// replica. The in-process store (NewMemoryTaskStore) is the default.
type TaskStore interface {
	Create(ctx context.Context, rec *TaskRecord) error
	// Get returns a copy of the record, or ErrTaskNotFound.
	Get(ctx context.Context, id string) (*TaskRecord, error)
	// Update replaces the record of rec.ID; ErrTaskNotFound if it expired.
	Update(ctx context.Context, rec *TaskRecord) error
}

// memoryTaskStore is the in-process TaskStore: bounded in count, each
// record dropped after its TTL; when full, the oldest terminal task goes
// first, and a store full of running tasks refuses new ones.
type memoryTaskStore struct {
	mu    sync.Mutex
	max   int
	tasks map[string]*TaskRecord
	now   func() time.Time
}

// NewMemoryTaskStore returns an in-process TaskStore holding at most max
// tasks (10000 when max <= 0).
func NewMemoryTaskStore(max int) TaskStore {
	if max <= 0 {
		max = 10000
	}
	return &memoryTaskStore{max: max, tasks: map[string]*TaskRecord{}, now: time.Now}
}

// errTaskStoreFull refuses a task when every slot holds a running one.
var errTaskStoreFull = errors.New("too many tasks at once; retry later")

func (m *memoryTaskStore) Create(_ context.Context, rec *TaskRecord) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.expire()
	if len(m.tasks) >= m.max {
		var oldest *TaskRecord
		for _, t := range m.tasks {
			if t.Status.Terminal() && (oldest == nil || t.Updated.Before(oldest.Updated)) {
				oldest = t
			}
		}
		if oldest == nil {
			return errTaskStoreFull
		}
		delete(m.tasks, oldest.ID)
	}
	cp := *rec
	m.tasks[rec.ID] = &cp
	return nil
}

func (m *memoryTaskStore) Get(_ context.Context, id string) (*TaskRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.tasks[id]
	if !ok || m.now().After(t.Created.Add(t.TTL)) {
		return nil, ErrTaskNotFound
	}
	cp := *t
	return &cp, nil
}

func (m *memoryTaskStore) Update(_ context.Context, rec *TaskRecord) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.tasks[rec.ID]; !ok {
		return ErrTaskNotFound
	}
	cp := *rec
	m.tasks[rec.ID] = &cp
	return nil
}

// expire drops the records past their TTL. m.mu is held.
func (m *memoryTaskStore) expire() {
	now := m.now()
	for id, t := range m.tasks {
		if now.After(t.Created.Add(t.TTL)) {
			delete(m.tasks, id)
		}
	}
}
