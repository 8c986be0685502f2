package telemetry

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/embedded"
)

// A request's server span, when telemetry is set up by Setup (the
// connector binary's way), is mcpgen's own rather than the OpenTelemetry
// SDK's: the SDK's span, its snapshot for the batch processor, two copies
// of its attributes and its channel send were most of what tracing every
// call cost (about 1.9 KB and 4 µs a request). A requestSpan is recorded
// into a spanRecord reused from request to request, and written to OTLP
// bytes when it ends, straight into the exporter's batch (spanBatcher).
// It keeps what the SDK does that a collector or a user can see: the same
// sampler decides (parent-based, ratio, always off), ids come from the
// same kind of generator, the span limits are the SDK's, and the spans a
// handler starts with the SDK's tracer nest under it, since its context
// carries it. See docs/decisions.md.

// requestTracer starts request spans.
type requestTracer struct {
	provider trace.TracerProvider // the SDK's, which a handler reaches through TracerProvider
	sampler  sdktrace.Sampler
	parentOn bool // sampler is ParentBased(AlwaysSample()), the default
	limits   sdktrace.SpanLimits
	batch    *spanBatcher
	records  sync.Pool // of *spanRecord
}

// newRequestTracer returns a tracer of request spans that sampler
// decides on, within limits, ended into batch; provider is the SDK's.
func newRequestTracer(provider trace.TracerProvider, sampler sdktrace.Sampler, limits sdktrace.SpanLimits, batch *spanBatcher) *requestTracer {
	return &requestTracer{provider: provider, sampler: sampler, limits: limits, batch: batch,
		parentOn: sampler.Description() == sdktrace.ParentBased(sdktrace.AlwaysSample()).Description()}
}

// requestSpan is the trace.Span a request's ctx carries. Its span context
// never changes, so that what holds the ctx after the request (a task, a
// goroutine the handler left running) still reads the right parent; what
// it records lives in rec until End hands it to the batch and gives it
// back for another request, after which the span records nothing more.
type requestSpan struct {
	embedded.Span // a newer trace.Span fails to compile rather than panic

	sc     trace.SpanContext
	rt     *requestTracer
	parent context.Context // the span is the context that carries it, a child of parent (Value)

	mu  sync.Mutex
	rec *spanRecord // nil when not recording: dropped by the sampler, or ended
}

// spanRecord is what a recording requestSpan holds until it ends.
type spanRecord struct {
	spanFields
	attrsDirty bool   // attributes were added without looking for duplicates
	sampled    bool   // to be exported (the sampler may record without it)
	enc        []byte // the encoded span, kept for the next
}

// start starts the server span called name of a request, a child of the
// span context in parent, and returns parent carrying it. links and
// start are the SDK's WithLinks and WithTimestamp.
func (rt *requestTracer) start(parent context.Context, name string, start time.Time, links []trace.Link) (context.Context, *requestSpan) {
	psc := trace.SpanContextFromContext(parent)
	var tid trace.TraceID
	if psc.TraceID().IsValid() {
		tid = psc.TraceID()
	} else {
		tid = newTraceID()
	}
	sr := rt.sample(parent, psc, tid, name, links)
	scc := trace.SpanContextConfig{TraceID: tid, SpanID: newSpanID(), TraceState: sr.Tracestate, TraceFlags: psc.TraceFlags() &^ trace.FlagsSampled}
	if sr.Decision == sdktrace.RecordAndSample {
		scc.TraceFlags |= trace.FlagsSampled
	}
	s := &requestSpan{sc: trace.NewSpanContext(scc), rt: rt, parent: parent}
	if sr.Decision != sdktrace.Drop {
		rec, _ := rt.records.Get().(*spanRecord)
		if rec == nil {
			rec = &spanRecord{spanFields: spanFields{attrs: make([]attribute.KeyValue, 0, 12)}}
		}
		rec.sc, rec.parent, rec.name, rec.kind, rec.start = s.sc, psc, name, trace.SpanKindServer, start
		rec.sampled = s.sc.IsSampled()
		if rec.start.IsZero() {
			rec.start = time.Now()
		}
		for _, l := range links {
			rec.addLink(&rt.limits, l)
		}
		rec.setAttributes(&rt.limits, sr.Attributes)
		s.rec = rec
	}
	if !spanIsContext {
		return trace.ContextWithSpan(parent, s), s
	}
	return s, s
}

