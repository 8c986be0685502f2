package connector

import (
	"os"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestShutdownRestoresSignalsFirst: the signals' default action is back
// before the shutdown context is cancelled, so a second SIGTERM sent as
// soon as the drain is logged ends the process. (Restoring it after the
// cancellation, in a goroutine of its own, let a second signal that came
// first be swallowed on a busy machine: the drain then ran its course and
// the process exited 0.)
func TestShutdownRestoresSignalsFirst(t *testing.T) {
	var (
		mu     sync.Mutex
		ch     chan<- os.Signal
		resets int
	)
	notify := func(c chan<- os.Signal, _ ...os.Signal) { ch = c }
	reset := func(...os.Signal) {
		mu.Lock()
		resets++
		mu.Unlock()
	}
	ctx, stop := shutdownContext(notify, reset, syscall.SIGTERM)
	defer stop()
	select {
	case <-ctx.Done():
		t.Fatal("cancelled before any signal")
	case <-time.After(20 * time.Millisecond):
	}
	ch <- syscall.SIGTERM
	<-ctx.Done()
	mu.Lock()
	n := resets
	mu.Unlock()
	if n != 1 {
		t.Errorf("when the context was cancelled the signals had been reset %d times, want 1", n)
	}

	// Stopped without a signal: the context ends and the signals are
	// given back too.
	resets = 0
	ctx, stop = shutdownContext(notify, reset, syscall.SIGTERM)
	stop()
	<-ctx.Done()
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		n := resets
		mu.Unlock()
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("stop without a signal: signals reset %d times, want 1", n)
		}
		time.Sleep(time.Millisecond)
	}
}
