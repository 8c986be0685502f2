package fastpath

import (
	"sync"
	"time"
)

// callTable holds the calls in flight in sessions, by session and
// JSON-RPC id: for duplicate ids, notifications/cancelled and a session's
// end. It also primes the resumable ones (serveStream) that are still
// running primeDelay after they began, from one ticker that runs while
// such calls do.
//
// A timer per call made the runtime wake its network poller for each one
// (an eventfd write, then a return from epoll_wait): a call in a session
// usually ends long before its timer, so the timer is the earliest there
// is whenever the call begins, and a new earliest timer interrupts the
// poller's wait. About 2.5 µs a call, a sixth of a loaded server's
// handling of it. A ticker is waited on by the poller like any other
// deadline, and the table the call is in anyway is where the ticker
// finds it. The price is precision: a call is primed between delay and
// delay+tick after it began.
type callTable struct {
	delay, tick time.Duration

	mu      sync.Mutex
	calls   map[inflightKey]*fastCall
	running bool // the ticking goroutine is on
}

// tableIdleTicks is how many ticks without a resumable call the ticking
// goroutine waits before it stops: a server between two calls keeps it.
const tableIdleTicks = 20

func newCallTable(delay, tick time.Duration) *callTable {
	return &callTable{delay: delay, tick: tick, calls: map[inflightKey]*fastCall{}}
}

// add enters c under c.key, unless a call is there already. A resumable
// call gets its runLater run, in a goroutine of its own, once it has been
// in the table for the delay, unless it is removed first; runLater may
// still run, or be about to, after remove: it must check whether it is
// still wanted.
func (t *callTable) add(c *fastCall) bool {
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, dup := t.calls[c.key]; dup {
		return false
	}
	c.added = now
	t.calls[c.key] = c
	if c.resumable && !t.running {
		t.running = true
		go t.run()
	}
	return true
}

// remove takes c out of the table.
func (t *callTable) remove(c *fastCall) {
	t.mu.Lock()
	if t.calls[c.key] == c {
		delete(t.calls, c.key)
	}
	t.mu.Unlock()
}

// get returns the call under key, or nil.
func (t *callTable) get(key inflightKey) *fastCall {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.calls[key]
}

// endSession cancels the calls of session id.
func (t *callTable) endSession(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for k, c := range t.calls {
		if k.session == id {
			c.cancel()
		}
	}
}

// run ticks while resumable calls are in the table, and for
// tableIdleTicks ticks after.
func (t *callTable) run() {
	tk := time.NewTicker(t.tick)
	defer tk.Stop()
	idle := 0
	var due []*fastCall
	for now := range tk.C {
		t.mu.Lock()
		waiting := false
		for _, c := range t.calls {
			switch {
			case !c.resumable || c.primeTaken:
			case now.Sub(c.added) >= t.delay:
				c.primeTaken = true
				due = append(due, c)
			default:
				waiting = true
			}
		}
		if waiting {
			idle = 0
		} else if idle++; idle >= tableIdleTicks {
			t.running = false
			t.mu.Unlock()
			return
		}
		t.mu.Unlock()
		for i, c := range due {
			go c.runLater()
			due[i] = nil
		}
		due = due[:0]
	}
}