// A requestSpan is also the context that carries it: the one allocation
// serves for both, and the span is found first when the handler's
// context is asked for it. Package trace keeps a context's span under a
// key of its own type, which spanKey holds: learned once from a context
// that records what it is asked for, and checked (spanIsContext); if a
// later version of package trace found its span otherwise, the span
// would be put in a context of trace.ContextWithSpan's instead.
var (
	spanKey       = askedKey()
	spanIsContext = func() bool {
		s := &requestSpan{parent: context.Background()}
		return spanKey != nil && trace.SpanFromContext(s) == trace.Span(s)
	}()
)

// askedKey is the key trace.SpanFromContext asks a context for.
func askedKey() any {
	p := &keyProbe{Context: context.Background()}
	trace.SpanFromContext(p)
	return p.key
}

type keyProbe struct {
	context.Context
	key any
}

func (p *keyProbe) Value(key any) any {
	p.key = key
	return nil
}

func (s *requestSpan) Deadline() (time.Time, bool) { return s.parent.Deadline() }
func (s *requestSpan) Done() <-chan struct{}       { return s.parent.Done() }
func (s *requestSpan) Err() error                  { return s.parent.Err() }

// Value is s itself for the key of a context's span, else parent's value.
func (s *requestSpan) Value(key any) any {
	if key == spanKey {
		return trace.Span(s)
	}
	return s.parent.Value(key)
}

// sample is the sampler's decision on the span called name of trace tid,
// a child of psc, the span context in parent.
func (rt *requestTracer) sample(parent context.Context, psc trace.SpanContext, tid trace.TraceID, name string, links []trace.Link) sdktrace.SamplingResult {
	if rt.parentOn {
		// What the default sampler decides, without asking it: a
		// parent's decision, else always; the parent's trace state.
		sr := sdktrace.SamplingResult{Decision: sdktrace.RecordAndSample, Tracestate: psc.TraceState()}
		if psc.IsValid() && !psc.IsSampled() {
			sr.Decision = sdktrace.Drop
		}
		return sr
	}
	// The SDK's samplers read only the parent's span context from
	// ParentContext: without one, an empty context says the same, and
	// spares them a walk to the root of the request's (the HTTP
	// server's) chain of contexts each.
	if !psc.IsValid() && psc.TraceState().Len() == 0 {
		parent = context.Background()
	}
	return rt.sampler.ShouldSample(sdktrace.SamplingParameters{
		ParentContext: parent, TraceID: tid, Name: name, Kind: trace.SpanKindServer, Links: links,
	})
}

// newTraceID and newSpanID are the SDK's random ids (math/rand/v2,
// never zero).
func newTraceID() (tid trace.TraceID) {
	for !tid.IsValid() {
		binary.NativeEndian.PutUint64(tid[:8], rand.Uint64())
		binary.NativeEndian.PutUint64(tid[8:], rand.Uint64())
	}
	return tid
}

func newSpanID() (sid trace.SpanID) {
	for !sid.IsValid() {
		binary.NativeEndian.PutUint64(sid[:], rand.Uint64())
	}
	return sid
}

// put gives rec back for another request.
func (rt *requestTracer) put(rec *spanRecord) {
	clear(rec.attrs)
	rec.attrs = rec.attrs[:0]
	clear(rec.events)
	rec.events = rec.events[:0]
	clear(rec.links)
	rec.links = rec.links[:0]
	rec.sc, rec.parent, rec.name, rec.status = trace.SpanContext{}, trace.SpanContext{}, "", sdktrace.Status{}
	rec.droppedAttrs, rec.droppedEvents, rec.droppedLinks = 0, 0, 0
	rec.shapeN, rec.shapeEnc = 0, nil
	rec.attrsDirty, rec.sampled = false, false
	if cap(rec.attrs) > 64 || cap(rec.events) > 16 || cap(rec.enc) > 16<<10 {
		return // an exceptional span's room is not kept
	}
	rt.records.Put(rec)
}

// End ends s: its record is written into the export batch if sampled,
// and given back. Only the first End counts, as with the SDK.
func (s *requestSpan) End(options ...trace.SpanEndOption) {
	rec := s.take()
	if rec == nil {
		return
	}
	rec.end = rec.start.Add(time.Since(rec.start)) // monotonic, as the SDK's
	if len(options) > 0 {
		if c := trace.NewSpanEndConfig(options...); !c.Timestamp().IsZero() {
			rec.end = c.Timestamp()
		}
	}
	s.rt.end(rec)
}

