package telemetry

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// TestSpanEncodingMatchesProto checks that the spans' OTLP bytes are the
// ones proto.Marshal writes for the same tracepb messages, and decode to
// them, for random batches: long and empty strings, every attribute
// type, events, links, statuses, several resources and scopes.
func TestSpanEncodingMatchesProto(t *testing.T) {
	e := &spanExporter{}
	for seed := range uint64(150) {
		checkEncoding(t, e, seed)
	}
}

// FuzzSpanEncoding is TestSpanEncodingMatchesProto with seeds from the
// fuzzer: go test -fuzz FuzzSpanEncoding ./connector/telemetry/
func FuzzSpanEncoding(f *testing.F) {
	f.Add(uint64(0))
	f.Add(uint64(1 << 40))
	e := &spanExporter{}
	f.Fuzz(func(t *testing.T, seed uint64) { checkEncoding(t, e, seed) })
}

func checkEncoding(t *testing.T, e *spanExporter, seed uint64) {
	t.Helper()
	spans := randomSpans(rand.New(rand.NewPCG(seed, seed^0x5eed)))
	want := referenceRequest(t, spans)
	got := e.appendRequest([]byte("junk before")[:0], spans)
	if !bytes.Equal(got, want) {
		var gm, wm coltracepb.ExportTraceServiceRequest
		gerr := proto.Unmarshal(got, &gm)
		proto.Unmarshal(want, &wm)
		t.Fatalf("seed %d: %d bytes, want %d (proto.Marshal); decoded: %v\ngot  %v\nwant %v", seed, len(got), len(want), gerr, &gm, &wm)
	}
	var req coltracepb.ExportTraceServiceRequest
	if err := proto.Unmarshal(got, &req); err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	n := 0
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			n += len(ss.Spans)
		}
	}
	if n != len(spans) {
		t.Fatalf("seed %d: %d spans decoded, want %d", seed, n, len(spans))
	}
}

// TestSpanExportReusesBuffers exports batches one after the other
// through HTTP, so that each reuses the buffer of the one before, and
// checks that each arrives whole and as itself.
func TestSpanExportReusesBuffers(t *testing.T) {
	var (
		mu     sync.Mutex
		bodies [][]byte
	)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if r.ContentLength != int64(len(b)) || r.Header.Get("Content-Type") != "application/x-protobuf" {
			t.Errorf("request: Content-Length %d for %d bytes, Content-Type %q", r.ContentLength, len(b), r.Header.Get("Content-Type"))
		}
		mu.Lock()
		bodies = append(bodies, b)
		mu.Unlock()
	}))
	defer recv.Close()
	e := &spanExporter{c: tracesClient(t, recv.URL)}
	var want [][]byte
	for seed := range uint64(20) {
		spans := randomSpans(rand.New(rand.NewPCG(seed, 7)))
		if len(spans) == 0 {
			continue
		}
		want = append(want, referenceRequest(t, spans))
		if err := e.ExportSpans(context.Background(), spans); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(bodies) != len(want) {
		t.Fatalf("%d requests, want %d", len(bodies), len(want))
	}
	for i := range want {
		if !bytes.Equal(bodies[i], want[i]) {
			t.Errorf("request %d: %d bytes, not the %d of its batch", i, len(bodies[i]), len(want[i]))
		}
	}
}

// BenchmarkExportSpans measures encoding a batch of request spans such
// as a connector's (no HTTP).
//
//	go test -run '^$' -bench ExportSpans -benchmem ./connector/telemetry/
func BenchmarkExportSpans(b *testing.B) {
	spans := requestSpans(512)
	b.Run("protowire", func(b *testing.B) {
		e := &spanExporter{}
		var buf []byte
		b.ReportAllocs()
		for b.Loop() {
			buf = e.appendRequest(buf[:0], spans)
		}
		b.ReportMetric(float64(len(buf))/float64(len(spans)), "B/span")
	})
	b.Run("tracepb", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			referenceRequest(b, spans)
		}
	})
}

