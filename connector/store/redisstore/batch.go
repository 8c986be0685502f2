package redisstore

import (
	"context"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"
)

// batcher sends the event writes (Open, Append, Record) of concurrent
// requests to Redis together, one pipeline and so one round trip for all
// of them, where each would otherwise make its own (group commit). Every
// write still returns only once Redis has run it, with its own result: a
// caller sees what it would see alone, and the writes of one stream, each
// waited for by its caller before the next, keep their order.
//
// There is no goroutine of its own: a write that finds no batch in flight
// sends itself and whatever is queued (as a lone write would, with no
// hand-off); writes arriving meanwhile queue, and when the batch is done
// the first of them sends the next one, so no caller sends more than one
// batch.
type batcher struct {
	rdb   redis.UniversalClient
	mu    sync.Mutex
	queue []*write
	busy  bool // a batch is in flight
}

// write is one script run by the batcher.
type write struct {
	script *redis.Script
	keys   []string
	args   []any
	err    error
	sent   bool          // guarded by batcher.mu
	wake   chan struct{} // the write was sent, or its caller sends next
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
		// w is first in the queue: it sends the next batch.
	}
	b.busy = true
	batch := b.queue
	b.queue = nil
	b.mu.Unlock()

	b.send(context.WithoutCancel(ctx), batch)

	b.mu.Lock()
	for _, x := range batch {
		x.sent = true
		if x != w {
			x.wake <- struct{}{}
		}
	}
	if len(b.queue) > 0 {
		b.queue[0].wake <- struct{}{}
	} else {
		b.busy = false
	}
	b.mu.Unlock()
	return w.err
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
