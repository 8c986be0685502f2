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
		{"EventsRecord", testEventsRecord},
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

// testEventsRecord: Record is Open and one Append per event in one step:
// an empty event takes its index (a priming event), Append goes on after
// it, and recording onto a stream already opened keeps what it holds.
func testEventsRecord(t *testing.T, st store.Store) {
	ctx := context.Background()
	ev := st.Events()
	sess := id(t, "sess")
	read := func(stream string, index int) string {
		got, err := readStream(ctx, ev, sess, stream, index)
		return fmt.Sprintf("%q %v", got, err)
	}
	if err := ev.Record(ctx, sess, "a", nil, []byte("result")); err != nil {
		t.Fatal(err)
	}
	if got, want := read("a", -1), `["" "result"] <nil>`; got != want {
		t.Errorf("After(-1) of a recorded stream = %s; want %s", got, want)
	}
	if got, want := read("a", 0), `["result"] <nil>`; got != want {
		t.Errorf("After(0) of a recorded stream = %s; want %s", got, want)
	}
	if err := ev.Append(ctx, sess, "a", []byte("later")); err != nil {
		t.Fatal(err)
	}
	if got, want := read("a", 1), `["later"] <nil>`; got != want {
		t.Errorf("After(1) once appended to = %s; want %s", got, want)
	}
	if err := ev.Record(ctx, sess, "b"); err != nil {
		t.Fatal(err)
	}
	if got, want := read("b", -1), `[] <nil>`; got != want {
		t.Errorf("After(-1) of a stream recorded with no event = %s; want %s", got, want)
	}
	if err := ev.Open(ctx, sess, "c"); err != nil {
		t.Fatal(err)
	}
	if err := ev.Append(ctx, sess, "c", []byte("e0")); err != nil {
		t.Fatal(err)
	}
	if err := ev.Record(ctx, sess, "c", []byte("e1"), []byte("e2")); err != nil {
		t.Fatal(err)
	}
	if got, want := read("c", -1), `["e0" "e1" "e2"] <nil>`; got != want {
		t.Errorf("After(-1) of a stream recorded onto = %s; want %s", got, want)
	}
	if err := ev.SessionClosed(ctx, sess); err != nil {
		t.Fatal(err)
	}
	if _, err := readStream(ctx, ev, sess, "a", -1); !errors.Is(err, mcp.ErrEventsPurged) {
		t.Errorf("After once the session closed: %v; want an error wrapping mcp.ErrEventsPurged", err)
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
