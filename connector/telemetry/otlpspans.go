package telemetry

import (
	"bytes"
	"context"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/protobuf/encoding/protowire"
)

// Spans are encoded straight to the bytes of an OTLP
// ExportTraceServiceRequest, appended into a buffer reused from batch to
// batch, rather than built as tracepb messages and handed to
// proto.Marshal: that made six to ten small objects per span (the span,
// each attribute's KeyValue and AnyValue ...) only to turn them into bytes
// and drop them, about as much CPU as the SDK's span itself. The bytes are
// the ones proto.Marshal writes for the same messages (fields in number
// order, proto3 zero values left out, oneof members always written);
// TestSpanEncodingMatchesProto checks it on random spans.

// Field numbers of the OTLP messages written here
// (opentelemetry/proto/{collector/trace,trace,common,resource}/v1).
const (
	fExportResourceSpans = 1 // ExportTraceServiceRequest.resource_spans

	fResourceSpansResource   = 1
	fResourceSpansScopeSpans = 2
	fResourceSpansSchemaURL  = 3

	fScopeSpansScope     = 1
	fScopeSpansSpans     = 2
	fScopeSpansSchemaURL = 3

	fSpanTraceID           = 1
	fSpanSpanID            = 2
	fSpanTraceState        = 3
	fSpanParentSpanID      = 4
	fSpanName              = 5
	fSpanKind              = 6
	fSpanStart             = 7
	fSpanEnd               = 8
	fSpanAttributes        = 9
	fSpanDroppedAttributes = 10
	fSpanEvents            = 11
	fSpanDroppedEvents     = 12
	fSpanLinks             = 13
	fSpanDroppedLinks      = 14
	fSpanStatus            = 15
	fSpanFlags             = 16

	fEventTime              = 1
	fEventName              = 2
	fEventAttributes        = 3
	fEventDroppedAttributes = 4

	fLinkTraceID           = 1
	fLinkSpanID            = 2
	fLinkTraceState        = 3
	fLinkAttributes        = 4
	fLinkDroppedAttributes = 5

	fStatusMessage = 2
	fStatusCode    = 3

	fResourceAttributes = 1

	fScopeName       = 1
	fScopeVersion    = 2
	fScopeAttributes = 3

	fKeyValueKey   = 1
	fKeyValueValue = 2

	fAnyString = 1
	fAnyBool   = 2
	fAnyInt    = 3
	fAnyDouble = 4
	fAnyArray  = 5

	fArrayValues = 1
)

// Status codes of OTLP's Status.code.
const (
	statusCodeOK    = 1
	statusCodeError = 2
)

// spanExporter is an sdktrace.SpanExporter sending OTLP/HTTP.
type spanExporter struct {
	c *otlpClient

	mu     sync.Mutex // the scratch below; the SDK exports one batch at a time, ForceFlush aside
	groups []spanGroup
	res    *resource.Resource // the last resource encoded, and its bytes
	resPB  []byte
	spare  atomic.Pointer[exportBuffer] // the last batch's, for the next
}

// spanGroup is the spans of one resource and scope in a batch, in the
// order the batch has them.
type spanGroup struct {
	res   *resource.Resource
	scope instrumentation.Scope
	spans []sdktrace.ReadOnlySpan
}

func (e *spanExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if len(spans) == 0 {
		return nil
	}
	buf := e.buffer()
	e.mu.Lock()
	buf.b = e.appendRequest(buf.b[:0], spans)
	e.mu.Unlock()
	return e.c.postBuffer(ctx, buf)
}

func (e *spanExporter) Shutdown(context.Context) error { return nil }

