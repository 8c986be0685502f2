package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/connector/store"
)

func testTasks(t *testing.T, st store.Store) {
	ctx := context.Background()
	ts := st.Tasks()
	tid := id(t, "task")
	if _, err := ts.Get(ctx, tid); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get before Create: %v, want ErrNotFound", err)
	}
	if _, err := ts.Update(ctx, tid, store.TaskUpdate{Status: store.TaskCompleted}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Update before Create: %v, want ErrNotFound", err)
	}
	task := store.Task{ID: tid, Owner: "alice", Status: store.TaskWorking, TTL: time.Hour}
	if err := ts.Create(ctx, task); err != nil {
		t.Fatal(err)
	}
	if err := ts.Create(ctx, task); !errors.Is(err, store.ErrExists) {
		t.Errorf("second Create: %v, want ErrExists", err)
	}
	got, err := ts.Get(ctx, tid)
	if err != nil || got.Owner != "alice" || got.Status != store.TaskWorking || got.Created.IsZero() || got.TTL != time.Hour {
		t.Fatalf("Get = %+v, %v", got, err)
	}
	lease := time.Now().Add(time.Minute).Truncate(time.Millisecond)
	got, err = ts.Update(ctx, tid, store.TaskUpdate{Status: store.TaskInputRequired, Message: "asking", Lease: lease})
	if err != nil || got.Status != store.TaskInputRequired || got.Message != "asking" || !got.Lease.Equal(lease) {
		t.Errorf("Update to input_required = %+v, %v", got, err)
	}
	got, err = ts.Update(ctx, tid, store.TaskUpdate{Status: store.TaskCompleted, Result: []byte(`{"ok":true}`)})
	if err != nil || got.Status != store.TaskCompleted || string(got.Result) != `{"ok":true}` || got.Message != "asking" {
		t.Errorf("Update to completed = %+v, %v", got, err)
	}
	got, err = ts.Update(ctx, tid, store.TaskUpdate{Status: store.TaskCancelled})
	if !errors.Is(err, store.ErrFinal) || got.Status != store.TaskCompleted {
		t.Errorf("Update of a completed task = %+v, %v; want it unchanged and ErrFinal", got, err)
	}
	// Expiry: TTL after creation.
	short := store.Task{ID: id(t, "short"), Owner: "alice", Status: store.TaskWorking, TTL: 50 * time.Millisecond}
	if err := ts.Create(ctx, short); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a task past its TTL expires", func() bool {
		_, err := ts.Get(ctx, short.ID)
		return errors.Is(err, store.ErrNotFound)
	})
}

