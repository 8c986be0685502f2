// Package drain turns a server's shutdown into a graceful one: a Gate
// stops admitting requests once the drain begins and tells when the
// admitted ones have finished, and Streams ends the open event streams
// with an SSE retry field, so that clients reconnect (to the replacement
// process or another replica) instead of treating the end as a failure.
package drain

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Gate admits requests until the drain begins and then tells when
// the admitted ones have finished.
type Gate struct {
	mu     sync.Mutex
	closed bool
	n      int           // requests admitted and running
	idle   chan struct{} // closed once closed and n is 0
}

// Enter admits a request, unless the drain has begun; Leave ends it.
func (g *Gate) Enter() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	g.n++
	return true
}

// Leave ends a request Enter admitted.
func (g *Gate) Leave() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.n--; g.n == 0 && g.closed {
		close(g.idle)
	}
}

// Draining reports whether the drain has begun.
func (g *Gate) Draining() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.closed
}

// Close begins the drain: no request is admitted any more. The channel it
// returns is closed once the admitted ones have finished.
func (g *Gate) Close() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.closed {
		g.closed = true
		g.idle = make(chan struct{})
		if g.n == 0 {
			close(g.idle)
		}
	}
	return g.idle
}

// Streams holds the open GET event streams so a draining server can end
// them. The zero value is ready.
type Streams struct {
	mu     sync.Mutex
	open   map[*streamWriter]context.CancelFunc
	closed bool
}

// Track wraps a GET request's writer and context; done forgets it.
func (ss *Streams) Track(w http.ResponseWriter, r *http.Request) (*streamWriter, *http.Request, func()) {
	ctx, cancel := context.WithCancel(r.Context())
	sw := &streamWriter{w: w}
	ss.mu.Lock()
	if ss.open == nil {
		ss.open = map[*streamWriter]context.CancelFunc{}
	}
	if ss.closed {
		cancel()
	} else {
		ss.open[sw] = cancel
	}
	ss.mu.Unlock()
	return sw, r.WithContext(ctx), func() {
		ss.mu.Lock()
		delete(ss.open, sw)
		ss.mu.Unlock()
		cancel()
	}
}

// EndAll writes an SSE retry field to every open stream, then ends it,
// and reports how many there were.
func (ss *Streams) EndAll(retry time.Duration) int {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.closed = true
	for sw, cancel := range ss.open {
		sw.retry(retry)
		cancel()
	}
	return len(ss.open)
}

// streamWriter serializes the SDK's writes to an event stream with the
// retry field a draining server adds, and drops writes after it.
type streamWriter struct {
	mu      sync.Mutex
	w       http.ResponseWriter
	started bool // the header went out
	ended   bool
}

func (sw *streamWriter) Header() http.Header { return sw.w.Header() }

func (sw *streamWriter) WriteHeader(code int) {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if !sw.ended && !sw.started {
		sw.started = true
		sw.w.WriteHeader(code)
	}
}

func (sw *streamWriter) Write(p []byte) (int, error) {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if sw.ended {
		return 0, http.ErrHandlerTimeout
	}
	sw.started = true
	return sw.w.Write(p)
}

func (sw *streamWriter) Flush() {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if !sw.ended {
		http.NewResponseController(sw.w).Flush()
	}
}

func (sw *streamWriter) retry(d time.Duration) {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if sw.ended {
		return
	}
	sw.ended = true
	if sw.started && strings.HasPrefix(sw.w.Header().Get("Content-Type"), "text/event-stream") {
		fmt.Fprintf(sw.w, "retry: %d\n\n", d.Milliseconds())
		http.NewResponseController(sw.w).Flush()
	}
}
