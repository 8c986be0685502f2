// Package storetest is the contract suite of package store: every backend
// runs it, the memory backend in every `go test` and a networked backend
// (such as Redis) against a real server, so that the runtime can rely on
// what each interface's documentation promises whatever the backend.
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

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpgen/mcpgen/connector/store"
)

// Run checks that the stores open returns keep every contract of package
// store. open is called once per subtest and must return an empty store
// (or one whose keys do not collide with earlier subtests'); Run closes it.
// The subtests run in parallel.
func Run(t *testing.T, open func(t *testing.T) store.Store) {
	for _, c := range []struct {
		name string
		run  func(*testing.T, store.Store)
	}{
		{"Sessions", testSessions},
		{"SessionsExpire", testSessionsExpire},
		{"Events", testEvents},
		{"Bus", testBus},
		{"Limiter", testLimiter},
		{"LimiterConcurrent", testLimiterConcurrent},
		{"Tasks", testTasks},
		{"TasksFinalRace", testTasksFinalRace},
		{"TasksList", testTasksList},
		{"TasksConditions", testTasksConditions},
		{"TasksLeaseRace", testTasksLeaseRace},
		{"Secrets", testSecrets},
		{"Records", testRecords},
		{"RecordsTakeRace", testRecordsTakeRace},
		{"RecordsExpire", testRecordsExpire},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := open(t)
			t.Cleanup(func() {
				if err := s.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			})
			c.run(t, s)
		})
	}
}

// unique prefixes ids so that subtests sharing one backend do not collide.
var unique atomic.Int64

func id(t *testing.T, name string) string {
	return fmt.Sprintf("storetest-%d-%d-%s", time.Now().UnixNano(), unique.Add(1), name)
}

// eventually polls cond until it holds or 10 s pass: expiry is by TTL in
// the store, which may act on it a little late.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 10s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func testSessions(t *testing.T, st store.Store) {
	ctx := context.Background()
	s := st.Sessions()
	rec := store.Session{ID: id(t, "s"), Subject: "alice", Caller: "sub:alice", Data: []byte(`{"v":1}`)}
	if _, err := s.Get(ctx, rec.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get before Create: %v, want ErrNotFound", err)
	}
	if err := s.Put(ctx, rec, time.Hour); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Put before Create: %v, want ErrNotFound", err)
	}
	if err := s.Touch(ctx, rec.ID, time.Hour); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Touch before Create: %v, want ErrNotFound", err)
	}
	if err := s.Create(ctx, rec, time.Hour); err != nil {
		t.Fatal(err)
	}
	other := rec
	other.Subject = "mallory"
	if err := s.Create(ctx, other, time.Hour); !errors.Is(err, store.ErrExists) {
		t.Errorf("second Create of one id: %v, want ErrExists", err)
	}
	got, err := s.Get(ctx, rec.ID)
	if err != nil || got.ID != rec.ID || got.Subject != "alice" || got.Caller != rec.Caller || !bytes.Equal(got.Data, rec.Data) {
		t.Fatalf("Get = %+v, %v; want %+v", got, err, rec)
	}
	got.Data[0] = 'X' // the caller's copy
	rec.Data = []byte(`{"v":2}`)
	if err := s.Put(ctx, rec, time.Hour); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Get(ctx, rec.ID); string(got.Data) != `{"v":2}` {
		t.Errorf("after Put, Data = %s", got.Data)
	}
	if err := s.Touch(ctx, rec.ID, time.Hour); err != nil {
		t.Errorf("Touch: %v", err)
	}
	if err := s.Delete(ctx, rec.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, rec.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Get after Delete: %v, want ErrNotFound", err)
	}
	if err := s.Delete(ctx, rec.ID); err != nil {
		t.Errorf("second Delete: %v", err)
	}
	if err := s.Put(ctx, rec, time.Hour); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Put after Delete: %v, want ErrNotFound (not brought back)", err)
	}
}

func testSessionsExpire(t *testing.T, st store.Store) {
	ctx := context.Background()
	s := st.Sessions()
	short := store.Session{ID: id(t, "short")}
	kept := store.Session{ID: id(t, "kept")}
	if err := s.Create(ctx, short, 50*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if err := s.Create(ctx, kept, 50*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if err := s.Touch(ctx, kept.ID, time.Hour); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a session past its TTL expires", func() bool {
		_, err := s.Get(ctx, short.ID)
		return errors.Is(err, store.ErrNotFound)
	})
	if _, err := s.Get(ctx, kept.ID); err != nil {
		t.Errorf("a touched session expired with the first TTL: %v", err)
	}
	if err := s.Create(ctx, short, time.Hour); err != nil {
		t.Errorf("Create over an expired session: %v", err)
	}
}