// endAfter is End for a span that lasted d from its start: the
// middleware, which measured d for the request's metrics, does not read
// the clock again.
func (s *requestSpan) endAfter(d time.Duration) {
	if rec := s.take(); rec != nil {
		rec.end = rec.start.Add(d)
		s.rt.end(rec)
	}
}

// take takes s's record, which the first End gets and later ones do
// not.
func (s *requestSpan) take() *spanRecord {
	s.mu.Lock()
	rec := s.rec
	s.rec = nil
	s.mu.Unlock()
	return rec
}

// end writes rec into the export batch if sampled, and gives it back.
func (rt *requestTracer) end(rec *spanRecord) {
	if rec.sampled {
		if rec.attrsDirty {
			rec.dedupAttrs()
		}
		rt.batch.add(rec)
	}
	rt.put(rec)
}

func (s *requestSpan) SetAttributes(kvs ...attribute.KeyValue) {
	if len(kvs) == 0 {
		return
	}
	s.mu.Lock()
	if s.rec != nil {
		s.rec.setAttributes(&s.rt.limits, kvs)
	}
	s.mu.Unlock()
}

func (s *requestSpan) AddEvent(name string, options ...trace.EventOption) {
	if !s.IsRecording() {
		return
	}
	c := trace.NewEventConfig(options...)
	s.mu.Lock()
	if s.rec != nil {
		s.rec.addEvent(&s.rt.limits, name, c.Attributes(), c.Timestamp())
	}
	s.mu.Unlock()
}

// RecordError adds the event the SDK adds for err: "exception", with its
// type, message and, when asked, the stack.
func (s *requestSpan) RecordError(err error, options ...trace.EventOption) {
	if err == nil || !s.IsRecording() {
		return
	}
	options = append(options, trace.WithAttributes(
		attribute.String("exception.type", typeName(err)),
		attribute.String("exception.message", err.Error()),
	))
	if c := trace.NewEventConfig(options...); c.StackTrace() {
		stack := make([]byte, 2048)
		stack = stack[:runtime.Stack(stack, false)]
		options = append(options, trace.WithAttributes(attribute.String("exception.stacktrace", string(stack))))
	}
	s.AddEvent("exception", options...)
}

// typeName names err's type as the SDK's exception.type does.
func typeName(v any) string {
	t := reflect.TypeOf(v)
	if t.PkgPath() == "" && t.Name() == "" {
		return t.String()
	}
	return fmt.Sprintf("%s.%s", t.PkgPath(), t.Name())
}

func (s *requestSpan) AddLink(l trace.Link) {
	if !l.SpanContext.IsValid() && len(l.Attributes) == 0 && l.SpanContext.TraceState().Len() == 0 {
		return
	}
	s.mu.Lock()
	if s.rec != nil {
		s.rec.addLink(&s.rt.limits, l)
	}
	s.mu.Unlock()
}

func (s *requestSpan) IsRecording() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rec != nil
}

func (s *requestSpan) SpanContext() trace.SpanContext { return s.sc }

// SetStatus sets the status as the SDK does: Ok is final, Error keeps
// its description, Unset changes nothing.
func (s *requestSpan) SetStatus(code codes.Code, description string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rec == nil || s.rec.status.Code > code {
		return
	}
	st := sdktrace.Status{Code: code}
	if code == codes.Error {
		st.Description = description
	}
	s.rec.status = st
}

func (s *requestSpan) SetName(name string) {
	s.mu.Lock()
	if s.rec != nil {
		s.rec.name = name
	}
	s.mu.Unlock()
}

func (s *requestSpan) TracerProvider() trace.TracerProvider { return s.rt.provider }

// setAttributes adds kvs as the SDK's span does: without looking for
// duplicates while they fit (dedupAttrs does it at the end), else
// replacing those of a key already there and dropping the rest beyond
// the limit.
func (rec *spanRecord) setAttributes(l *sdktrace.SpanLimits, kvs []attribute.KeyValue) {
	if len(kvs) == 0 {
		return
	}
	limit := l.AttributeCountLimit
	if limit == 0 {
		rec.droppedAttrs += len(kvs)
		return
	}
	if limit > 0 && len(rec.attrs)+len(kvs) > limit {
		rec.dedupAttrs()
		for _, a := range kvs {
			if !a.Valid() {
				rec.droppedAttrs++
				continue
			}
			a = truncateValue(a, l.AttributeValueLengthLimit)
			if i := indexOfKey(rec.attrs, a.Key); i >= 0 {
				rec.replaceAttr(i, a)
			} else if len(rec.attrs) >= limit {
				rec.droppedAttrs++
			} else {
				rec.attrs = append(rec.attrs, a)
			}
		}
		return
	}
	for _, a := range kvs {
		if !a.Valid() {
			rec.droppedAttrs++
			continue
		}
		rec.attrs = append(rec.attrs, truncateValue(a, l.AttributeValueLengthLimit))
		rec.attrsDirty = true
	}
}

