package telemetry

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"google.golang.org/protobuf/encoding/protowire"
)

// spanBatcher batches the request spans (requestSpan) for the OTLP
// exporter, as the SDK's batch span processor batches the SDK's spans
// and with the same settings (OTEL_BSP_*): a span is encoded when it
// ends and its bytes appended to the batch being filled; a full batch, or
// whatever is there when the schedule delay passes, is sent by one
// goroutine; spans beyond the queue's size are dropped, and counted.
type spanBatcher struct {
	e        *spanExporter
	frame    frame
	maxQueue int
	maxBatch int
	delay    time.Duration
	timeout  time.Duration

	mu       sync.Mutex
	cur      *batchBuf // encoded spans of the batch being filled
	curN     int       // and how many
	full     []batch   // batches waiting to be sent: of maxBatch spans, or as many as their buffer held
	queued   int       // spans in cur and full
	spare    *batchBuf // an emptied batch's buffer, for the next
	bufSize  int       // the size of new buffers, a whole number of pages
	dropped  int       // spans dropped since the last report
	reported time.Time
	closed   bool
	wake     chan struct{}                                            // a batch is full
	flushing chan chan struct{}                                       // Shutdown: send all and stop
	done     chan struct{}                                            // the sending goroutine has stopped
	report   func(error)                                              // otel.Handle
	export   func(context.Context, []byte, int, func()) (bool, error) // sends one batch, says if its bytes may be reused (else it calls the func once they may be freed); tests replace it
	tail     []byte                                                   // send's, the frame after the spans (never changed once made)
}

// batch is the encoded spans of one export request.
type batch struct {
	buf *batchBuf
	n   int
}

// batchBuf is the memory a batch's encoded spans are written to. Where
// the system allows it is mapped outside the Go heap: a connector's own
// live heap is often a few hundred KB, the garbage collector's goal stays
// at its 4 MB floor, and the batches held there (the one being filled and
// the one being sent, over 100 KB each) would bring every collection
// closer (see docs/decisions.md). A buffer never grows in place: a span
// that does not fit moves the batch to a larger one (grow).
type batchBuf struct {
	b      []byte // the spans so far; cap is all of the memory
	mapped bool   // b is a mapping of its own, given back by free
}

// batchPage is the unit of buffer sizes.
var batchPage = os.Getpagesize()

// firstBatchSize is the size of the first buffers; a batch that
// outgrows one moves to one twice as large, the size of the next ones
// (up to maxKept).
const firstBatchSize = 64 << 10

// pages is n rounded up to a whole number of pages.
func pages(n int) int { return (n + batchPage - 1) / batchPage * batchPage }

// newBatchBuf returns an empty buffer of size bytes or more, a whole
// number of pages.
func newBatchBuf(size int) *batchBuf {
	size = pages(size)
	if m := mapBatchMemory(size); m != nil {
		return &batchBuf{b: m[:0], mapped: true}
	}
	return &batchBuf{b: make([]byte, 0, size)}
}

// free gives a mapped buffer's memory back to the system; nothing may
// read it after. A buffer of the heap is left to the garbage collector.
func (m *batchBuf) free() {
	if m.mapped {
		m.mapped = false
		unmapBatchMemory(m.b[:cap(m.b)])
	}
	m.b = nil
}

// batchSettings are the batch span processor's settings.
type batchSettings struct {
	maxQueue, maxBatch int
	delay, timeout     time.Duration
}

// batchSettingsFromEnv reads OTEL_BSP_MAX_QUEUE_SIZE,
// OTEL_BSP_MAX_EXPORT_BATCH_SIZE, OTEL_BSP_SCHEDULE_DELAY and
// OTEL_BSP_EXPORT_TIMEOUT (milliseconds) from the process's environment,
// as the SDK's batch span processor does; a value that is not a positive
// number keeps the default.
func batchSettingsFromEnv() batchSettings {
	num := func(k string, def int) int {
		if n, err := strconv.Atoi(strings.TrimSpace(os.Getenv(k))); err == nil && n > 0 {
			return n
		}
		return def
	}
	s := batchSettings{
		maxQueue: num("OTEL_BSP_MAX_QUEUE_SIZE", sdktrace.DefaultMaxQueueSize),
		maxBatch: num("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", sdktrace.DefaultMaxExportBatchSize),
		delay:    time.Duration(num("OTEL_BSP_SCHEDULE_DELAY", sdktrace.DefaultScheduleDelay)) * time.Millisecond,
		timeout:  time.Duration(num("OTEL_BSP_EXPORT_TIMEOUT", sdktrace.DefaultExportTimeout)) * time.Millisecond,
	}
	s.maxBatch = min(s.maxBatch, s.maxQueue)
	return s
}