func testTasksFinalRace(t *testing.T, st store.Store) {
	ctx := context.Background()
	ts := st.Tasks()
	tid := id(t, "race")
	if err := ts.Create(ctx, store.Task{ID: tid, Status: store.TaskWorking, TTL: time.Hour}); err != nil {
		t.Fatal(err)
	}
	var wins atomic.Int64
	var wg sync.WaitGroup
	for i := range 20 {
		status := store.TaskCompleted
		if i%2 == 1 {
			status = store.TaskCancelled
		}
		wg.Go(func() {
			_, err := ts.Update(ctx, tid, store.TaskUpdate{Status: status})
			switch {
			case err == nil:
				wins.Add(1)
			case !errors.Is(err, store.ErrFinal):
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if w := wins.Load(); w != 1 {
		t.Errorf("%d racing updates to a final status succeeded, want exactly 1", w)
	}
}

func testTasksList(t *testing.T, st store.Store) {
	ctx := context.Background()
	ts := st.Tasks()
	owner := id(t, "owner")
	base := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	var want []string
	for i := range 5 {
		tid := id(t, fmt.Sprint("t", i))
		want = append([]string{tid}, want...) // newest first
		if err := ts.Create(ctx, store.Task{ID: tid, Owner: owner, Status: store.TaskWorking, TTL: 2 * time.Hour, Created: base.Add(time.Duration(i) * time.Second)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := ts.Create(ctx, store.Task{ID: id(t, "someone-else"), Owner: owner + "-other", Status: store.TaskWorking, TTL: time.Hour}); err != nil {
		t.Fatal(err)
	}
	var got []string
	cursor := ""
	for page := 0; ; page++ {
		tasks, next, err := ts.List(ctx, owner, cursor, 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(tasks) > 2 {
			t.Fatalf("page of %d tasks, limit 2", len(tasks))
		}
		for _, task := range tasks {
			if task.Owner != owner {
				t.Errorf("List(%q) returned a task of %q", owner, task.Owner)
			}
			got = append(got, task.ID)
		}
		if next == "" {
			break
		}
		if page > 5 {
			t.Fatal("List never ends")
		}
		cursor = next
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("List pages = %v\nwant newest first %v", got, want)
	}
	if tasks, _, err := ts.List(ctx, id(t, "nobody"), "", 0); err != nil || len(tasks) != 0 {
		t.Errorf("List of an owner with no tasks = %v, %v", tasks, err)
	}
}

// testTasksConditions checks the partial and conditional updates the
// runtime relies on: renewing a lease alone keeps the status, Input lives
// only while input_required, IfStatus and IfLeaseBefore refuse with
// ErrConflict and change nothing, and a failed task cannot be renewed.
func testTasksConditions(t *testing.T, st store.Store) {
	ctx := context.Background()
	ts := st.Tasks()
	tid := id(t, "cond")
	now := time.Now().Truncate(time.Millisecond)
	if err := ts.Create(ctx, store.Task{ID: tid, Status: store.TaskWorking, TTL: time.Hour, Lease: now.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	got, err := ts.Update(ctx, tid, store.TaskUpdate{Message: "half"})
	if err != nil || got.Status != store.TaskWorking || got.Message != "half" {
		t.Errorf("Update without a status = %+v, %v; want working, message half", got, err)
	}
	q := []byte(`{"q":{"method":"elicitation/create"}}`)
	got, err = ts.Update(ctx, tid, store.TaskUpdate{Status: store.TaskInputRequired, Input: q})
	if err != nil || got.Status != store.TaskInputRequired || !bytes.Equal(got.Input, q) {
		t.Errorf("Update to input_required = %+v, %v; want its Input", got, err)
	}
	got, err = ts.Update(ctx, tid, store.TaskUpdate{Status: store.TaskWorking, Message: "late", IfStatus: store.TaskWorking})
	if !errors.Is(err, store.ErrConflict) || got.Status != store.TaskInputRequired || got.Message != "half" {
		t.Errorf("Update IfStatus working of an input_required task = %+v, %v; want it unchanged and ErrConflict", got, err)
	}
	lease := now.Add(2 * time.Minute)
	got, err = ts.Update(ctx, tid, store.TaskUpdate{Lease: lease})
	if err != nil || got.Status != store.TaskInputRequired || !bytes.Equal(got.Input, q) || !got.Lease.Equal(lease) {
		t.Errorf("renewing the lease = %+v, %v; want status and Input kept, lease %v", got, err, lease)
	}
	if got, _ := ts.Get(ctx, tid); !bytes.Equal(got.Input, q) {
		t.Errorf("Get of an input_required task: Input %q, want %q", got.Input, q)
	}
	got, err = ts.Update(ctx, tid, store.TaskUpdate{Status: store.TaskWorking})
	if err != nil || got.Status != store.TaskWorking || len(got.Input) != 0 {
		t.Errorf("back to working = %+v, %v; want Input dropped", got, err)
	}
	got, err = ts.Update(ctx, tid, store.TaskUpdate{Status: store.TaskFailed, IfLeaseBefore: time.Now()})
	if !errors.Is(err, store.ErrConflict) || got.Status != store.TaskWorking {
		t.Errorf("failing a task whose lease holds = %+v, %v; want it unchanged and ErrConflict", got, err)
	}
	if _, err := ts.Update(ctx, tid, store.TaskUpdate{Lease: now.Add(-time.Minute)}); err != nil {
		t.Fatal(err)
	}
	got, err = ts.Update(ctx, tid, store.TaskUpdate{Status: store.TaskFailed, Message: "its runner stopped", IfLeaseBefore: time.Now()})
	if err != nil || got.Status != store.TaskFailed || got.Message != "its runner stopped" {
		t.Errorf("failing a task whose lease ran out = %+v, %v", got, err)
	}
	if got, err := ts.Update(ctx, tid, store.TaskUpdate{Lease: time.Now().Add(time.Minute)}); !errors.Is(err, store.ErrFinal) || got.Status != store.TaskFailed {
		t.Errorf("renewing a failed task = %+v, %v; want ErrFinal", got, err)
	}
	// A task without a lease is never failed for want of one.
	free := id(t, "nolease")
	if err := ts.Create(ctx, store.Task{ID: free, Status: store.TaskWorking, TTL: time.Hour}); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.Update(ctx, free, store.TaskUpdate{Status: store.TaskFailed, IfLeaseBefore: time.Now()}); !errors.Is(err, store.ErrConflict) {
		t.Errorf("IfLeaseBefore on a task without a lease: %v, want ErrConflict", err)
	}
}

// testTasksLeaseRace races replicas failing a task whose lease ran out
// against its runner renewing it: at most one failure wins, and the task
// ends failed exactly when one did.
func testTasksLeaseRace(t *testing.T, st store.Store) {
	ctx := context.Background()
	ts := st.Tasks()
	tid := id(t, "lease")
	if err := ts.Create(ctx, store.Task{ID: tid, Status: store.TaskWorking, TTL: time.Hour, Lease: time.Now().Add(-time.Second)}); err != nil {
		t.Fatal(err)
	}
	var fails atomic.Int64
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			var err error
			if i%2 == 0 {
				_, err = ts.Update(ctx, tid, store.TaskUpdate{Status: store.TaskFailed, IfLeaseBefore: time.Now()})
				if err == nil {
					fails.Add(1)
				}
			} else {
				_, err = ts.Update(ctx, tid, store.TaskUpdate{Lease: time.Now().Add(time.Minute)})
			}
			if err != nil && !errors.Is(err, store.ErrConflict) && !errors.Is(err, store.ErrFinal) {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got, err := ts.Get(ctx, tid)
	if err != nil {
		t.Fatal(err)
	}
	if f := fails.Load(); f > 1 || (f == 1) != (got.Status == store.TaskFailed) {
		t.Errorf("%d failures won and the task is %s; want at most one, and failed exactly when one won", f, got.Status)
	}
}
