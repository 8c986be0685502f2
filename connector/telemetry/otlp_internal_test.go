package telemetry

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/sdk/instrumentation"
)

// TestPostPartsRetried posts a request body made of parts, without
// joining them, to a receiver that answers 503 once: both attempts carry
// the whole body, and the parts are reported free for reuse once
// net/http has closed every body it was given.
func TestPostPartsRetried(t *testing.T) {
	var (
		mu     sync.Mutex
		bodies [][]byte
	)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, b)
		first := len(bodies) == 1
		mu.Unlock()
		if r.ContentLength != int64(len(b)) {
			t.Errorf("Content-Length %d for %d bytes", r.ContentLength, len(b))
		}
		if first {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer recv.Close()
	c := tracesClient(t, recv.URL)
	head, spans, tail := []byte("head-"), bytes.Repeat([]byte("span."), 20000), []byte("-tail")
	want := append(append(append([]byte(nil), head...), spans...), tail...)
	done, err := c.postParts(context.Background(), nil, head, spans, []byte{}, tail)
	if err != nil {
		t.Fatal(err)
	}
	if !done {
		t.Error("the parts are not reported free once the request is answered")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(bodies) != 2 {
		t.Fatalf("%d requests, want 2 (a 503, then its retry)", len(bodies))
	}
	for i, b := range bodies {
		if !bytes.Equal(b, want) {
			t.Errorf("request %d: %d bytes, want the %d of the parts in order", i+1, len(b), len(want))
		}
	}
	if !bytes.Equal(spans, bytes.Repeat([]byte("span."), 20000)) {
		t.Error("the parts were changed by sending them")
	}
}

// tracesClient is the traces exporter's client of a connector whose
// OTEL_EXPORTER_OTLP_ENDPOINT is url.
func tracesClient(t testing.TB, url string) *otlpClient {
	t.Helper()
	c, err := newOTLPClient(func(k string) string {
		if k == "OTEL_EXPORTER_OTLP_ENDPOINT" {
			return url
		}
		return ""
	}, "traces")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestBodiesRelease checks the count of a request's open bodies: parts
// given up while a body is open are released once, when the last one is
// closed, and not at all when none was open.
func TestBodiesRelease(t *testing.T) {
	released := 0
	release := func() { released++ }
	var none bodies
	if !none.giveUp(release) || released != 0 {
		t.Errorf("no body open: giveUp must say done and not release (released %d)", released)
	}
	var o bodies
	a, b := newPartsBody(nil, &o), newPartsBody(nil, &o)
	a.Close()
	if o.giveUp(release) {
		t.Fatal("giveUp says done with a body open")
	}
	if released != 0 {
		t.Fatal("released with a body open")
	}
	b.Close()
	b.Close() // a second Close counts once
	if released != 1 {
		t.Errorf("released %d times after the last body closed, want 1", released)
	}
}

// TestPostPartsFreedAfterBodyClosed posts batches of mapped memory (as
// the span batcher does) to a receiver that answers before reading them
// and hangs up: net/http may still be writing a body when Do returns,
// and the memory may only be freed once it has closed the body. Freed
// too early, a write would read unmapped memory and crash the test.
func TestPostPartsFreedAfterBodyClosed(t *testing.T) {
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK) // the body unread: net/http closes the connection
	}))
	defer recv.Close()
	c := tracesClient(t, recv.URL)
	later := 0
	for range 20 {
		buf := newBatchBuf(4 << 20)
		buf.b = append(buf.b, bytes.Repeat([]byte("s"), 4<<20)...)
		freed := make(chan struct{})
		done, _ := c.postParts(context.Background(), func() { buf.free(); close(freed) }, []byte("head"), buf.b, []byte("tail"))
		if done {
			buf.free()
			continue
		}
		later++
		select {
		case <-freed:
		case <-time.After(10 * time.Second):
			t.Fatal("a batch given up with a body open was not freed after net/http closed it")
		}
	}
	t.Logf("%d of 20 bodies were closed after Do returned", later)
}

// TestSpanBatcherMemory checks where a batcher's buffers live: mapped
// outside the Go heap where the system allows, the spare one kept
// between batches and freed at shutdown.
func TestSpanBatcherMemory(t *testing.T) {
	bt := newSpanBatcher(&spanExporter{}, testResource, instrumentation.Scope{Name: ScopeName},
		batchSettings{maxQueue: 100, maxBatch: 2, delay: time.Hour, timeout: time.Second})
	sent := make(chan struct{}, 10)
	bt.export = func(context.Context, []byte, int, func()) (bool, error) { sent <- struct{}{}; return true, nil }
	go bt.run()
	for i := range 2 {
		bt.add(&spanRecord{spanFields: spanFields{name: fmt.Sprint(i)}})
	}
	<-sent
	bt.mu.Lock()
	spare := bt.spare
	bt.mu.Unlock()
	if spare == nil {
		t.Fatal("no spare buffer kept after a batch was sent")
	}
	if want := mapBatchMemory(batchPage) != nil; spare.mapped != want {
		t.Errorf("the spare buffer is mapped: %v; the system maps memory: %v", spare.mapped, want)
	}
	if err := bt.shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if bt.spare != nil || spare.b != nil {
		t.Error("the spare buffer is kept after shutdown")
	}
}

// TestSpanBatcherKeepsGrownBuffer checks that once spans have outgrown
// the first buffers, by a size that is not a whole number of pages, the
// buffer of a sent batch is kept for the next one rather than mapped
// anew for each batch.
func TestSpanBatcherKeepsGrownBuffer(t *testing.T) {
	bt := newSpanBatcher(&spanExporter{}, testResource, instrumentation.Scope{Name: ScopeName},
		batchSettings{maxQueue: 100, maxBatch: 2, delay: time.Hour, timeout: time.Second})
	bt.export = func(context.Context, []byte, int, func()) (bool, error) { return true, nil }
	go bt.run()
	defer bt.shutdown(context.Background())
	small := &spanRecord{spanFields: spanFields{name: "small"}}
	large := &spanRecord{spanFields: spanFields{name: strings.Repeat("x", 200_001)}}
	for batch := range 3 {
		bt.add(small)
		bt.add(large)
		deadline := time.Now().Add(10 * time.Second)
		for {
			bt.mu.Lock()
			spare, bufSize, queued := bt.spare, bt.bufSize, bt.queued
			bt.mu.Unlock()
			if queued == 0 && spare != nil {
				if cap(spare.b) != bufSize || bufSize%batchPage != 0 {
					t.Fatalf("batch %d: a spare of %d bytes for buffers of %d", batch, cap(spare.b), bufSize)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("batch %d: no buffer kept after it was sent (buffers of %d bytes)", batch, bufSize)
			}
			time.Sleep(time.Millisecond)
		}
	}
}
