package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/connector/store"
	_ "github.com/mcpgen/mcpgen/connector/store/redisstore"
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

// TestSubscriptionEndsWhenCutOff: a subscription whose connection Redis
// drops ends (its channel is closed) rather than reconnecting silently and
// losing what was published meanwhile, so the subscriber knows to deliver
// locally and subscribe again; once Redis is back a new subscription gets
// messages.
func TestSubscriptionEndsWhenCutOff(t *testing.T) {
	r := testenv.StartRedis(t)
	ctx := context.Background()
	st, err := store.Open(ctx, r.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sub, err := st.Bus().Subscribe(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	r.Stop()
	select {
	case _, ok := <-sub.C():
		if ok {
			t.Fatal("a message arrived after Redis stopped")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the subscription did not end 10s after Redis stopped")
	}
	r.Start()
	deadline := time.Now().Add(15 * time.Second)
	for {
		again, err := st.Bus().Subscribe(ctx, "t")
		if err == nil {
			defer again.Close()
			if err := st.Bus().Publish(ctx, "t", []byte("back")); err != nil {
				t.Fatal(err)
			}
			select {
			case m := <-again.C():
				if string(m.Data) != "back" {
					t.Errorf("got %q, want back", m.Data)
				}
			case <-time.After(5 * time.Second):
				t.Error("no message on a subscription made once Redis was back")
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("cannot subscribe 15s after Redis restarted: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
