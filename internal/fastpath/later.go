package fastpath

import (
	"sync"
	"time"
)

// later runs a function for each call still running a delay after it
// began: the priming event of a resumable answer (serveStream). It does
// for every call what time.AfterFunc does for one, with one timer for all.
//
// A timer per call made the runtime wake its network poller for each one
// (an eventfd write, then a return from epoll_wait): a call in a session
// usually ends long before its timer, so the timer is the earliest there
// is whenever the call begins, and a new earliest timer interrupts the
// poller's wait. About 2.5 µs a call, a sixth of a loaded server's
// handling of it. A ticker that keeps running while calls do is waited on
// by the poller like any other deadline. The price is precision: a
// function runs between delay and delay+tick after its call began.
type later struct {
	delay, tick time.Duration

	mu      sync.Mutex
	queue   []*laterCall // by due time: every call waits the same delay
	live    int          // calls in queue neither run nor cancelled
	running bool         // the ticking goroutine is on
}

// laterCall is one call's place in the queue, until its function runs or
// is cancelled. It is the caller's, usually part of what the call keeps
// anyway, so that adding a call allocates nothing.
type laterCall struct {
	due time.Time
	fn  laterFunc // nil once taken to run, or cancelled
}

// laterFunc is what runs for a call: an interface rather than a func, so
// that the call's own struct is the function and no closure is made.
type laterFunc interface{ runLater() }

// laterIdleTicks is how many ticks without calls the ticking goroutine
// waits before it stops: a server between two calls keeps it.
const laterIdleTicks = 20

func newLater(delay, tick time.Duration) *later {
	return &later{delay: delay, tick: tick}
}

// add has fn run in its own goroutine delay (to delay+tick) from now,
// unless cancel(c) is called first; c must not be added again before
// then. As with time.AfterFunc's Stop, fn may still be running, or about
// to, after cancel: it must check itself whether it is still wanted.
func (l *later) add(c *laterCall, fn laterFunc) {
	l.mu.Lock()
	*c = laterCall{due: time.Now().Add(l.delay), fn: fn}
	l.queue = append(l.queue, c)
	l.live++
	if !l.running {
		l.running = true
		go l.run()
	}
	l.mu.Unlock()
}

// cancel keeps c's function from running, if it has not been taken to run.
func (l *later) cancel(c *laterCall) {
	l.mu.Lock()
	if c.fn != nil {
		c.fn = nil
		l.live--
	}
	l.mu.Unlock()
}

// run ticks while calls are waiting, and for laterIdleTicks ticks after.
func (l *later) run() {
	t := time.NewTicker(l.tick)
	defer t.Stop()
	idle := 0
	var due []laterFunc
	for now := range t.C {
		l.mu.Lock()
		for len(l.queue) > 0 && !now.Before(l.queue[0].due) {
			c := l.queue[0]
			l.queue[0] = nil
			l.queue = l.queue[1:]
			if c.fn != nil {
				due = append(due, c.fn)
				c.fn = nil
				l.live--
			}
		}
		if l.live > 0 {
			idle = 0
		} else if idle++; idle >= laterIdleTicks {
			clear(l.queue) // cancelled calls only
			l.queue = l.queue[:0]
			l.running = false
			l.mu.Unlock()
			return
		}
		l.mu.Unlock()
		for i, fn := range due {
			go fn.runLater()
			due[i] = nil
		}
		due = due[:0]
	}
}
