package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/connector/store"
)

// TasksBound checks the bound of a backend opened to keep at most max
// task records of one owner (the memory backend's MaxTasks, Redis's
// max_tasks): with max tasks still running, creating one more fails with
// ErrFull and stores nothing, and the tasks already there stay readable.
// Every backend's own tests call it with the bound they opened it with.
func TasksBound(t *testing.T, st store.Store, max int) {
	ctx := context.Background()
	ts := st.Tasks()
	owner := id(t, "bounded")
	for i := range max {
		if err := ts.Create(ctx, store.Task{ID: fmt.Sprintf("%s-%d", owner, i), Owner: owner, TTL: time.Hour}); err != nil {
			t.Fatalf("Create of task %d of %d: %v", i+1, max, err)
		}
	}
	over := owner + "-over"
	err := ts.Create(ctx, store.Task{ID: over, Owner: owner, TTL: time.Hour})
	if !errors.Is(err, store.ErrFull) {
		t.Fatalf("Create past the bound of %d running tasks: %v, want an error wrapping store.ErrFull", max, err)
	}
	if _, err := ts.Get(ctx, over); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Get of the refused task: %v, want store.ErrNotFound", err)
	}
	for i := range max {
		if _, err := ts.Get(ctx, fmt.Sprintf("%s-%d", owner, i)); err != nil {
			t.Errorf("Get of task %d after a refused Create: %v", i+1, err)
		}
	}
	list, _, err := ts.List(ctx, owner, "", 0)
	if err != nil || len(list) != max {
		t.Errorf("List after a refused Create: %d tasks, %v; want %d", len(list), err, max)
	}
}
