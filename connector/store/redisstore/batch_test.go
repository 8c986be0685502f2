package redisstore

import (
	"errors"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestBehindBounded: while Redis does not answer, writes behind queue up
// to maxQueued; the ones past it fail at once, and every write's done is
// called once, with an error, when its batch times out.
func TestBehindBounded(t *testing.T) {
	// A server that accepts and reads but never answers.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var conns sync.WaitGroup
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Go(func() {
				buf := make([]byte, 64<<10)
				for {
					if _, err := c.Read(buf); err != nil {
						return
					}
				}
			})
		}
	}()
	rdb := redis.NewClient(&redis.Options{Addr: ln.Addr().String(), ReadTimeout: 500 * time.Millisecond, WriteTimeout: 500 * time.Millisecond, MaxRetries: -1, Protocol: 2})
	defer rdb.Close()
	b := &batcher{rdb: rdb, linger: time.Millisecond}
	const n = 2*maxQueued + 100
	var wg sync.WaitGroup
	wg.Add(n)
	var mu sync.Mutex
	refused, failed := 0, 0
	for range n {
		b.later(recordScript, []string{"h", "z"}, func(err error) {
			mu.Lock()
			defer mu.Unlock()
			switch {
			case errors.Is(err, errBehind):
				refused++
			case err != nil:
				failed++
			default:
				t.Error("a write to a Redis that never answers succeeded")
			}
			wg.Done()
		}, "stream", 64, 1000, 256, "")
	}
	wg.Wait()
	b.drain()
	if refused < 100 || refused+failed != n {
		t.Errorf("%d writes refused at once, %d failed when sent, of %d; want at least 100 refused and every one's done called", refused, failed, n)
	}
}