// requestSpans are n spans like those of a connector's tools/call.
func requestSpans(n int) []sdktrace.ReadOnlySpan {
	res := resource.NewSchemaless(attribute.String("service.name", "bench"), attribute.String("service.version", "1.0.0"),
		attribute.String("telemetry.sdk.language", "go"), attribute.String("telemetry.sdk.name", "opentelemetry"))
	start := time.Unix(1_800_000_000, 0)
	var out []sdktrace.ReadOnlySpan
	for i := range n {
		var tid trace.TraceID
		var sid trace.SpanID
		tid[0], tid[15], sid[0], sid[7] = byte(i), 1, byte(i>>8), 2
		out = append(out, tracetest.SpanStub{
			Name:        "tools/call find_orders",
			SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled}),
			Parent:      trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: trace.SpanID{1}, TraceFlags: trace.FlagsSampled, Remote: true}),
			SpanKind:    trace.SpanKindServer,
			StartTime:   start, EndTime: start.Add(40 * time.Microsecond),
			Attributes: []attribute.KeyValue{
				keyMethodName.String("tools/call"), keyToolName.String("find_orders"), keyOperationName.String("execute_tool"),
				keyProtocolVersion.String("2026-07-28"), keyRequestID.String(fmt.Sprint(i)),
				keyTransport.String("tcp"), keyProtocolName.String("http"),
			},
			Resource:             res,
			InstrumentationScope: instrumentation.Scope{Name: ScopeName},
		}.Snapshot())
	}
	return out
}

// randomSpans is a batch of up to 40 spans of up to 3 resources and 3
// scopes, each field random.
func randomSpans(r *rand.Rand) []sdktrace.ReadOnlySpan {
	str := func() string {
		switch r.IntN(4) {
		case 0:
			return ""
		case 1:
			return strings.Repeat("é", r.IntN(9000)) // lengths of 2 and 3 bytes
		}
		return strings.Repeat("x", r.IntN(200))
	}
	value := func() attribute.Value {
		switch r.IntN(9) {
		case 0:
			return attribute.BoolValue(r.IntN(2) == 0)
		case 1:
			return attribute.Int64Value(r.Int64() - math.MaxInt64/2*int64(r.IntN(3)))
		case 2:
			return attribute.Float64Value([]float64{0, -1.5, math.Inf(1), r.Float64()}[r.IntN(4)])
		case 3:
			return attribute.BoolSliceValue([]bool{true, false}[:r.IntN(3)])
		case 4:
			return attribute.Int64SliceValue([]int64{0, -1, 300}[:r.IntN(4)])
		case 5:
			return attribute.Float64SliceValue([]float64{0, 2.5}[:r.IntN(3)])
		case 6:
			return attribute.StringSliceValue([]string{"", "a", str()}[:r.IntN(4)])
		}
		return attribute.StringValue(str())
	}
	attrs := func() []attribute.KeyValue {
		var kvs []attribute.KeyValue
		for range r.IntN(12) {
			kvs = append(kvs, attribute.KeyValue{Key: attribute.Key(str()), Value: value()})
		}
		return kvs
	}
	sc := func() trace.SpanContext {
		var tid trace.TraceID
		var sid trace.SpanID
		for i := range tid {
			tid[i] = byte(r.IntN(256))
		}
		for i := range sid {
			sid[i] = byte(r.IntN(256))
		}
		cfg := trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.TraceFlags(r.IntN(2)), Remote: r.IntN(2) == 0}
		if r.IntN(3) == 0 {
			cfg.TraceState, _ = trace.ParseTraceState("vendor=v" + fmt.Sprint(r.IntN(100)) + ",other=x")
		}
		if r.IntN(5) == 0 {
			return trace.SpanContext{}
		}
		return trace.NewSpanContext(cfg)
	}
	tm := func() time.Time {
		if r.IntN(6) == 0 {
			return time.Time{}
		}
		return time.Unix(0, r.Int64N(math.MaxInt64))
	}
	var resources []*resource.Resource
	for range 1 + r.IntN(3) {
		switch r.IntN(4) {
		case 0:
			resources = append(resources, nil)
		case 1:
			resources = append(resources, resource.Empty())
		default:
			resources = append(resources, resource.NewWithAttributes("https://opentelemetry.io/schemas/1."+fmt.Sprint(r.IntN(30)), attrs()...))
		}
	}
	var scopes []instrumentation.Scope
	for range 1 + r.IntN(3) {
		scopes = append(scopes, instrumentation.Scope{Name: str(), Version: str(), SchemaURL: str(), Attributes: attribute.NewSet(attrs()...)})
	}
	var spans []sdktrace.ReadOnlySpan
	for range r.IntN(40) {
		s := tracetest.SpanStub{
			Name: str(), SpanContext: sc(), Parent: sc(), SpanKind: trace.SpanKind(r.IntN(6)),
			StartTime: tm(), EndTime: tm(), Attributes: attrs(),
			DroppedAttributes: r.IntN(3), DroppedEvents: r.IntN(3), DroppedLinks: r.IntN(3),
			Resource: resources[r.IntN(len(resources))], InstrumentationScope: scopes[r.IntN(len(scopes))],
		}
		for range r.IntN(3) {
			s.Events = append(s.Events, sdktrace.Event{Name: str(), Time: tm(), Attributes: attrs(), DroppedAttributeCount: r.IntN(2)})
		}
		for range r.IntN(3) {
			s.Links = append(s.Links, sdktrace.Link{SpanContext: sc(), Attributes: attrs(), DroppedAttributeCount: r.IntN(2)})
		}
		switch r.IntN(3) {
		case 1:
			s.Status = sdktrace.Status{Code: codes.Error, Description: str()}
		case 2:
			s.Status = sdktrace.Status{Code: codes.Ok}
		}
		spans = append(spans, s.Snapshot())
	}
	return spans
}

