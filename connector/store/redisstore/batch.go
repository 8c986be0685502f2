package redisstore

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// batcher sends the event writes (Open, Append, Record) of concurrent
// requests to Redis together, one pipeline and so one round trip for all
// of them, where each would otherwise make its own (group commit). A
// write run with run returns only once Redis has run it, with its own
// result: its caller sees what it would see alone, and the writes of one
// stream, each waited for by its caller before the next, keep their
// order. A write queued with later (write-behind) is waited for by
// nobody: it goes with the next batch, at the latest linger after it was
// queued, and its done function gets its result.
//
// There is no goroutine of its own: a write that finds no batch in flight
// sends itself and whatever is queued (as a lone write would, with no
// hand-off); writes arriving meanwhile queue, and when the batch is done
// the first caller among them sends the next one, so no caller sends
// more than one batch. Writes behind with no caller to carry them are
// sent by a timer.
type batcher struct {
	rdb    redis.UniversalClient
	linger time.Duration // how long a write behind may wait for others

	mu    sync.Mutex
	queue []*write
	busy  bool // a batch is in flight
	armed bool // the timer will send the queue
	timer *time.Timer
}

// maxBehind is how many writes behind make the queue go without waiting
// for the timer.
const maxBehind = 128

// maxQueued bounds the queue: while Redis does not keep up (down, each
// batch waiting for its timeout), a write behind that finds this many
// queued fails at once with errBehind rather than the queue growing with
// the request rate.
const maxQueued = 4096

// errBehind is the error of a write behind refused by a full queue.
var errBehind = errors.New("too many event writes waiting for Redis; this one was dropped")

// write is one script run by the batcher.
type write struct {
	script *redis.Script
	keys   []string
	args   []any
	err    error
	sent   bool          // guarded by batcher.mu
	wake   chan struct{} // a caller's: its write was sent, or it sends next
	done   func(error)   // a write behind's
}

// run runs script on keys with args through the batch, and returns its
// error. It waits for the batch even when ctx ends (each round trip is
// bounded by the client's timeouts), so that a batch it was to send
// never stalls.
func (b *batcher) run(ctx context.Context, script *redis.Script, keys []string, args ...any) error {
	w := &write{script: script, keys: keys, args: args, wake: make(chan struct{}, 1)}
	b.mu.Lock()
	b.queue = append(b.queue, w)
	if b.busy {
		b.mu.Unlock()
		<-w.wake
		b.mu.Lock()
		if w.sent {
			b.mu.Unlock()
			return w.err
		}
		// w is the first caller in the queue: it sends the next batch.
	}
	b.sendQueue(ctx)
	return w.err
}

// later queues a write that nobody waits for; done is called with its
// result once it has been sent.
func (b *batcher) later(script *redis.Script, keys []string, done func(error), args ...any) {
	w := &write{script: script, keys: keys, args: args, done: done}
	b.mu.Lock()
	if len(b.queue) >= maxQueued {
		b.mu.Unlock()
		done(errBehind)
		return
	}
	b.queue = append(b.queue, w)
	switch {
	case b.busy:
		// The batch in flight hands the queue on when it is done.
	case len(b.queue) >= maxBehind:
		b.armed = true
		go b.flush()
	case !b.armed:
		b.arm()
	}
	b.mu.Unlock()
}

// arm starts the timer that sends the queue. Requires b.mu.
func (b *batcher) arm() {
	b.armed = true
	if b.timer == nil {
		b.timer = time.AfterFunc(b.linger, b.flush)
	} else {
		b.timer.Reset(b.linger)
	}
}

// flush sends the queue unless a batch is in flight (which hands the
// queue on when it is done).
func (b *batcher) flush() {
	b.mu.Lock()
	b.armed = false
	if b.busy || len(b.queue) == 0 {
		b.mu.Unlock()
		return
	}
	b.sendQueue(context.Background())
}

// sendQueue sends the queue as one batch, then hands the next batch to
// the first caller waiting, or to the timer. It requires b.mu, which it
// releases.
func (b *batcher) sendQueue(ctx context.Context) {
	b.busy = true
	batch := b.queue
	b.queue = nil
	b.mu.Unlock()

	b.send(context.WithoutCancel(ctx), batch)

	b.mu.Lock()
	for _, x := range batch {
		x.sent = true
		if x.wake != nil {
			select {
			case x.wake <- struct{}{}:
			default: // the sender's own
			}
		}
	}
	b.busy = false
	for _, x := range b.queue {
		if x.wake != nil {
			b.busy = true
			x.wake <- struct{}{}
			break
		}
	}
	if !b.busy && len(b.queue) > 0 && !b.armed {
		b.arm()
	}
	b.mu.Unlock()
	for _, x := range batch {
		if x.done != nil {
			x.done(x.err)
		}
	}
}

// drain sends what is queued and waits for the batch in flight: once it
// returns, every write behind queued before it has been sent.
func (b *batcher) drain() {
	for {
		b.mu.Lock()
		switch {
		case b.busy:
			b.mu.Unlock()
			time.Sleep(time.Millisecond)
		case len(b.queue) > 0:
			b.sendQueue(context.Background())
		default:
			if b.timer != nil {
				b.timer.Stop()
			}
			b.mu.Unlock()
			return
		}
	}
}

// send runs batch's writes in one pipeline and sets each one's error.
func (b *batcher) send(ctx context.Context, batch []*write) {
	if len(batch) == 1 {
		w := batch[0]
		w.err = w.script.Run(ctx, b.rdb, w.keys, w.args...).Err()
		return
	}
	cmds, _ := b.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, w := range batch {
			w.script.EvalSha(ctx, p, w.keys, w.args...)
		}
		return nil
	})
	for i, w := range batch {
		if i >= len(cmds) {
			w.err = redis.ErrClosed
			continue
		}
		w.err = cmds[i].Err()
		if w.err != nil && strings.HasPrefix(w.err.Error(), "NOSCRIPT") {
			// Redis lost its scripts (a restart): Run loads it again.
			w.err = w.script.Run(ctx, b.rdb, w.keys, w.args...).Err()
		}
	}
}