// appendRequest appends the ExportTraceServiceRequest of spans to b:
// one ResourceSpans per resource and one ScopeSpans per scope in it, in
// the order they first appear, as the collector's own exporter groups
// them.
func (e *spanExporter) appendRequest(b []byte, spans []sdktrace.ReadOnlySpan) []byte {
	groups := e.groups[:0]
	for _, s := range spans {
		res, scope := s.Resource(), s.InstrumentationScope()
		i := 0
		for i < len(groups) && (groups[i].res != res || groups[i].scope != scope) {
			i++
		}
		if i == len(groups) {
			if i < cap(groups) {
				groups = groups[:i+1]
				groups[i].res, groups[i].scope, groups[i].spans = res, scope, groups[i].spans[:0]
			} else {
				groups = append(groups, spanGroup{res: res, scope: scope})
			}
		}
		groups[i].spans = append(groups[i].spans, s)
	}
	for i, g := range groups {
		if !firstOfResource(groups, i) {
			continue
		}
		var rs int
		b, rs = openField(b, fExportResourceSpans)
		b = protowire.AppendTag(b, fResourceSpansResource, protowire.BytesType)
		b = protowire.AppendBytes(b, e.resourceBytes(g.res))
		for _, sg := range groups[i:] {
			if sg.res != g.res {
				continue
			}
			var ss int
			b, ss = openField(b, fResourceSpansScopeSpans)
			b = appendScope(b, fScopeSpansScope, sg.scope)
			for _, s := range sg.spans {
				var sp int
				b, sp = openField(b, fScopeSpansSpans)
				b = appendSpan(b, s)
				b = closeField(b, sp)
			}
			b = appendString(b, fScopeSpansSchemaURL, sg.scope.SchemaURL)
			b = closeField(b, ss)
		}
		if g.res != nil {
			b = appendString(b, fResourceSpansSchemaURL, g.res.SchemaURL())
		}
		b = closeField(b, rs)
	}
	for i := range groups {
		clear(groups[i].spans) // let the spans go
		groups[i].res = nil
	}
	e.groups = groups
	return b
}

// firstOfResource reports whether groups[i] is the first group of its
// resource.
func firstOfResource(groups []spanGroup, i int) bool {
	for _, g := range groups[:i] {
		if g.res == groups[i].res {
			return false
		}
	}
	return true
}

// resourceBytes is the encoded Resource message of r, kept for the next
// batch: a process has one resource.
func (e *spanExporter) resourceBytes(r *resource.Resource) []byte {
	if r != e.res || e.resPB == nil {
		e.res, e.resPB = r, appendResource(make([]byte, 0, 256), r)
	}
	return e.resPB
}

func appendResource(b []byte, r *resource.Resource) []byte {
	if r == nil {
		return b
	}
	for _, kv := range r.Attributes() {
		b = appendKeyValue(b, fResourceAttributes, kv)
	}
	return b
}

func appendScope(b []byte, field protowire.Number, s instrumentation.Scope) []byte {
	b, m := openField(b, field)
	b = appendString(b, fScopeName, s.Name)
	b = appendString(b, fScopeVersion, s.Version)
	for it := s.Attributes.Iter(); it.Next(); {
		b = appendKeyValue(b, fScopeAttributes, it.Attribute())
	}
	return closeField(b, m)
}

// spanFields is what an OTLP Span holds, whichever span it comes from:
// the SDK's (ReadOnlySpan) or a request span of mcpgen's own
// (requestSpan), so that both are written by the same code.
type spanFields struct {
	sc, parent   trace.SpanContext
	name         string
	kind         trace.SpanKind
	start, end   time.Time
	attrs        []attribute.KeyValue
	droppedAttrs int
	// The first shapeN of attrs are written as shapeEnc, their encoding
	// made once for every request of a kind (spanShape).
	shapeN        int
	shapeEnc      []byte
	events        []sdktrace.Event
	droppedEvents int
	links         []sdktrace.Link
	droppedLinks  int
	status        sdktrace.Status
}

// appendSpan appends the fields of the OTLP Span of s.
func appendSpan(b []byte, s sdktrace.ReadOnlySpan) []byte {
	f := spanFields{
		sc: s.SpanContext(), parent: s.Parent(), name: s.Name(), kind: s.SpanKind(),
		start: s.StartTime(), end: s.EndTime(),
		attrs: s.Attributes(), droppedAttrs: s.DroppedAttributes(),
		events: s.Events(), droppedEvents: s.DroppedEvents(),
		links: s.Links(), droppedLinks: s.DroppedLinks(),
		status: s.Status(),
	}
	return appendSpanFields(b, &f)
}

