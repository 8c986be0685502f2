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
	queue   []laterEntry // by due time: every call waits the same delay
	head    uint64       // the turn of queue[0]; turns count up from 0
	live    int          // calls in queue neither run nor cancelled
	running bool         // the ticking goroutine is on
}

// laterEntry is one call's function, until it runs or is cancelled. The
// queue holds entries, not pointers to them, and cancel finds a call's
// entry by its turn: adding a call allocates nothing, and a cancelled
// call's function (with whatever it holds: a call's request and answer)
// is let go of at once, not when its due time comes.
type laterEntry struct {
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
// unless cancel is called first with the turn add returns. As with
// time.AfterFunc's Stop, fn may still be running, or about to, after
// cancel: it must check itself whether it is still wanted.
func (l *later) add(fn laterFunc) (turn uint64) {
	l.mu.Lock()
	turn = l.head + uint64(len(l.queue))
	l.queue = append(l.queue, laterEntry{due: time.Now().Add(l.delay), fn: fn})
	l.live++
	if !l.running {
		l.running = true
		go l.run()
	}
	l.mu.Unlock()
	return turn
}

// cancel keeps the function of turn from running, if it has not been
// taken to run.
func (l *later) cancel(turn uint64) {
	l.mu.Lock()
	// A turn already taken from the queue is below head: i wraps around,
	// past the queue's end.
	if i := turn - l.head; i < uint64(len(l.queue)) && l.queue[i].fn != nil {
		l.queue[i].fn = nil
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
			if fn := l.queue[0].fn; fn != nil {
				due = append(due, fn)
				l.live--
			}
			l.queue[0] = laterEntry{}
			l.queue = l.queue[1:]
			l.head++
		}
		if l.live > 0 {
			idle = 0
		} else if idle++; idle >= laterIdleTicks {
			// Cancelled calls only: they are dropped, their turns
			// counted as taken.
			l.head += uint64(len(l.queue))
			clear(l.queue)
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
