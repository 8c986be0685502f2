package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"

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

// TestEventsConcurrent: event writes of many requests at once, which
// travel to Redis together, each still get their own result, and the
// writes of each stream keep their order; also after Redis has forgotten
// its scripts (SCRIPT FLUSH, as after a restart).
func TestEventsConcurrent(t *testing.T) {
	r := testenv.StartRedis(t)
	ctx := context.Background()
	st, err := store.Open(ctx, r.URL()+"/0?prefix=conc:")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rdb := redis.NewClient(&redis.Options{Addr: r.Addr})
	defer rdb.Close()
	ev := st.Events()
	for round := range 2 {
		if round == 1 {
			if err := rdb.ScriptFlush(ctx).Err(); err != nil {
				t.Fatal(err)
			}
		}
		var wg sync.WaitGroup
		errs := make(chan error, 32)
		for g := range 32 {
			wg.Go(func() {
				sess, stream := fmt.Sprint("s", g%4), fmt.Sprint(round, "-", g)
				if err := ev.Record(ctx, sess, stream, nil, []byte("r0")); err != nil {
					errs <- err
					return
				}
				for i := 1; i < 10; i++ {
					if err := ev.Append(ctx, sess, stream, fmt.Appendf(nil, "r%d", i)); err != nil {
						errs <- err
						return
					}
				}
				var got []string
				for d, err := range ev.After(ctx, sess, stream, 0) {
					if err != nil {
						errs <- err
						return
					}
					got = append(got, string(d))
				}
				if want := "[r0 r1 r2 r3 r4 r5 r6 r7 r8 r9]"; fmt.Sprint(got) != want {
					errs <- fmt.Errorf("stream %s of %s: %v; want %s", stream, sess, got, want)
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Errorf("round %d: %v", round, err)
		}
	}
	// A write that fails fails alone: a record of another type at a
	// session's events key makes its scripts fail, not the others'.
	if err := rdb.Set(ctx, "conc:{s:broken}:events", "x", 0).Err(); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var failed, ok atomic.Int64
	for g := range 16 {
		wg.Go(func() {
			sess := "s0"
			if g%4 == 0 {
				sess = "broken"
			}
			if err := ev.Record(ctx, sess, fmt.Sprint("x", g), []byte("e")); err != nil {
				if sess != "broken" {
					t.Errorf("Record on %s: %v", sess, err)
				}
				failed.Add(1)
				return
			}
			if sess == "broken" {
				t.Errorf("Record on a key of another type succeeded")
			}
			ok.Add(1)
		})
	}
	wg.Wait()
	if failed.Load() != 4 || ok.Load() != 12 {
		t.Errorf("%d writes failed, %d succeeded; want 4 and 12", failed.Load(), ok.Load())
	}
}

// TestRecordLater: writes behind are stored, each one's done called once
// with its outcome, and Close sends those still queued before it returns
// (a replica that drains on SIGTERM loses none).
func TestRecordLater(t *testing.T) {
	r := testenv.StartRedis(t)
	ctx := context.Background()
	for _, linger := range []string{"0", "20ms", "1s"} {
		t.Run(linger, func(t *testing.T) {
			prefix := "later" + linger + ":"
			st, err := store.Open(ctx, r.URL()+"/0?prefix="+prefix+"&write_behind="+linger)
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			var done sync.Map
			for g := range 20 {
				wg.Go(func() {
					st.Events().RecordLater(ctx, "s", fmt.Sprint(g), func(err error) {
						if _, again := done.LoadOrStore(g, err); again {
							t.Errorf("done of write %d called twice", g)
						}
					}, nil, fmt.Appendf(nil, "r%d", g))
				})
			}
			wg.Wait()
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			other, err := store.Open(ctx, r.URL()+"/0?prefix="+prefix)
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close()
			for g := range 20 {
				err, ok := done.Load(g)
				if !ok {
					t.Errorf("write %d: done not called by the time Close returned", g)
					continue
				}
				if err != nil {
					t.Errorf("write %d: %v", g, err)
				}
				var got []string
				for d, err := range other.Events().After(ctx, "s", fmt.Sprint(g), 0) {
					if err != nil {
						t.Errorf("write %d: After: %v", g, err)
						break
					}
					got = append(got, string(d))
				}
				if fmt.Sprint(got) != fmt.Sprint("[r", g, "]") {
					t.Errorf("write %d: After(0) on another store = %v; want [r%d]", g, got, g)
				}
			}
		})
	}
	if _, err := store.Open(ctx, r.URL()+"/0?write_behind=soon"); err == nil || !strings.Contains(err.Error(), `write_behind="soon"`) {
		t.Errorf("Open with write_behind=soon: %v; want an error naming it", err)
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

// TestStreamsBound: a session keeps its store.DefaultEventStreams most
// recently used streams; recording more drops the oldest, whole (events
// and bookkeeping), so a session's hash in Redis does not grow with its
// calls, and only the dropped streams answer ErrEventsPurged.
func TestStreamsBound(t *testing.T) {
	r := testenv.StartRedis(t)
	ctx := context.Background()
	st, err := store.Open(ctx, r.URL()+"/0?prefix=bound:")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ev := st.Events()
	max, extra := store.DefaultEventStreams, 5
	for i := range max + extra {
		// A session answer: a priming event (no data) and the result.
		if err := ev.Record(ctx, "s", fmt.Sprint(i), nil, fmt.Appendf(nil, "result %d", i)); err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			// An appended event on a stream that is already open.
			if err := ev.Append(ctx, "s", fmt.Sprint(i), []byte("more")); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i := range max + extra {
		var got []string
		var err error
		for d, e := range ev.After(ctx, "s", fmt.Sprint(i), 0) {
			if e != nil {
				err = e
				break
			}
			got = append(got, string(d))
		}
		if i < extra {
			if !errors.Is(err, mcp.ErrEventsPurged) {
				t.Errorf("stream %d of %d (among the oldest): %v, %v; want ErrEventsPurged", i, max+extra, got, err)
			}
			continue
		}
		if err != nil || len(got) == 0 || got[0] != fmt.Sprint("result ", i) {
			t.Errorf("stream %d of %d: %q, %v; want its result", i, max+extra, got, err)
		}
	}
	rdb := redis.NewClient(&redis.Options{Addr: r.Addr})
	defer rdb.Close()
	var fields int64
	keys, err := rdb.Keys(ctx, "bound:*").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if typ, _ := rdb.Type(ctx, k).Result(); typ == "hash" {
			n, _ := rdb.HLen(ctx, k).Result()
			fields += n
		}
	}
	// Per stream kept: first, next, the result, and "more" on every
	// other one (the priming event has no data and no field).
	want := int64(3*max + (max+1)/2)
	if fields != want {
		t.Errorf("the session's hash holds %d fields, want %d (%d streams kept)", fields, want, max)
	}
}