// dedupAttrs keeps the last value of each key, where the key first
// appeared.
func (rec *spanRecord) dedupAttrs() {
	rec.attrsDirty = false
	unique := rec.attrs[:0]
	for _, a := range rec.attrs {
		if i := indexOfKey(unique, a.Key); i >= 0 {
			rec.replaceAttr(i, a)
		} else {
			unique = append(unique, a)
		}
	}
	clear(rec.attrs[len(unique):])
	rec.attrs = unique
}

// replaceAttr sets the attribute at i to a, which then is no longer its
// shape's, encoded in advance.
func (rec *spanRecord) replaceAttr(i int, a attribute.KeyValue) {
	if i < rec.shapeN {
		rec.shapeN, rec.shapeEnc = 0, nil
	}
	rec.attrs[i] = a
}

func indexOfKey(kvs []attribute.KeyValue, k attribute.Key) int {
	for i := range kvs {
		if kvs[i].Key == k {
			return i
		}
	}
	return -1
}

// truncateValue cuts a string value (or each of a string slice) to limit
// characters, as OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT asks (a negative
// limit is none), leaving out invalid UTF-8 as the SDK does. The nested
// values (slices and maps of values) are kept as given.
func truncateValue(a attribute.KeyValue, limit int) attribute.KeyValue {
	if limit < 0 {
		return a
	}
	switch a.Value.Type() {
	case attribute.STRING:
		if s := a.Value.AsString(); len(s) > limit {
			return a.Key.String(truncateString(s, limit))
		}
	case attribute.STRINGSLICE:
		ss := a.Value.AsStringSlice()
		for i, s := range ss {
			ss[i] = truncateString(s, limit)
		}
		return a.Key.StringSlice(ss)
	}
	return a
}

func truncateString(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "")
	}
	n := 0
	for i := range s {
		if n == limit {
			return s[:i]
		}
		n++
	}
	return s
}

// addEvent adds an event, dropping the oldest beyond the limit as the
// SDK's span does.
func (rec *spanRecord) addEvent(l *sdktrace.SpanLimits, name string, attrs []attribute.KeyValue, ts time.Time) {
	e := sdktrace.Event{Name: name, Attributes: attrs, Time: ts}
	if lim := l.AttributePerEventCountLimit; lim == 0 {
		e.DroppedAttributeCount, e.Attributes = len(attrs), nil
	} else if lim > 0 && len(attrs) > lim {
		e.DroppedAttributeCount, e.Attributes = len(attrs)-lim, attrs[:lim]
	}
	switch lim := l.EventCountLimit; {
	case lim == 0:
		rec.droppedEvents++
	case lim > 0 && len(rec.events) >= lim:
		copy(rec.events, rec.events[1:])
		rec.events[len(rec.events)-1] = e
		rec.droppedEvents++
	default:
		rec.events = append(rec.events, e)
	}
}

// addLink adds a link, dropping the oldest beyond the limit.
func (rec *spanRecord) addLink(l *sdktrace.SpanLimits, link trace.Link) {
	k := sdktrace.Link{SpanContext: link.SpanContext, Attributes: link.Attributes}
	if lim := l.AttributePerLinkCountLimit; lim == 0 {
		k.DroppedAttributeCount, k.Attributes = len(k.Attributes), nil
	} else if lim > 0 && len(k.Attributes) > lim {
		k.DroppedAttributeCount, k.Attributes = len(k.Attributes)-lim, k.Attributes[:lim]
	}
	switch lim := l.LinkCountLimit; {
	case lim == 0:
		rec.droppedLinks++
	case lim > 0 && len(rec.links) >= lim:
		copy(rec.links, rec.links[1:])
		rec.links[len(rec.links)-1] = k
		rec.droppedLinks++
	default:
		rec.links = append(rec.links, k)
	}
}
