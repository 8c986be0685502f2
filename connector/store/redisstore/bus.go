package redisstore

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpgen/mcpgen/connector/store"
)

// busBuffer is how many messages a subscriber may fall behind by before
// it loses some (the Bus contract is at most once).
const busBuffer = 256

// busPing is how often an idle subscription pings Redis, and busSilence
// how long it may hear nothing (not even the answer to a ping) before it
// is ended as cut off.
const (
	busPing    = 15 * time.Second
	busSilence = 2*busPing + 5*time.Second
)

type bus struct{ s *Store }

// channel is the Redis Pub/Sub channel of topic. Pub/Sub messages reach
// every node of a Redis Cluster, so channels need no hash tag.
func (b *bus) channel(topic string) string { return b.s.key("bus", topic) }

func (b *bus) Publish(ctx context.Context, topic string, data []byte) error {
	return b.s.wrap(b.s.rdb.Publish(ctx, b.channel(topic), data).Err())
}

func (b *bus) Subscribe(ctx context.Context, topics ...string) (store.Subscription, error) {
	if len(topics) == 0 {
		return nil, fmt.Errorf("store: Subscribe needs a topic")
	}
	chans := make([]string, len(topics))
	for i, t := range topics {
		chans[i] = b.channel(t)
	}
	ps := b.s.rdb.Subscribe(ctx, chans...)
	// Subscribe returns before Redis confirms; the contract promises every
	// message published after it returns, so wait for every confirmation.
	for range chans {
		m, err := ps.Receive(ctx)
		if err != nil {
			ps.Close()
			return nil, b.s.wrap(err)
		}
		if _, ok := m.(*redis.Subscription); !ok {
			ps.Close()
			return nil, fmt.Errorf("store %s: subscribing to %v: unexpected %T before the confirmation", b.s.where, topics, m)
		}
	}
	sub := &subscription{ps: ps, c: make(chan store.Message, busBuffer), done: make(chan struct{})}
	prefix := b.channel("")
	// The messages are read here rather than through go-redis's
	// PubSub.Channel, which reconnects by itself and hides that it was
	// cut off: messages published meanwhile are lost without a sign. Here
	// a connection that fails ends the subscription (its channel is
	// closed), so the subscriber knows, delivers locally while the store
	// is away, and subscribes again.
	go func() {
		defer close(sub.c)
		defer sub.Close()
		for {
			m, err := ps.ReceiveTimeout(ctx, busSilence)
			if err != nil {
				return
			}
			if m, ok := m.(*redis.Message); ok {
				msg := store.Message{Topic: strings.TrimPrefix(m.Channel, prefix), Data: []byte(m.Payload)}
				select {
				case sub.c <- msg:
				default: // a slow subscriber loses messages
				}
			}
		}
	}()
	// A connection that died without a word (no RST) is found by a ping:
	// its answer, or any message, must come within busSilence.
	go func() {
		t := time.NewTicker(busPing)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				sub.Close()
				return
			case <-sub.done:
				return
			case <-t.C:
				if ps.Ping(ctx) != nil {
					sub.Close()
					return
				}
			}
		}
	}()
	return sub, nil
}

type subscription struct {
	ps   *redis.PubSub
	c    chan store.Message
	once sync.Once
	done chan struct{}
}

func (s *subscription) C() <-chan store.Message { return s.c }

func (s *subscription) Close() error {
	s.once.Do(func() {
		close(s.done)
		s.ps.Close()
	})
	return nil
}
