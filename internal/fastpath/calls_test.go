package fastpath

import (
	"context"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"weak"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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

// primeRecorder records when, and how many times, a call's answer began.
type primeRecorder struct {
	*httptest.ResponseRecorder
	at     atomic.Int64 // UnixNano of the first WriteHeader
	starts atomic.Int32
}

func (p *primeRecorder) WriteHeader(code int) {
	if p.starts.Add(1) == 1 {
		p.at.Store(time.Now().UnixNano())
	}
	p.ResponseRecorder.WriteHeader(code)
}

// tableCall is a resumable call in session s of h, answered into a
// primeRecorder.
func tableCall(h *Handler, s string, i int) (*fastCall, *primeRecorder) {
	w := &primeRecorder{ResponseRecorder: httptest.NewRecorder()}
	ctx, cancel := context.WithCancel(context.Background())
	id := strconv.Itoa(i)
	return &fastCall{f: h, key: inflightKey{s, id}, resumable: true, w: w, sid: s, ctx: ctx, cancel: cancel}, w
}

func newTableHandler(t *testing.T) *Handler {
	h := New(Config{MaxBody: 1 << 20}, newFake())
	h.events = mcp.NewMemoryEventStore(nil)
	return h
}

// Each resumable call still in the table after the delay is primed once,
// never before; calls removed before then are not primed.
func TestCallTablePrimes(t *testing.T) {
	h := newTableHandler(t)
	const n = 400
	added := make([]time.Time, n)
	calls := make([]*fastCall, n)
	recs := make([]*primeRecorder, n)
	removedAfter := make([]time.Duration, n)
	for i := range n {
		calls[i], recs[i] = tableCall(h, "s"+strconv.Itoa(i%7), i)
		added[i] = time.Now()
		if !h.calls.add(calls[i]) {
			t.Fatalf("call %d: refused", i)
		}
		if i%2 == 1 {
			h.calls.remove(calls[i]) // ended at once
			removedAfter[i] = time.Since(added[i])
		}
		time.Sleep(20 * time.Microsecond) // calls begin at every point between two ticks
	}
	waitUntil(t, "the calls left in the table primed", func() bool {
		for i := 0; i < n; i += 2 {
			if recs[i].starts.Load() == 0 {
				return false
			}
		}
		return true
	})
	// The removed ones' time passes too.
	time.Sleep(primeDelay + 4*h.calls.tick)
	for i := range n {
		calls[i].mu.Lock() // runLater writes under it
		body := recs[i].Body.String()
		calls[i].mu.Unlock()
		switch starts := recs[i].starts.Load(); {
		case i%2 == 1 && starts != 0 && removedAfter[i] < primeDelay:
			// (A test stalled between the two steps let the call run
			// past the delay.)
			t.Fatalf("call %d was primed after it left the table, %v after it began", i, removedAfter[i])
		case i%2 == 0 && starts != 1:
			t.Fatalf("call %d began its answer %d times", i, starts)
		case i%2 == 0 && time.Unix(0, recs[i].at.Load()).Sub(added[i]) < primeDelay:
			t.Fatalf("call %d primed %v after it began, before the delay", i, time.Unix(0, recs[i].at.Load()).Sub(added[i]))
		case i%2 == 0 && !strings.Contains(body, "event: prime\nid: "):
			t.Fatalf("call %d: no priming event: %q", i, body)
		}
	}
}

// A call under a key already in the table is refused; a session's end
// cancels its calls and no other session's.
func TestCallTableKeys(t *testing.T) {
	h := newTableHandler(t)
	a, _ := tableCall(h, "a", 1)
	again, _ := tableCall(h, "a", 1)
	b, _ := tableCall(h, "b", 1)
	for _, c := range []*fastCall{a, b} {
		c.resumable = false
		if !h.calls.add(c) {
			t.Fatal("refused")
		}
	}
	if h.calls.add(again) {
		t.Fatal("a second call under the same session and id was taken")
	}
	if h.calls.get(inflightKey{"a", "1"}) != a {
		t.Fatal("get does not find the call")
	}
	h.calls.endSession("a")
	if a.ctx.Err() == nil || b.ctx.Err() != nil {
		t.Fatalf("after session a ended: a %v, b %v", a.ctx.Err(), b.ctx.Err())
	}
	h.calls.remove(again) // not the one in the table: no effect
	if h.calls.get(inflightKey{"a", "1"}) != a {
		t.Fatal("removing another call under the same key removed the one there")
	}
}

// The ticking goroutine stops once no resumable call has waited for a
// while, and starts again with the next one.
func TestCallTableStops(t *testing.T) {
	h := newTableHandler(t)
	running := func() bool { h.calls.mu.Lock(); defer h.calls.mu.Unlock(); return h.calls.running }
	c, w := tableCall(h, "s", 1)
	h.calls.add(c)
	waitUntil(t, "the call primed", func() bool { return w.starts.Load() == 1 })
	h.calls.remove(c)
	waitUntil(t, "the ticking goroutine is still on with no call waiting", func() bool { return !running() })
	plain, _ := tableCall(h, "s", 2)
	plain.resumable = false
	h.calls.add(plain)
	if running() {
		t.Fatal("a call that is not resumable started the ticking goroutine")
	}
	c2, w2 := tableCall(h, "s", 3)
	h.calls.add(c2)
	if !running() {
		t.Fatal("the ticking goroutine did not start again")
	}
	waitUntil(t, "the second call primed", func() bool { return w2.starts.Load() == 1 })
	h.calls.remove(c2)
	h.calls.remove(plain)
	waitUntil(t, "the ticking goroutine stops again", func() bool { return !running() })
}

// A call that has left the table is let go of: the table holds no call,
// with its request and answer, past its end.
func TestCallTableLetsGo(t *testing.T) {
	h := newTableHandler(t)
	c, _ := tableCall(h, "s", 1)
	c.resumable = false
	wp := weak.Make(c)
	h.calls.add(c)
	h.calls.remove(c)
	c = nil
	runtime.GC()
	if wp.Value() != nil {
		t.Fatal("a call that left the table is still held")
	}
}
