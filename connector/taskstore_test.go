package connector

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestMemoryTaskStoreBounds checks that the in-process task store keeps a
// task for its TTL and no longer, holds at most its count, makes room by
// dropping the oldest ended task, and refuses a task when every slot holds
// a running one.
func TestMemoryTaskStoreBounds(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1000, 0)
	m := NewMemoryTaskStore(2).(*memoryTaskStore)
	m.now = func() time.Time { return now }
	rec := func(id string, st TaskStatus, updated time.Time) *TaskRecord {
		return &TaskRecord{ID: id, Status: st, Created: now, Updated: updated, TTL: time.Minute}
	}
	if err := m.Create(ctx, rec("a", TaskCompleted, now)); err != nil {
		t.Fatal(err)
	}
	if err := m.Create(ctx, rec("b", TaskCompleted, now.Add(time.Second))); err != nil {
		t.Fatal(err)
	}
	// Full: the oldest ended task (a) makes room.
	if err := m.Create(ctx, rec("c", TaskWorking, now)); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Get(ctx, "a"); !errors.Is(err, ErrTaskNotFound) {
		t.Errorf("a was not dropped for c: %v", err)
	}
	if got, err := m.Get(ctx, "b"); err != nil || got.Status != TaskCompleted {
		t.Errorf("b: %+v %v", got, err)
	}
	// b ends its life; c runs: a new task takes b's place, then the store
	// is full of running tasks and refuses the next.
	if err := m.Create(ctx, rec("d", TaskWorking, now)); err != nil {
		t.Fatal(err)
	}
	if err := m.Create(ctx, rec("e", TaskWorking, now)); !errors.Is(err, errTaskStoreFull) {
		t.Errorf("a store full of running tasks took another: %v", err)
	}
	// A record is readable for its TTL, not after.
	now = now.Add(time.Minute)
	if _, err := m.Get(ctx, "c"); err != nil {
		t.Errorf("c at the end of its ttl: %v", err)
	}
	now = now.Add(time.Millisecond)
	for _, id := range []string{"c", "d"} {
		if _, err := m.Get(ctx, id); !errors.Is(err, ErrTaskNotFound) {
			t.Errorf("%s past its ttl: %v", id, err)
		}
	}
	if err := m.Create(ctx, rec("f", TaskWorking, now)); err != nil {
		t.Errorf("expired tasks still take room: %v", err)
	}
	// Get returns a copy: changing it changes nothing stored.
	got, _ := m.Get(ctx, "f")
	got.Status = TaskFailed
	if again, _ := m.Get(ctx, "f"); again.Status != TaskWorking {
		t.Errorf("Get shares the stored record: %s", again.Status)
	}
	if err := m.Update(ctx, rec("nope", TaskWorking, now)); !errors.Is(err, ErrTaskNotFound) {
		t.Errorf("update of an unknown task: %v", err)
	}
}
