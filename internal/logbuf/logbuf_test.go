package logbuf

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// recorder keeps every write it is given, as given.
type recorder struct {
	mu     sync.Mutex
	writes [][]byte
	err    error
}

func (r *recorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return 0, r.err
	}
	r.writes = append(r.writes, bytes.Clone(p))
	return len(p), nil
}

func (r *recorder) text() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return string(bytes.Join(r.writes, nil))
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.writes)
}

// Lines written from many goroutines all arrive, whole, each goroutine's in
// its order, in far fewer writes than lines.
func TestManyWriters(t *testing.T) {
	var rec recorder
	w := New(&rec, time.Hour) // only Close and the size bound write
	const writers, lines = 8, 3000
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			for i := range lines {
				if _, err := fmt.Fprintf(w, "level=INFO msg=request writer=%d n=%d\n", g, i); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	next := make([]int, writers)
	got := strings.Split(strings.TrimSuffix(rec.text(), "\n"), "\n")
	for _, l := range got {
		var g, n int
		if _, err := fmt.Sscanf(l, "level=INFO msg=request writer=%d n=%d", &g, &n); err != nil {
			t.Fatalf("line %q is not whole: %v", l, err)
		}
		if n != next[g] {
			t.Fatalf("writer %d: line %d came where %d was due", g, n, next[g])
		}
		next[g]++
	}
	if len(got) != writers*lines {
		t.Fatalf("%d lines arrived, want %d", len(got), writers*lines)
	}
	for _, b := range rec.writes {
		// Beyond the bound, at most a line of each writer appended
		// while the one that reached it waits to write.
		if len(b) > maxPending+writers*100 {
			t.Fatalf("a write of %d bytes: more than the %d kept and a line of each writer", len(b), maxPending)
		}
	}
	if n := rec.count(); n >= len(got)/100 {
		t.Fatalf("%d lines took %d writes", len(got), n)
	}
}

// A line is written once the window has passed, without a flush.
func TestWindow(t *testing.T) {
	var rec recorder
	w := New(&rec, 5*time.Millisecond)
	defer w.Close()
	w.Write([]byte("a\n"))
	w.Write([]byte("b\n"))
	deadline := time.Now().Add(10 * time.Second)
	for rec.text() != "a\nb\n" {
		if time.Now().After(deadline) {
			t.Fatalf("after 10s the window has not written: %q", rec.text())
		}
		time.Sleep(time.Millisecond)
	}
	// And the next line starts a new window.
	w.Write([]byte("c\n"))
	for rec.text() != "a\nb\nc\n" {
		if time.Now().After(deadline) {
			t.Fatalf("after 10s the second window has not written: %q", rec.text())
		}
		time.Sleep(time.Millisecond)
	}
}

// Flush writes at once; after Close, writes go straight through, after
// what was waiting.
func TestFlushClose(t *testing.T) {
	var rec recorder
	w := New(&rec, time.Hour)
	w.Write([]byte("one\n"))
	if rec.text() != "" {
		t.Fatalf("written before the window or a flush: %q", rec.text())
	}
	if err := w.Flush(); err != nil || rec.text() != "one\n" {
		t.Fatalf("after Flush: %q, %v", rec.text(), err)
	}
	w.Write([]byte("two\n"))
	if err := w.Close(); err != nil || rec.text() != "one\ntwo\n" {
		t.Fatalf("after Close: %q, %v", rec.text(), err)
	}
	w.Write([]byte("three\n"))
	if rec.text() != "one\ntwo\nthree\n" {
		t.Fatalf("a write after Close: %q", rec.text())
	}
	if err := w.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

// A failing output's error reaches the writer: from Flush directly, from
// the window's write at the next Write, once.
func TestWriteError(t *testing.T) {
	broken := errors.New("broken pipe")
	rec := recorder{err: broken}
	w := New(&rec, time.Hour)
	w.Write([]byte("lost\n"))
	if err := w.Flush(); !errors.Is(err, broken) {
		t.Fatalf("Flush: %v, want %v", err, broken)
	}
	if _, err := w.Write([]byte("x\n")); err != nil {
		t.Fatalf("Write after a Flush that returned its error: %v", err)
	}
	w.flushLater()
	if _, err := w.Write([]byte("y\n")); !errors.Is(err, broken) {
		t.Fatalf("Write after the window's failed write: %v, want %v", err, broken)
	}
	if _, err := w.Write([]byte("z\n")); err != nil {
		t.Fatalf("the error came twice: %v", err)
	}
	rec.mu.Lock()
	rec.err = nil
	rec.mu.Unlock()
	if err := w.Close(); err != nil || rec.text() != "z\n" {
		t.Fatalf("after the output recovered: %q, %v", rec.text(), err)
	}
}

// BenchmarkWrite is a 120-byte log line written to a file from parallel
// goroutines, straight and through a Writer.
func BenchmarkWrite(b *testing.B) {
	line := []byte(strings.Repeat("x", 119) + "\n")
	f, err := os.Create(b.TempDir() + "/log")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	b.Run("direct", func(b *testing.B) {
		var mu sync.Mutex
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				mu.Lock()
				f.Write(line)
				mu.Unlock()
			}
		})
	})
	b.Run("logbuf", func(b *testing.B) {
		w := New(f, 0)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				w.Write(line)
			}
		})
		w.Close()
	})
}