// appendSpanFields appends the fields of the OTLP Span f describes.
func appendSpanFields(b []byte, s *spanFields) []byte {
	sc := s.sc
	tid, sid := sc.TraceID(), sc.SpanID()
	b = appendBytes(b, fSpanTraceID, tid[:])
	b = appendBytes(b, fSpanSpanID, sid[:])
	if ts := sc.TraceState(); ts.Len() > 0 {
		b = appendString(b, fSpanTraceState, ts.String())
	}
	flags := uint32(sc.TraceFlags()) | 0x100 // the parent's remoteness is known
	if parent := s.parent; parent.IsValid() {
		psid := parent.SpanID()
		b = appendBytes(b, fSpanParentSpanID, psid[:])
		if parent.IsRemote() {
			flags |= 0x200
		}
	}
	b = appendString(b, fSpanName, s.name)
	b = appendVarint(b, fSpanKind, uint64(s.kind)) // the same numbers
	b = appendFixed64(b, fSpanStart, unixNano(s.start))
	b = appendFixed64(b, fSpanEnd, unixNano(s.end))
	attrs := s.attrs
	if s.shapeN > 0 {
		b = append(b, s.shapeEnc...)
		attrs = attrs[s.shapeN:]
	}
	for _, kv := range attrs {
		b = appendKeyValue(b, fSpanAttributes, kv)
	}
	b = appendVarint(b, fSpanDroppedAttributes, uint64(uint32(s.droppedAttrs)))
	for _, ev := range s.events {
		var m int
		b, m = openField(b, fSpanEvents)
		b = appendFixed64(b, fEventTime, unixNano(ev.Time))
		b = appendString(b, fEventName, ev.Name)
		for _, kv := range ev.Attributes {
			b = appendKeyValue(b, fEventAttributes, kv)
		}
		b = appendVarint(b, fEventDroppedAttributes, uint64(uint32(ev.DroppedAttributeCount)))
		b = closeField(b, m)
	}
	b = appendVarint(b, fSpanDroppedEvents, uint64(uint32(s.droppedEvents)))
	for _, l := range s.links {
		var m int
		b, m = openField(b, fSpanLinks)
		ltid, lsid := l.SpanContext.TraceID(), l.SpanContext.SpanID()
		b = appendBytes(b, fLinkTraceID, ltid[:])
		b = appendBytes(b, fLinkSpanID, lsid[:])
		if ts := l.SpanContext.TraceState(); ts.Len() > 0 {
			b = appendString(b, fLinkTraceState, ts.String())
		}
		for _, kv := range l.Attributes {
			b = appendKeyValue(b, fLinkAttributes, kv)
		}
		b = appendVarint(b, fLinkDroppedAttributes, uint64(uint32(l.DroppedAttributeCount)))
		b = closeField(b, m)
	}
	b = appendVarint(b, fSpanDroppedLinks, uint64(uint32(s.droppedLinks)))
	switch st := s.status; st.Code {
	case codes.Error:
		var m int
		b, m = openField(b, fSpanStatus)
		b = appendString(b, fStatusMessage, st.Description)
		b = appendVarint(b, fStatusCode, statusCodeError)
		b = closeField(b, m)
	case codes.Ok:
		var m int
		b, m = openField(b, fSpanStatus)
		b = appendVarint(b, fStatusCode, statusCodeOK)
		b = closeField(b, m)
	}
	b = protowire.AppendTag(b, fSpanFlags, protowire.Fixed32Type)
	return protowire.AppendFixed32(b, flags)
}

// appendKeyValue appends kv as a KeyValue message in field.
func appendKeyValue(b []byte, field protowire.Number, kv attribute.KeyValue) []byte {
	b, m := openField(b, field)
	b = appendString(b, fKeyValueKey, string(kv.Key))
	b, v := openField(b, fKeyValueValue)
	b = appendAnyValue(b, kv.Value)
	b = closeField(b, v)
	return closeField(b, m)
}