// newSpanBatcher returns the batching of spans of resource res and scope
// into e; go run() starts it.
func newSpanBatcher(e *spanExporter, res *resource.Resource, scope instrumentation.Scope, s batchSettings) *spanBatcher {
	b := &spanBatcher{
		e: e, maxQueue: s.maxQueue, maxBatch: s.maxBatch, delay: s.delay, timeout: s.timeout,
		wake: make(chan struct{}, 1), flushing: make(chan chan struct{}), done: make(chan struct{}),
		report: otel.Handle,
	}
	b.frame = newFrame(res, scope)
	b.export = b.send
	b.bufSize = pages(firstBatchSize)
	return b
}

// frame is the bytes of an ExportTraceServiceRequest of one
// ResourceSpans holding one ScopeSpans, around the spans: the
// ResourceSpans' resource field, the ScopeSpans' scope field, and after
// the spans the ScopeSpans' and the ResourceSpans' schema URL fields.
type frame struct {
	resource, scope, scopeTail, resourceTail []byte
}

func newFrame(res *resource.Resource, scope instrumentation.Scope) frame {
	f := frame{
		resource:  protowire.AppendBytes(protowire.AppendTag(nil, fResourceSpansResource, protowire.BytesType), appendResource(nil, res)),
		scope:     appendScope(nil, fScopeSpansScope, scope),
		scopeTail: appendString(nil, fScopeSpansSchemaURL, scope.SchemaURL),
	}
	if res != nil {
		f.resourceTail = appendString(nil, fResourceSpansSchemaURL, res.SchemaURL())
	}
	return f
}

// appendRequest appends the ExportTraceServiceRequest of spans (encoded
// ScopeSpans.spans fields) to b.
func (f *frame) appendRequest(b, spans []byte) []byte {
	b = f.appendHead(b, len(spans))
	b = append(b, spans...)
	return f.appendTail(b)
}

// appendHead appends what comes before n bytes of spans in their export
// request, and appendTail what comes after them.
func (f *frame) appendHead(b []byte, n int) []byte {
	scopeLen := len(f.scope) + n + len(f.scopeTail)
	resLen := len(f.resource) + protowire.SizeTag(fResourceSpansScopeSpans) + protowire.SizeBytes(scopeLen) + len(f.resourceTail)
	b = protowire.AppendTag(b, fExportResourceSpans, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(resLen))
	b = append(b, f.resource...)
	b = protowire.AppendTag(b, fResourceSpansScopeSpans, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(scopeLen))
	return append(b, f.scope...)
}

func (f *frame) appendTail(b []byte) []byte {
	b = append(b, f.scopeTail...)
	return append(b, f.resourceTail...)
}

// add encodes rec and appends it to the batch being filled, or drops it
// when the queue is full or the batcher shut down.
func (bt *spanBatcher) add(rec *spanRecord) {
	enc := protowire.AppendTag(rec.enc[:0], fScopeSpansSpans, protowire.BytesType)
	enc = append(enc, 0)
	start := len(enc)
	enc = appendSpanFields(enc, &rec.spanFields)
	rec.enc = closeField(enc, start)

	bt.mu.Lock()
	if bt.closed || bt.queued >= bt.maxQueue {
		bt.dropped++
		bt.mu.Unlock()
		return
	}
	if bt.cur == nil {
		bt.cur = bt.buffer(len(rec.enc))
	} else if len(bt.cur.b)+len(rec.enc) > cap(bt.cur.b) {
		bt.cur = bt.grow(bt.cur, len(rec.enc))
	}
	bt.cur.b = append(bt.cur.b, rec.enc...) // within its capacity: it stays where it is
	bt.curN++
	bt.queued++
	full := bt.curN >= bt.maxBatch
	if full {
		bt.full = append(bt.full, batch{bt.cur, bt.curN})
		bt.cur, bt.curN = nil, 0
	}
	bt.mu.Unlock()
	if full {
		select {
		case bt.wake <- struct{}{}:
		default:
		}
	}
}