func testEvents(t *testing.T, st store.Store) {
	ctx := context.Background()
	ev := st.Events()
	sess, stream := id(t, "sess"), "0"
	if err := ev.Open(ctx, sess, stream); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := ev.Append(ctx, sess, stream, fmt.Appendf(nil, "e%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	read := func(index int) ([]string, error) {
		var out []string
		for d, err := range ev.After(ctx, sess, stream, index) {
			if err != nil {
				return out, err
			}
			out = append(out, string(d))
		}
		return out, nil
	}
	if got, err := read(-1); err != nil || fmt.Sprint(got) != "[e0 e1 e2]" {
		t.Errorf("After(-1) = %v, %v; want [e0 e1 e2]", got, err)
	}
	if got, err := read(0); err != nil || fmt.Sprint(got) != "[e1 e2]" {
		t.Errorf("After(0) = %v, %v; want [e1 e2]", got, err)
	}
	if got, err := read(2); err != nil || len(got) != 0 {
		t.Errorf("After(2) = %v, %v; want nothing", got, err)
	}
	if got, err := readStream(ctx, ev, sess, "never-opened", -1); !errors.Is(err, mcp.ErrEventsPurged) || len(got) != 0 {
		t.Errorf("After on an unknown stream = %v, %v; want only an error wrapping mcp.ErrEventsPurged", got, err)
	}
	if err := ev.SessionClosed(ctx, sess); err != nil {
		t.Fatal(err)
	}
	if got, err := read(-1); !errors.Is(err, mcp.ErrEventsPurged) || len(got) != 0 {
		t.Errorf("After once the session closed = %v, %v; want only an error wrapping mcp.ErrEventsPurged", got, err)
	}
}

func readStream(ctx context.Context, ev mcp.EventStore, sess, stream string, index int) ([][]byte, error) {
	var out [][]byte
	for d, err := range ev.After(ctx, sess, stream, index) {
		if err != nil {
			return out, err
		}
		out = append(out, d)
	}
	return out, nil
}

func testBus(t *testing.T, st store.Store) {
	ctx := context.Background()
	b := st.Bus()
	a, other := id(t, "a"), id(t, "other")
	s1, err := b.Subscribe(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	defer s1.Close()
	s2, err := b.Subscribe(ctx, a, other)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	for i := range 3 {
		if err := b.Publish(ctx, a, fmt.Appendf(nil, "m%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Publish(ctx, other, []byte("o")); err != nil {
		t.Fatal(err)
	}
	receive := func(s store.Subscription, want ...string) {
		t.Helper()
		for _, w := range want {
			select {
			case m, ok := <-s.C():
				if !ok || string(m.Data) != w {
					t.Fatalf("received %q (open %v), want %q", m.Data, ok, w)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("no message %q within 10s", w)
			}
		}
	}
	receive(s1, "m0", "m1", "m2")
	receive(s2, "m0", "m1", "m2", "o")
	// A subscription whose context ends is closed.
	cctx, cancel := context.WithCancel(ctx)
	s3, err := b.Subscribe(cctx, a)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	eventually(t, "a subscription ends with its context", func() bool {
		select {
		case _, ok := <-s3.C():
			return !ok
		default:
			return false
		}
	})
	s1.Close()
	s1.Close()
	if err := b.Publish(ctx, a, []byte("late")); err != nil {
		t.Fatal(err)
	}
	receive(s2, "late")
	for m := range s1.C() {
		t.Errorf("closed subscription received %q", m.Data)
	}
}

func testLimiter(t *testing.T, st store.Store) {
	ctx := context.Background()
	l := st.Limiter()
	b := store.Bucket{Size: 3, Per: time.Hour}
	k1, k2 := id(t, "k1"), id(t, "k2")
	for i := range 3 {
		if ok, _, err := l.Take(ctx, k1, 1, b); err != nil || !ok {
			t.Fatalf("take %d of 3: %v, %v", i+1, ok, err)
		}
	}
	ok, wait, err := l.Take(ctx, k1, 1, b)
	if err != nil || ok || wait <= 0 || wait > b.Per {
		t.Errorf("take 4 of 3 = %v, %s, %v; want refused with a wait in (0, 1h]", ok, wait, err)
	}
	if ok, _, err := l.Take(ctx, k2, 2, b); err != nil || !ok {
		t.Errorf("another key's bucket: %v, %v; want its own tokens", ok, err)
	}
	if ok, _, err := l.Take(ctx, k2, 2, b); err != nil || ok {
		t.Errorf("take 2 with 1 left = %v, %v; want refused, taking nothing", ok, err)
	}
	if ok, _, err := l.Take(ctx, k2, 1, b); err != nil || !ok {
		t.Errorf("take 1 with 1 left (a refused take takes nothing) = %v, %v", ok, err)
	}
	if ok, wait, err := l.Take(ctx, id(t, "big"), 4, b); err != nil || ok || wait <= 0 {
		t.Errorf("take 4 from a bucket of 3 = %v, %s, %v; want refused with a wait", ok, wait, err)
	}
	// A fast bucket refills.
	fast := store.Bucket{Size: 1, Per: 20 * time.Millisecond}
	k3 := id(t, "fast")
	if ok, _, _ := l.Take(ctx, k3, 1, fast); !ok {
		t.Fatal("first take from a fresh bucket refused")
	}
	eventually(t, "a bucket refills", func() bool {
		ok, _, err := l.Take(ctx, k3, 1, fast)
		return err == nil && ok
	})
}

func testLimiterConcurrent(t *testing.T, st store.Store) {
	ctx := context.Background()
	l := st.Limiter()
	b := store.Bucket{Size: 10, Per: time.Hour}
	key := id(t, "shared")
	var granted atomic.Int64
	var wg sync.WaitGroup
	for range 40 {
		wg.Go(func() {
			ok, _, err := l.Take(ctx, key, 1, b)
			if err != nil {
				t.Error(err)
			}
			if ok {
				granted.Add(1)
			}
		})
	}
	wg.Wait()
	if g := granted.Load(); g != 10 {
		t.Errorf("40 concurrent takes from a bucket of 10 granted %d, want exactly 10", g)
	}
}

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

func testSecrets(t *testing.T, st store.Store) {
	ctx := context.Background()
	s := st.Secrets()
	name := id(t, "key")
	var wg sync.WaitGroup
	keys := make([][]byte, 16)
	for i := range keys {
		wg.Go(func() {
			k, err := s.Key(ctx, name, 32)
			if err != nil {
				t.Error(err)
			}
			keys[i] = k
		})
	}
	wg.Wait()
	if len(keys[0]) != 32 || bytes.Equal(keys[0], make([]byte, 32)) {
		t.Fatalf("key = %x; want 32 random bytes", keys[0])
	}
	for _, k := range keys[1:] {
		if !bytes.Equal(k, keys[0]) {
			t.Fatalf("racing first calls got different keys: %x and %x", keys[0], k)
		}
	}
	keys[0][0] ^= 0xff // the caller's copy
	if again, _ := s.Key(ctx, name, 16); !bytes.Equal(again, keys[1]) {
		t.Errorf("a later call (with another size) got %x, want %x", again, keys[1])
	}
	if other, _ := s.Key(ctx, id(t, "other"), 32); bytes.Equal(other, keys[1]) {
		t.Error("two names share one key")
	}
}

func testRecords(t *testing.T, st store.Store) {
	ctx := context.Background()
	r := st.Records()
	key := id(t, "rec")
	if _, err := r.Get(ctx, key); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get of a missing record: %v; want ErrNotFound", err)
	}
	data := []byte("one")
	if err := r.Create(ctx, key, data, time.Minute); err != nil {
		t.Fatalf("Create: %v", err)
	}
	data[0] = 'X' // the caller's slice is not the stored one
	if err := r.Create(ctx, key, []byte("two"), time.Minute); !errors.Is(err, store.ErrExists) {
		t.Fatalf("second Create: %v; want ErrExists", err)
	}
	got, err := r.Get(ctx, key)
	if err != nil || string(got) != "one" {
		t.Fatalf("Get = %q, %v; want \"one\"", got, err)
	}
	got[0] = 'Y'
	if err := r.Put(ctx, key, []byte("three"), time.Minute); err != nil {
		t.Fatalf("Put: %v", err)
	}
	if got, err := r.Get(ctx, key); err != nil || string(got) != "three" {
		t.Fatalf("Get after Put = %q, %v; want \"three\"", got, err)
	}
	if got, err := r.Take(ctx, key); err != nil || string(got) != "three" {
		t.Fatalf("Take = %q, %v; want \"three\"", got, err)
	}
	if _, err := r.Take(ctx, key); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("second Take: %v; want ErrNotFound", err)
	}
	if _, err := r.Get(ctx, key); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get after Take: %v; want ErrNotFound", err)
	}
	if err := r.Create(ctx, key, []byte("again"), 0); err != nil {
		t.Fatalf("Create after Take: %v", err)
	}
	if err := r.Delete(ctx, key); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if err := r.Delete(ctx, key); err != nil {
		t.Fatalf("Delete of a missing record: %v", err)
	}
	if _, err := r.Get(ctx, key); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get after Delete: %v; want ErrNotFound", err)
	}
}

func testRecordsTakeRace(t *testing.T, st store.Store) {
	ctx := context.Background()
	r := st.Records()
	key := id(t, "code")
	if err := r.Create(ctx, key, []byte("code"), time.Minute); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var won atomic.Int64
	for range 16 {
		wg.Go(func() {
			_, err := r.Take(ctx, key)
			switch {
			case err == nil:
				won.Add(1)
			case !errors.Is(err, store.ErrNotFound):
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := won.Load(); n != 1 {
		t.Fatalf("%d of 16 racing Takes got the record; want exactly 1", n)
	}
}

func testRecordsExpire(t *testing.T, st store.Store) {
	ctx := context.Background()
	r := st.Records()
	key := id(t, "short")
	if err := r.Create(ctx, key, []byte("x"), 50*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a record past its TTL is gone", func() bool {
		_, err := r.Get(ctx, key)
		return errors.Is(err, store.ErrNotFound)
	})
	if _, err := r.Take(ctx, key); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Take of an expired record: %v; want ErrNotFound", err)
	}
	if err := r.Create(ctx, key, []byte("y"), time.Minute); err != nil {
		t.Fatalf("Create over an expired record: %v", err)
	}
}
