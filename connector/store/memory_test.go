package store_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/connector/store"
	"github.com/mcpgen/mcpgen/connector/store/storetest"
)

func TestMemoryContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		s, err := store.Open(context.Background(), "memory://")
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

func TestOpen(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct{ url, err string }{
		{"memory://", ""},
		{"memory:", ""},
		{"memory://host", "takes no host"},
		{"memory://?size=1", "takes no host, path or options"},
		{"nosuch://x", `no backend for scheme "nosuch"; registered: [memory]`},
		{"redis://user:secret@host:6379", "redis://user:xxxxx@host:6379"},
		{"localhost:6379", `no backend for scheme "localhost"`},
		{"", "has no scheme"},
	} {
		s, err := store.Open(ctx, c.url)
		if c.err == "" {
			if err != nil {
				t.Errorf("Open(%q): %v", c.url, err)
			} else {
				s.Close()
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("Open(%q) = %v; want an error containing %q", c.url, err, c.err)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("Open(%q) error shows the password: %v", c.url, err)
		}
	}
}

func TestRegisterTwicePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("a second Register of memory did not panic")
		}
	}()
	store.Register("memory", func(context.Context, *url.URL) (store.Store, error) { return nil, nil })
}

// TestMemoryRecordsBound: past MaxRecords, new records are refused (not
// the memory of the process), and expired ones make room.
func TestMemoryRecordsBound(t *testing.T) {
	now := time.Unix(1000, 0)
	m := store.NewMemory(store.MemoryOptions{MaxRecords: 3, Now: func() time.Time { return now }})
	ctx := context.Background()
	r := m.Records()
	for i := range 3 {
		if err := r.Create(ctx, fmt.Sprint("k", i), []byte("x"), time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Create(ctx, "k3", []byte("x"), time.Minute); err == nil {
		t.Fatal("a fourth record was stored past MaxRecords 3")
	}
	if err := r.Put(ctx, "k0", []byte("y"), time.Minute); err != nil {
		t.Errorf("replacing a record at the bound: %v", err)
	}
	now = now.Add(2 * time.Minute)
	if err := r.Create(ctx, "k3", []byte("x"), time.Minute); err != nil {
		t.Errorf("a record once the others expired: %v", err)
	}
}

// TestMemoryTasksBoundContract: the memory backend's MaxTasks keeps the
// contract every backend's bound keeps.
func TestMemoryTasksBoundContract(t *testing.T) {
	storetest.TasksBound(t, store.NewMemory(store.MemoryOptions{MaxTasks: 5}), 5)
}

// TestMemoryTasksBound: the memory backend keeps a task for its TTL and
// no longer, holds at most MaxTasks, makes room by dropping the oldest
// finished task, and refuses a task when every one kept still runs.
func TestMemoryTasksBound(t *testing.T) {
	now := time.Unix(1000, 0)
	m := store.NewMemory(store.MemoryOptions{MaxTasks: 2, Now: func() time.Time { return now }})
	ctx := context.Background()
	ts := m.Tasks()
	task := func(id string, st store.TaskStatus, created time.Time) store.Task {
		return store.Task{ID: id, Status: st, Created: created, TTL: time.Minute}
	}
	if err := ts.Create(ctx, task("a", store.TaskCompleted, now)); err != nil {
		t.Fatal(err)
	}
	if err := ts.Create(ctx, task("b", store.TaskCompleted, now.Add(time.Second))); err != nil {
		t.Fatal(err)
	}
	// Full: the oldest finished task (a) makes room.
	if err := ts.Create(ctx, task("c", store.TaskWorking, now)); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.Get(ctx, "a"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a was not dropped for c: %v", err)
	}
	if got, err := ts.Get(ctx, "b"); err != nil || got.Status != store.TaskCompleted {
		t.Errorf("b: %+v %v", got, err)
	}
	// b makes room for d; then every task kept runs and the next is refused.
	if err := ts.Create(ctx, task("d", store.TaskWorking, now)); err != nil {
		t.Fatal(err)
	}
	if err := ts.Create(ctx, task("e", store.TaskWorking, now)); !errors.Is(err, store.ErrFull) {
		t.Errorf("a store full of running tasks took another: %v, want store.ErrFull", err)
	}
	// A record is readable until its TTL runs out, not after.
	now = now.Add(time.Minute - time.Millisecond)
	if _, err := ts.Get(ctx, "c"); err != nil {
		t.Errorf("c before the end of its ttl: %v", err)
	}
	now = now.Add(time.Millisecond)
	for _, id := range []string{"c", "d"} {
		if _, err := ts.Get(ctx, id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("%s past its ttl: %v", id, err)
		}
	}
	if err := ts.Create(ctx, task("f", store.TaskWorking, now)); err != nil {
		t.Errorf("expired tasks still take room: %v", err)
	}
	// Get returns a copy: changing it changes nothing stored.
	got, _ := ts.Get(ctx, "f")
	got.Result = []byte("x")
	if again, _ := ts.Get(ctx, "f"); again.Result != nil {
		t.Errorf("Get shares the stored record: %q", again.Result)
	}
}