// grow returns a buffer holding cur's spans with room for need bytes
// more, and frees cur: new buffers are made as large, so that a batch
// outgrows its buffer only until they hold maxBatch spans. Called with mu
// held.
func (bt *spanBatcher) grow(cur *batchBuf, need int) *batchBuf {
	size := pages(max(2*cap(cur.b), len(cur.b)+need))
	if size <= maxKept {
		bt.bufSize = max(bt.bufSize, size)
	}
	bigger := newBatchBuf(size)
	bigger.b = append(bigger.b, cur.b...)
	cur.free()
	return bigger
}

// buffer returns an emptied batch buffer with room for need bytes, or
// a new one. Called with mu held.
func (bt *spanBatcher) buffer(need int) *batchBuf {
	if need = pages(need); need > bt.bufSize && need <= maxKept {
		bt.bufSize = need
	}
	size := max(bt.bufSize, need)
	if s := bt.spare; s != nil {
		bt.spare = nil
		if cap(s.b) >= size {
			s.b = s.b[:0]
			return s
		}
		s.free() // smaller than buffers are now
	}
	return newBatchBuf(size)
}

// run sends the full batches when told, and everything every delay,
// until Shutdown.
func (bt *spanBatcher) run() {
	defer close(bt.done)
	timer := time.NewTimer(bt.delay)
	defer timer.Stop()
	for {
		select {
		case <-bt.wake:
			bt.sendQueued(false)
		case <-timer.C:
			bt.sendQueued(true)
			timer.Reset(bt.delay)
		case sent := <-bt.flushing:
			bt.sendQueued(true)
			bt.mu.Lock()
			if bt.spare != nil {
				bt.spare.free()
				bt.spare = nil
			}
			bt.mu.Unlock()
			close(sent)
			return
		}
	}
}

// sendQueued sends the full batches, and with all the one being filled
// too, one request each.
func (bt *spanBatcher) sendQueued(all bool) {
	for {
		bt.mu.Lock()
		var next batch
		switch {
		case len(bt.full) > 0:
			next = bt.full[0]
			copy(bt.full, bt.full[1:])
			bt.full[len(bt.full)-1] = batch{}
			bt.full = bt.full[:len(bt.full)-1]
		case all && bt.curN > 0:
			next = batch{bt.cur, bt.curN}
			bt.cur, bt.curN = nil, 0
		}
		bt.queued -= next.n
		// Drops are said once a minute at most (and at the end): an
		// overloaded connector would say it at every batch.
		dropped := 0
		if bt.dropped > 0 && (next.n == 0 && bt.closed || time.Since(bt.reported) >= time.Minute) {
			dropped, bt.dropped, bt.reported = bt.dropped, 0, time.Now()
		}
		bt.mu.Unlock()
		if dropped > 0 {
			bt.report(errors.New(errSpansDropped(dropped)))
		}
		if next.n == 0 {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), bt.timeout)
		reuse, err := bt.export(ctx, next.buf.b, next.n, next.buf.free)
		if err != nil {
			bt.report(err)
		}
		cancel()
		if !reuse {
			continue // net/http may still read it: freed once it has closed the last body
		}
		bt.mu.Lock()
		// One spare buffer is enough while batches are sent as fast as
		// they fill; one of another size than new ones is freed.
		if bt.spare == nil && cap(next.buf.b) == bt.bufSize {
			bt.spare = next.buf
			next.buf = nil
		}
		bt.mu.Unlock()
		if next.buf != nil {
			next.buf.free()
		}
	}
}

// send posts the spans in spans as one export request: the frame's
// bytes around them, without copying them. It reports whether spans may
// be used again (net/http is done with them); if not, release is called
// once they may.
func (bt *spanBatcher) send(ctx context.Context, spans []byte, _ int, release func()) (bool, error) {
	if bt.tail == nil {
		bt.tail = bt.frame.appendTail(nil)
	}
	// The head is made anew: a body net/http has not closed may still
	// be reading the last one.
	return bt.e.c.postParts(ctx, release, bt.frame.appendHead(nil, len(spans)), spans, bt.tail)
}

// shutdown sends what is queued and stops; spans that end after it are
// dropped.
func (bt *spanBatcher) shutdown(ctx context.Context) error {
	bt.mu.Lock()
	if bt.closed {
		bt.mu.Unlock()
		return nil
	}
	bt.closed = true
	bt.mu.Unlock()
	sent := make(chan struct{})
	select {
	case bt.flushing <- sent:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-sent:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