// appendAnyValue appends the fields of the AnyValue of v. A oneof
// member is written even when it is its type's zero.
func appendAnyValue(b []byte, v attribute.Value) []byte {
	switch v.Type() {
	case attribute.BOOL:
		b = protowire.AppendTag(b, fAnyBool, protowire.VarintType)
		return protowire.AppendVarint(b, protowire.EncodeBool(v.AsBool()))
	case attribute.INT64:
		b = protowire.AppendTag(b, fAnyInt, protowire.VarintType)
		return protowire.AppendVarint(b, uint64(v.AsInt64()))
	case attribute.FLOAT64:
		b = protowire.AppendTag(b, fAnyDouble, protowire.Fixed64Type)
		return protowire.AppendFixed64(b, math.Float64bits(v.AsFloat64()))
	case attribute.STRING:
		b = protowire.AppendTag(b, fAnyString, protowire.BytesType)
		return protowire.AppendString(b, v.AsString())
	case attribute.BOOLSLICE:
		return appendArray(b, v.AsBoolSlice(), attribute.BoolValue)
	case attribute.INT64SLICE:
		return appendArray(b, v.AsInt64Slice(), attribute.Int64Value)
	case attribute.FLOAT64SLICE:
		return appendArray(b, v.AsFloat64Slice(), attribute.Float64Value)
	case attribute.STRINGSLICE:
		return appendArray(b, v.AsStringSlice(), attribute.StringValue)
	}
	b = protowire.AppendTag(b, fAnyString, protowire.BytesType)
	return protowire.AppendString(b, v.Emit())
}

func appendArray[T any](b []byte, xs []T, val func(T) attribute.Value) []byte {
	b, m := openField(b, fAnyArray)
	for _, x := range xs {
		var e int
		b, e = openField(b, fArrayValues)
		b = appendAnyValue(b, val(x))
		b = closeField(b, e)
	}
	return closeField(b, m)
}

// openField appends the tag of a message field and one byte for its
// length, and returns where the message starts; closeField writes the
// length there once the message is appended. Most messages here (a
// KeyValue, an AnyValue) are shorter than 128 bytes and so fit; a longer
// one is moved right by the extra bytes its length takes.
func openField(b []byte, field protowire.Number) ([]byte, int) {
	b = protowire.AppendTag(b, field, protowire.BytesType)
	b = append(b, 0)
	return b, len(b)
}

func closeField(b []byte, start int) []byte {
	n := len(b) - start
	if n < 0x80 {
		b[start-1] = byte(n)
		return b
	}
	w := protowire.SizeVarint(uint64(n))
	b = append(b, make([]byte, w-1)...)
	copy(b[start+w-1:], b[start:start+n])
	protowire.AppendVarint(b[:start-1], uint64(n))
	return b
}

// The scalar fields, left out when zero as proto3 does.

func appendString(b []byte, field protowire.Number, s string) []byte {
	if s == "" {
		return b
	}
	b = protowire.AppendTag(b, field, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func appendBytes(b []byte, field protowire.Number, v []byte) []byte {
	if len(v) == 0 {
		return b
	}
	b = protowire.AppendTag(b, field, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

func appendVarint(b []byte, field protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, field, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func appendFixed64(b []byte, field protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, field, protowire.Fixed64Type)
	return protowire.AppendFixed64(b, v)
}

// exportBuffer is the body of an export request, kept for the
// exporter's next one once the last reader of it is closed: net/http may
// still be reading a request's body after Do returns. (A sync.Pool would
// lose it at every garbage collection, which under load comes between
// two batches.)
type exportBuffer struct {
	b    []byte
	refs atomic.Int32
	home *atomic.Pointer[exportBuffer]
}

// maxKept is the largest buffer kept for the next batch.
const maxKept = 4 << 20

// buffer returns the buffer kept from the last batch, or a new one.
func (e *spanExporter) buffer() *exportBuffer {
	buf := e.spare.Swap(nil)
	if buf == nil {
		buf = &exportBuffer{b: make([]byte, 0, 64<<10), home: &e.spare}
	}
	buf.refs.Store(1)
	return buf
}

func (buf *exportBuffer) acquire() { buf.refs.Add(1) }

func (buf *exportBuffer) release() {
	if buf.refs.Add(-1) == 0 && cap(buf.b) <= maxKept {
		buf.b = buf.b[:0]
		buf.home.CompareAndSwap(nil, buf)
	}
}

// bufferReader reads an exportBuffer as one request's body.
type bufferReader struct {
	bytes.Reader
	buf    *exportBuffer
	closed atomic.Bool
}

func newBufferReader(buf *exportBuffer) *bufferReader {
	buf.acquire()
	r := &bufferReader{buf: buf}
	r.Reset(buf.b)
	return r
}

func (r *bufferReader) Close() error {
	if r.closed.CompareAndSwap(false, true) {
		r.buf.release()
	}
	return nil
}
