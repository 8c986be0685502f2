// Package logbuf turns the log lines of many requests into few writes: a
// Writer keeps what it is given for at most a short window, then writes it
// all to the underlying writer (a connector's stderr) at once.
//
// A busy connector logs a line per request. Written one by one, each line
// is a write system call of its own, about as costly as the rest of the
// line's work; gathered over a millisecond, a loaded server's lines go out
// in one call. Lines keep their order, are never split or merged with
// others (each Write's bytes are kept whole), and reach the underlying
// writer within the window; Flush and Close write what is waiting at once.
// The memory kept is bounded: past a limit the caller writes everything
// itself, which also slows down a process that logs faster than its
// output takes.
package logbuf

import (
	"io"
	"sync"
	"time"
)

// DefaultWindow is how long a line may wait for others to be written with.
const DefaultWindow = time.Millisecond

// maxPending is how much is kept before a Write writes it all itself.
const maxPending = 64 << 10

// Writer gathers writes and passes them on together; it is safe for
// concurrent use.
type Writer struct {
	out    io.Writer
	window time.Duration

	wmu sync.Mutex // held while writing to out: writes go out in order

	mu        sync.Mutex // guards the fields below
	pending   []byte
	spare     []byte
	scheduled bool        // timer will flush pending
	closed    bool        // writes go straight to out
	err       error       // the last write's error, returned by the next Write
	timer     *time.Timer // flushes pending once the window has passed
}

// New returns a Writer passing writes on to out after at most window
// (DefaultWindow if window is 0 or less).
func New(out io.Writer, window time.Duration) *Writer {
	if window <= 0 {
		window = DefaultWindow
	}
	w := &Writer{out: out, window: window}
	w.timer = time.AfterFunc(time.Hour, w.flushLater)
	w.timer.Stop()
	return w
}

// Write keeps p (a whole log line, or several) to be written within the
// window and returns len(p). An error of an earlier write to the
// underlying writer is returned once, by the next Write.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	if err := w.err; err != nil {
		w.err = nil
		w.mu.Unlock()
		return 0, err
	}
	if w.closed {
		w.mu.Unlock()
		w.wmu.Lock()
		defer w.wmu.Unlock()
		return w.out.Write(p)
	}
	w.pending = append(w.pending, p...)
	if len(w.pending) >= maxPending {
		w.mu.Unlock()
		if err := w.Flush(); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	if !w.scheduled {
		w.scheduled = true
		w.timer.Reset(w.window)
	}
	w.mu.Unlock()
	return len(p), nil
}

// Flush writes what is waiting now, and returns the write's error.
func (w *Writer) Flush() error {
	w.wmu.Lock()
	defer w.wmu.Unlock()
	return w.flushLocked(false)
}

// flushLater is the timer's flush, once the window has passed.
func (w *Writer) flushLater() {
	w.wmu.Lock()
	defer w.wmu.Unlock()
	w.flushLocked(true)
}

// flushLocked writes what is waiting; with keep, its error is also kept for
// the next Write (nobody else sees a flush by the timer). Requires wmu.
func (w *Writer) flushLocked(keep bool) error {
	w.mu.Lock()
	b := w.pending
	w.pending, w.spare = w.spare[:0], nil
	w.scheduled = false
	w.mu.Unlock()
	if len(b) == 0 {
		w.mu.Lock()
		w.spare = b
		w.mu.Unlock()
		return nil
	}
	_, err := w.out.Write(b)
	w.mu.Lock()
	if cap(b) <= 2*maxPending {
		w.spare = b[:0]
	}
	if err != nil && keep {
		w.err = err
	}
	w.mu.Unlock()
	return err
}

// Close writes what is waiting; later writes go straight to the underlying
// writer, after it. It does not close the underlying writer.
func (w *Writer) Close() error {
	w.wmu.Lock()
	defer w.wmu.Unlock()
	w.mu.Lock()
	w.closed = true
	w.timer.Stop()
	w.err = nil
	w.mu.Unlock()
	return w.flushLocked(false)
}
