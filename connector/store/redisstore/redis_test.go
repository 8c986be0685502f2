package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpgen/mcpgen/connector/store"
	"github.com/mcpgen/mcpgen/connector/store/redisstore"
	"github.com/mcpgen/mcpgen/connector/store/storetest"
	"github.com/mcpgen/mcpgen/internal/testenv"
)

func TestContract(t *testing.T) {
	r := testenv.StartRedis(t)
	storetest.Run(t, func(t *testing.T) store.Store {
		s, err := store.Open(context.Background(), r.URL()+"/0?prefix="+t.Name()+":")
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// TestTasksBound: max_tasks bounds one owner's live tasks; a task that
// expires makes room again.
func TestTasksBound(t *testing.T) {
	r := testenv.StartRedis(t)
	ctx := context.Background()
	st, err := store.Open(ctx, r.URL()+"/0?prefix=bound:&max_tasks=3")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	storetest.TasksBound(t, st, 3)
	// Another owner has room of its own; its tasks expire and leave room.
	ts := st.Tasks()
	for i := range 3 {
		if err := ts.Create(ctx, store.Task{ID: fmt.Sprint("short-", i), Owner: "bob", TTL: 100 * time.Millisecond}); err != nil {
			t.Fatalf("bob's task %d: %v", i, err)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := ts.Create(ctx, store.Task{ID: "after", Owner: "bob", TTL: time.Minute})
		if err == nil {
			break
		}
		if !errors.Is(err, store.ErrFull) || time.Now().After(deadline) {
			t.Fatalf("Create once bob's tasks expired: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct{ url, err string }{
		{"redis://u:hunter2@127.0.0.1:1/0?cluster=maybe", `cluster="maybe": want true or false`},
		{"redis://u:hunter2@127.0.0.1:1/x", "redis://u:xxxxx@127.0.0.1:1/x"},
		{"redis://u:hunter2@127.0.0.1:1/0?max_tasks=0", `max_tasks="0": want a positive number of tasks`},
	} {
		s, err := store.Open(ctx, c.url)
		if err == nil {
			s.Close()
			t.Errorf("Open(%q) succeeded; want an error containing %q", c.url, c.err)
			continue
		}
		if !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("Open(%q) = %v; want an error containing %q and no password", c.url, err, c.err)
		}
	}
}

// TestRedisDown: with Redis gone, operations fail fast with an error
// naming the store, Health says so, and both recover once Redis is back.
func TestRedisDown(t *testing.T) {
	r := testenv.StartRedis(t)
	ctx := context.Background()
	st, err := store.Open(ctx, r.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	h := st.(interface{ Health() error })
	if err := h.Health(); err != nil {
		t.Fatalf("Health with Redis up: %v", err)
	}
	if _, err := st.Secrets().Key(ctx, "k", 16); err != nil {
		t.Fatal(err)
	}
	r.Stop()
	start := time.Now()
	_, _, err = st.Limiter().Take(ctx, "x", 1, store.Bucket{Size: 1, Per: time.Minute})
	if err == nil || !strings.Contains(err.Error(), "store redis://"+r.Addr) {
		t.Errorf("Take with Redis down: %v; want an error naming the store", err)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("Take with Redis down took %s", d)
	}
	deadline := time.Now().Add(15 * time.Second)
	for h.Health() == nil {
		if time.Now().After(deadline) {
			t.Fatal("Health still nil 15s after Redis stopped")
		}
		time.Sleep(50 * time.Millisecond)
	}
	r.Start()
	for {
		ok, _, err := st.Limiter().Take(ctx, "y", 1, store.Bucket{Size: 5, Per: time.Minute})
		if err == nil && ok && h.Health() == nil {
			break
		}
		if time.Now().After(deadline.Add(15 * time.Second)) {
			t.Fatalf("no recovery after Redis restarted: %v, health %v", err, h.Health())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestRecordTrims: a stream recorded in one step past DefaultStreamEvents
// keeps its last events, as one appended event by event does, and
// resuming before them is ErrEventsPurged.
func TestRecordTrims(t *testing.T) {
	r := testenv.StartRedis(t)
	ctx := context.Background()
	st, err := store.Open(ctx, r.URL()+"/0?prefix=trim:")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ev := st.Events()
	n := redisstore.DefaultStreamEvents + 44
	var data [][]byte
	for i := range n - 4 {
		data = append(data, fmt.Appendf(nil, "e%d", i))
	}
	if err := ev.Record(ctx, "s", "0", data...); err != nil {
		t.Fatal(err)
	}
	if err := ev.Record(ctx, "s", "0", []byte("e296"), nil, []byte("e298"), []byte("e299")); err != nil {
		t.Fatal(err)
	}
	first := n - redisstore.DefaultStreamEvents
	for _, c := range []struct {
		index  int
		want   int
		purged bool
	}{{-1, 0, true}, {first - 2, 0, true}, {first - 1, redisstore.DefaultStreamEvents, false}, {n - 3, 2, false}} {
		var got []string
		var err error
		for d, e := range ev.After(ctx, "s", "0", c.index) {
			if e != nil {
				err = e
				break
			}
			got = append(got, string(d))
		}
		if c.purged {
			if !errors.Is(err, mcp.ErrEventsPurged) || len(got) != 0 {
				t.Errorf("After(%d) = %d events, %v; want only ErrEventsPurged", c.index, len(got), err)
			}
			continue
		}
		if err != nil || len(got) != c.want || got[len(got)-1] != fmt.Sprint("e", n-1) || got[0] != fmt.Sprint("e", c.index+1) && got[0] != "" {
			t.Errorf("After(%d) = %d events (%v…), %v; want %d ending in e%d", c.index, len(got), got[:min(len(got), 2)], err, c.want, n-1)
		}
	}
}