// referenceRequest is the export request of spans built as tracepb
// messages and encoded by proto.Marshal, the way the exporter did before
// it wrote the bytes itself.
func referenceRequest(tb testing.TB, spans []sdktrace.ReadOnlySpan) []byte {
	type scopeKey struct {
		res   *resource.Resource
		scope instrumentation.Scope
	}
	var (
		out    []*tracepb.ResourceSpans
		byRes  = map[*resource.Resource]*tracepb.ResourceSpans{}
		byScop = map[scopeKey]*tracepb.ScopeSpans{}
	)
	for _, s := range spans {
		res := s.Resource()
		rs := byRes[res]
		if rs == nil {
			rs = &tracepb.ResourceSpans{Resource: resourcePB(res), SchemaUrl: res.SchemaURL()}
			byRes[res] = rs
			out = append(out, rs)
		}
		k := scopeKey{res, s.InstrumentationScope()}
		ss := byScop[k]
		if ss == nil {
			ss = &tracepb.ScopeSpans{Scope: scopePB(k.scope), SchemaUrl: k.scope.SchemaURL}
			byScop[k] = ss
			rs.ScopeSpans = append(rs.ScopeSpans, ss)
		}
		ss.Spans = append(ss.Spans, spanPB(s))
	}
	b, err := proto.Marshal(&coltracepb.ExportTraceServiceRequest{ResourceSpans: out})
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func spanPB(s sdktrace.ReadOnlySpan) *tracepb.Span {
	sc := s.SpanContext()
	tid, sid := sc.TraceID(), sc.SpanID()
	p := &tracepb.Span{
		TraceId:                tid[:],
		SpanId:                 sid[:],
		TraceState:             sc.TraceState().String(),
		Name:                   s.Name(),
		Kind:                   tracepb.Span_SpanKind(s.SpanKind()),
		StartTimeUnixNano:      unixNano(s.StartTime()),
		EndTimeUnixNano:        unixNano(s.EndTime()),
		Attributes:             attrsPB(s.Attributes()),
		DroppedAttributesCount: uint32(s.DroppedAttributes()),
		DroppedEventsCount:     uint32(s.DroppedEvents()),
		DroppedLinksCount:      uint32(s.DroppedLinks()),
		Flags:                  uint32(sc.TraceFlags()) | 0x100,
	}
	if parent := s.Parent(); parent.IsValid() {
		psid := parent.SpanID()
		p.ParentSpanId = psid[:]
		if parent.IsRemote() {
			p.Flags |= 0x200
		}
	}
	for _, ev := range s.Events() {
		p.Events = append(p.Events, &tracepb.Span_Event{
			TimeUnixNano: unixNano(ev.Time), Name: ev.Name,
			Attributes: attrsPB(ev.Attributes), DroppedAttributesCount: uint32(ev.DroppedAttributeCount),
		})
	}
	for _, l := range s.Links() {
		ltid, lsid := l.SpanContext.TraceID(), l.SpanContext.SpanID()
		p.Links = append(p.Links, &tracepb.Span_Link{
			TraceId: ltid[:], SpanId: lsid[:], TraceState: l.SpanContext.TraceState().String(),
			Attributes: attrsPB(l.Attributes), DroppedAttributesCount: uint32(l.DroppedAttributeCount),
		})
	}
	switch st := s.Status(); st.Code {
	case codes.Error:
		p.Status = &tracepb.Status{Code: tracepb.Status_STATUS_CODE_ERROR, Message: st.Description}
	case codes.Ok:
		p.Status = &tracepb.Status{Code: tracepb.Status_STATUS_CODE_OK}
	}
	return p
}
