package fastpath

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"weak"
)

// waitUntil polls cond for at most 10s.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("after 10s: %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// funcLater is a func as later runs it.
type funcLater func()

func (f funcLater) runLater() { f() }

// Each function runs once, not before its delay, unless cancelled first;
// cancelled ones never run.
func TestLater(t *testing.T) {
	const delay, tick = 20 * time.Millisecond, 5 * time.Millisecond
	l := newLater(delay, tick)
	const n = 1000
	var ran, early atomic.Int64
	runs := make([]atomic.Int32, n)
	calls := make([]uint64, n)
	var wg sync.WaitGroup
	for i := range n {
		if i%2 == 0 {
			wg.Add(1)
		}
		added := time.Now()
		calls[i] = l.add(funcLater(func() {
			if time.Since(added) < delay {
				early.Add(1)
			}
			runs[i].Add(1)
			ran.Add(1)
			if i%2 == 0 {
				wg.Done()
			}
		}))
	}
	for i := 1; i < n; i += 2 {
		l.cancel(calls[i])
	}
	wg.Wait()
	// The cancelled ones' time passes too: none of them runs.
	time.Sleep(delay + 4*tick)
	if got := ran.Load(); got != n/2 {
		t.Fatalf("%d functions ran, want %d", got, n/2)
	}
	for i := range n {
		if want := int32(1 - i%2); runs[i].Load() != want {
			t.Fatalf("function %d ran %d times, want %d", i, runs[i].Load(), want)
		}
	}
	if e := early.Load(); e > 0 {
		t.Fatalf("%d functions ran before their delay", e)
	}
	// Cancelling one that has run changes nothing.
	l.cancel(calls[0])
	l.mu.Lock()
	live := l.live
	l.mu.Unlock()
	if live != 0 {
		t.Fatalf("%d calls counted waiting, want 0", live)
	}
}

// The ticking goroutine stops once no call has waited for a while, and
// starts again with the next call.
func TestLaterStops(t *testing.T) {
	l := newLater(2*time.Millisecond, time.Millisecond)
	running := func() bool { l.mu.Lock(); defer l.mu.Unlock(); return l.running }
	done := make(chan struct{})
	l.add(funcLater(func() { close(done) }))
	<-done
	waitUntil(t, "the ticking goroutine is still on with no call waiting", func() bool { return !running() })
	c := l.add(funcLater(func() { t.Error("a cancelled function ran") }))
	if !running() {
		t.Fatal("the ticking goroutine did not start again")
	}
	l.cancel(c)
	again := make(chan struct{})
	l.add(funcLater(func() { close(again) }))
	<-again
	waitUntil(t, "the ticking goroutine stops again", func() bool { return !running() })
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.queue) != 0 {
		t.Fatalf("%d calls left queued", len(l.queue))
	}
}

// holder is a call's function holding memory, as a call's request and
// answer do.
type holder struct{ buf [1 << 10]byte }

func (*holder) runLater() {}

// A cancelled call's function is let go of at once, not kept until its
// due time: a server's calls end long before it, and each would keep its
// request and answer alive that long.
func TestLaterLetsGo(t *testing.T) {
	l := newLater(time.Hour, time.Hour)
	h := &holder{}
	w := weak.Make(h)
	turn := l.add(h)
	kept := l.add(&holder{}) // a call still waiting stays
	l.cancel(turn)
	h = nil
	runtime.GC()
	if w.Value() != nil {
		t.Fatal("a cancelled call's function is still held")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.live != 1 || l.queue[kept-l.head].fn == nil {
		t.Fatalf("the waiting call was dropped: %d live", l.live)
	}
}
