package store

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"
)

type memTasks struct {
	now func() time.Time
	max int
	mu  sync.Mutex
	m   map[string]*Task
}

func cloneTask(t Task) Task {
	t.Result = slices.Clone(t.Result)
	t.Input = slices.Clone(t.Input)
	return t
}

func (mt *memTasks) live(id string, now time.Time) *Task {
	t := mt.m[id]
	if t != nil && expired(t.Created.Add(t.TTL), now) {
		delete(mt.m, id)
		return nil
	}
	return t
}

func (mt *memTasks) Create(_ context.Context, t Task) error {
	if t.ID == "" || t.TTL <= 0 {
		return fmt.Errorf("store: a task needs an id and a TTL, got %q and %s", t.ID, t.TTL)
	}
	now := mt.now()
	mt.mu.Lock()
	defer mt.mu.Unlock()
	if mt.live(t.ID, now) != nil {
		return fmt.Errorf("task %q: %w", t.ID, ErrExists)
	}
	if len(mt.m) >= mt.max && !mt.evict(now) {
		return fmt.Errorf("%w: %d tasks are kept and none is finished; try again later", ErrFull, len(mt.m))
	}
	if t.Created.IsZero() {
		t.Created = now
	}
	if t.Updated.IsZero() {
		t.Updated = t.Created
	}
	if t.Status == "" {
		t.Status = TaskWorking
	}
	if t.Status != TaskInputRequired {
		t.Input = nil
	}
	c := cloneTask(t)
	mt.m[t.ID] = &c
	return nil
}

// evict drops expired tasks, else the oldest finished one; it reports
// whether there is room. Requires mu.
func (mt *memTasks) evict(now time.Time) bool {
	var oldest *Task
	for id, t := range mt.m {
		switch {
		case expired(t.Created.Add(t.TTL), now):
			delete(mt.m, id)
		case t.Status.Final() && (oldest == nil || t.Created.Before(oldest.Created)):
			oldest = t
		}
	}
	if len(mt.m) < mt.max {
		return true
	}
	if oldest == nil {
		return false
	}
	delete(mt.m, oldest.ID)
	return true
}

func (mt *memTasks) Get(_ context.Context, id string) (Task, error) {
	mt.mu.Lock()
	defer mt.mu.Unlock()
	t := mt.live(id, mt.now())
	if t == nil {
		return Task{}, fmt.Errorf("task %q: %w", id, ErrNotFound)
	}
	return cloneTask(*t), nil
}

func (mt *memTasks) Update(_ context.Context, id string, u TaskUpdate) (Task, error) {
	now := mt.now()
	mt.mu.Lock()
	defer mt.mu.Unlock()
	t := mt.live(id, now)
	if t == nil {
		return Task{}, fmt.Errorf("task %q: %w", id, ErrNotFound)
	}
	if t.Status.Final() {
		return cloneTask(*t), fmt.Errorf("task %q is %s: %w", id, t.Status, ErrFinal)
	}
	if u.IfStatus != "" && t.Status != u.IfStatus {
		return cloneTask(*t), fmt.Errorf("task %q is %s, not %s: %w", id, t.Status, u.IfStatus, ErrConflict)
	}
	if !u.IfLeaseBefore.IsZero() && (t.Lease.IsZero() || !t.Lease.Before(u.IfLeaseBefore)) {
		return cloneTask(*t), fmt.Errorf("task %q holds its lease: %w", id, ErrConflict)
	}
	if u.Status != "" {
		t.Status = u.Status
	}
	if u.Message != "" {
		t.Message = u.Message
	}
	if u.Result != nil {
		t.Result = slices.Clone(u.Result)
	}
	if u.Input != nil {
		t.Input = slices.Clone(u.Input)
	}
	if t.Status != TaskInputRequired {
		t.Input = nil
	}
	if !u.Lease.IsZero() {
		t.Lease = u.Lease
	}
	t.Updated = now
	return cloneTask(*t), nil
}

func (mt *memTasks) List(_ context.Context, owner, cursor string, limit int) ([]Task, string, error) {
	now := mt.now()
	mt.mu.Lock()
	var own []Task
	for id := range mt.m {
		if t := mt.live(id, now); t != nil && t.Owner == owner {
			own = append(own, cloneTask(*t))
		}
	}
	mt.mu.Unlock()
	// Newest first; ties by id, so pages are stable.
	slices.SortFunc(own, func(a, b Task) int {
		if c := b.Created.Compare(a.Created); c != 0 {
			return c
		}
		if a.ID < b.ID {
			return -1
		}
		return 1
	})
	start := 0
	if cursor != "" {
		i, err := strconv.Atoi(cursor)
		if err != nil || i < 0 || i > len(own) {
			return nil, "", fmt.Errorf("store: invalid task list cursor %q", cursor)
		}
		start = i
	}
	own = own[start:]
	next := ""
	if limit > 0 && len(own) > limit {
		own = own[:limit]
		next = strconv.Itoa(start + limit)
	}
	return own, next, nil
}
