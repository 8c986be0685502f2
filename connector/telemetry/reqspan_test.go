package telemetry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
)

// twoPaths serves the same requests on the SDK's span (telemetry.New,
// as an embedder sets it up) and on mcpgen's own request span (as Setup
// sets it up), each with a tracer provider of the same sampler whose
// spans (the handler's) are recorded.
type twoPaths struct {
	sdk, own       *Telemetry
	sdkRec, ownRec *tracetest.SpanRecorder // every SDK span: sdk's request spans, and both paths' children
	batch          *spanBatcher

	mu      sync.Mutex
	exports [][]byte // the own path's export requests
}

var testResource = resource.NewSchemaless(attribute.String("service.name", "diff"))

func newTwoPaths(t *testing.T, sampler sdktrace.Sampler, bs batchSettings) *twoPaths {
	t.Helper()
	return newTwoPathsLimited(t, sampler, bs, sdktrace.NewSpanLimits())
}

// newTwoPathsLimited is newTwoPaths with the span limits l on both paths.
func newTwoPathsLimited(t *testing.T, sampler sdktrace.Sampler, bs batchSettings, l sdktrace.SpanLimits) *twoPaths {
	t.Helper()
	p := &twoPaths{sdkRec: tracetest.NewSpanRecorder(), ownRec: tracetest.NewSpanRecorder()}
	sdkTP := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(p.sdkRec), sdktrace.WithSampler(sampler), sdktrace.WithResource(testResource), sdktrace.WithRawSpanLimits(l))
	ownTP := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(p.ownRec), sdktrace.WithSampler(sampler), sdktrace.WithResource(testResource), sdktrace.WithRawSpanLimits(l))
	var err error
	if p.sdk, err = New(Providers{Tracer: sdkTP}); err != nil {
		t.Fatal(err)
	}
	p.sdk.builtinSampler = true // as Setup's provider
	if p.own, err = New(Providers{Tracer: ownTP}); err != nil {
		t.Fatal(err)
	}
	p.batch = newSpanBatcher(&spanExporter{}, testResource, instrumentation.Scope{Name: ScopeName}, bs)
	p.batch.export = func(_ context.Context, spans []byte, _ int, _ func()) (bool, error) {
		p.mu.Lock()
		p.exports = append(p.exports, p.batch.frame.appendRequest(nil, spans))
		p.mu.Unlock()
		return true, nil
	}
	go p.batch.run()
	t.Cleanup(func() { p.batch.shutdown(context.Background()) })
	p.own.reqTracer = newRequestTracer(ownTP, sampler, l, p.batch)
	for _, tel := range []*Telemetry{p.sdk, p.own} {
		tel.SetNames([]string{"lookup"}, []string{"greet"})
	}
	return p
}

// flush sends what the own path's batcher holds.
func (p *twoPaths) flush(t *testing.T) {
	t.Helper()
	if err := p.batch.shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// ownSpans are the request spans the own path exported, decoded.
func (p *twoPaths) ownSpans(t *testing.T) []*tracepb.Span {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []*tracepb.Span
	for _, b := range p.exports {
		var req coltracepb.ExportTraceServiceRequest
		if err := proto.Unmarshal(b, &req); err != nil {
			t.Fatal(err)
		}
		for _, rs := range req.ResourceSpans {
			if !proto.Equal(rs.Resource, resourcePB(testResource)) {
				t.Errorf("resource %v", rs.Resource)
			}
			for _, ss := range rs.ScopeSpans {
				if ss.Scope.GetName() != ScopeName {
					t.Errorf("scope %v", ss.Scope)
				}
				out = append(out, ss.Spans...)
			}
		}
	}
	return out
}

// sdkSpans are the SDK path's request spans, as its exporter writes them.
func (p *twoPaths) sdkSpans(t *testing.T) []*tracepb.Span {
	t.Helper()
	var out []*tracepb.Span
	for _, s := range p.sdkRec.Ended() {
		if s.InstrumentationScope().Name != ScopeName || s.SpanKind() != trace.SpanKindServer {
			continue
		}
		var m tracepb.Span
		if err := proto.Unmarshal(appendSpan(nil, s), &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, &m)
	}
	return out
}

// comparable clears what differs from one span of the same request to
// the next: its id, times, and the trace id of a root.
func comparable(s *tracepb.Span) *tracepb.Span {
	s = proto.Clone(s).(*tracepb.Span)
	s.SpanId, s.StartTimeUnixNano, s.EndTimeUnixNano = nil, 0, 0
	if len(s.ParentSpanId) == 0 {
		s.TraceId = nil
	}
	for _, e := range s.Events {
		e.TimeUnixNano = 0
	}
	return s
}

const (
	sampledParent   = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	unsampledParent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"
)

// diffCase is a request and what its handler does.
type diffCase struct {
	name    string
	method  string
	id      string // the JSON-RPC id, as sent
	req     mcp.Request
	handler func(tel *Telemetry, ctx context.Context) (mcp.Result, error)
}

func ok(text string) func(*Telemetry, context.Context) (mcp.Result, error) {
	return func(*Telemetry, context.Context) (mcp.Result, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
	}
}

func callReq(tool string, meta mcp.Meta, header http.Header) *mcp.CallToolRequest {
	r := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: tool, Meta: meta}}
	if header != nil {
		r.Extra = &mcp.RequestExtra{Header: header}
	}
	return r
}

var diffCases = []diffCase{
	{name: "ok", method: "tools/call", id: "7",
		req:     callReq("lookup", mcp.Meta{"traceparent": sampledParent, "tracestate": "vendor=x"}, http.Header{"Mcp-Protocol-Version": {"2026-07-28"}}),
		handler: ok("found")},
	{name: "root", method: "tools/call", id: `"a-1"`, req: callReq("lookup", nil, nil), handler: ok("found")},
	{name: "unknown tool", method: "tools/call", id: "8", req: callReq("made-up", mcp.Meta{"traceparent": sampledParent}, nil), handler: ok("")},
	{name: "tool error", method: "tools/call", id: "9", req: callReq("lookup", mcp.Meta{"traceparent": sampledParent}, nil),
		handler: func(*Telemetry, context.Context) (mcp.Result, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "no such key"}}}, nil
		}},
	{name: "rpc error", method: "tools/call", id: "10", req: callReq("lookup", mcp.Meta{"traceparent": sampledParent}, nil),
		handler: func(*Telemetry, context.Context) (mcp.Result, error) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "bad arguments"}
		}},
	{name: "cancelled", method: "tools/call", id: "11", req: callReq("lookup", mcp.Meta{"traceparent": sampledParent}, nil),
		handler: func(*Telemetry, context.Context) (mcp.Result, error) { return nil, context.Canceled }},
	{name: "input required", method: "tools/call", id: "12", req: callReq("lookup", mcp.Meta{"traceparent": sampledParent}, nil),
		handler: func(*Telemetry, context.Context) (mcp.Result, error) {
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{
				"a": &mcp.ElicitParams{Message: "Book?"}, "b": &mcp.ListRootsParams{},
			}}, nil
		}},
	{name: "rate limited", method: "tools/call", id: "13", req: callReq("lookup", mcp.Meta{"traceparent": sampledParent}, nil),
		handler: func(tel *Telemetry, ctx context.Context) (mcp.Result, error) {
			tel.RateLimited(ctx, "lookup")
			return nil, &jsonrpc.Error{Code: -32029, Message: "rate limited"}
		}},
	{name: "handler marks the span", method: "tools/call", id: "14", req: callReq("lookup", mcp.Meta{"traceparent": sampledParent}, nil),
		handler: func(_ *Telemetry, ctx context.Context) (mcp.Result, error) {
			span := trace.SpanFromContext(ctx)
			span.SetAttributes(attribute.String("mcp.method.name", "overridden"), attribute.Int("rows", 3), attribute.StringSlice("tags", []string{"a", "b"}))
			span.RecordError(errors.New("retried"), trace.WithAttributes(attribute.Bool("transient", true)))
			span.AddEvent("cache miss", trace.WithAttributes(attribute.Float64("ms", 1.5)))
			span.AddLink(trace.Link{SpanContext: trace.NewSpanContext(trace.SpanContextConfig{
				TraceID: trace.TraceID{9}, SpanID: trace.SpanID{9}, TraceFlags: trace.FlagsSampled,
			}), Attributes: []attribute.KeyValue{attribute.String("why", "batch")}})
			span.SetStatus(codes.Ok, "ignored")
			span.SetStatus(codes.Error, "after ok: ignored")
			span.SetName("renamed")
			return &mcp.CallToolResult{}, nil
		}},
	{name: "resource read in a session-less http request", method: "resources/read", id: "15",
		req: &mcp.ReadResourceRequest{Params: &mcp.ReadResourceParams{URI: "ui://orders/list", Meta: mcp.Meta{"traceparent": sampledParent}},
			Extra: &mcp.RequestExtra{Header: http.Header{"Mcp-Protocol-Version": {"2025-11-25"}}}},
		handler: func(*Telemetry, context.Context) (mcp.Result, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "ui://orders/list", Text: "<html>"}}}, nil
		}},
	{name: "prompt", method: "prompts/get", id: "16",
		req:     &mcp.GetPromptRequest{Params: &mcp.GetPromptParams{Name: "greet", Meta: mcp.Meta{"traceparent": sampledParent}}},
		handler: func(*Telemetry, context.Context) (mcp.Result, error) { return &mcp.GetPromptResult{}, nil }},
	{name: "context in _meta and header: the header's is linked", method: "tools/call", id: "17",
		req: callReq("lookup", mcp.Meta{"traceparent": sampledParent},
			http.Header{"Traceparent": {"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}}),
		handler: ok("found")},
	{name: "context in the header", method: "tools/call", id: "18",
		req: callReq("lookup", nil, http.Header{"Traceparent": {sampledParent}, "Tracestate": {"a=b"}}), handler: ok("found")},
}

func serve(tel *Telemetry, c diffCase) {
	ctx := WithRequestID(context.Background(), json.RawMessage(c.id))
	tel.Middleware(func(ctx context.Context, _ string, _ mcp.Request) (mcp.Result, error) {
		return c.handler(tel, ctx)
	})(ctx, c.method, c.req)
}

// TestRequestSpanMatchesSDK serves each request on both paths and checks
// that the OTLP span of mcpgen's own request span decodes to the one the
// SDK's span makes: name, kind, parent, trace state, attributes (and
// their order), status, events and links.
func TestRequestSpanMatchesSDK(t *testing.T) {
	matchSDK(t, newTwoPaths(t, sdktrace.ParentBased(sdktrace.AlwaysSample()), batchSettingsFromEnv()))
}

// TestRequestSpanLimitsMatchSDK is TestRequestSpanMatchesSDK under span
// limits (OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT and
// OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT) that cut a request's
// attributes: fewer than a tool call's fixed ones, fewer than all of
// them, none, and short values.
func TestRequestSpanLimitsMatchSDK(t *testing.T) {
	for _, c := range []struct {
		name          string
		count, length int
	}{
		{"fewer than the fixed attributes", 3, -1},
		{"room for the fixed attributes only", 7, -1},
		{"none", 0, -1},
		{"short values", -1, 4},
		{"both", 8, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := sdktrace.NewSpanLimits()
			l.AttributeCountLimit, l.AttributeValueLengthLimit = c.count, c.length
			matchSDK(t, newTwoPathsLimited(t, sdktrace.ParentBased(sdktrace.AlwaysSample()), batchSettingsFromEnv(), l))
		})
	}
}

// matchSDK serves every diffCase on both of p's paths and compares their
// spans.
func matchSDK(t *testing.T, p *twoPaths) {
	t.Helper()
	for _, c := range diffCases {
		serve(p.sdk, c)
		serve(p.own, c)
	}
	p.flush(t)
	sdk, own := p.sdkSpans(t), p.ownSpans(t)
	if len(sdk) != len(diffCases) || len(own) != len(diffCases) {
		t.Fatalf("%d spans on the SDK's path and %d on mcpgen's, want %d each", len(sdk), len(own), len(diffCases))
	}
	for i, c := range diffCases {
		want, got := comparable(sdk[i]), comparable(own[i])
		if !proto.Equal(got, want) {
			t.Errorf("%s:\n got %s\nwant %s", c.name, prototext.Format(got), prototext.Format(want))
		}
		if own[i].StartTimeUnixNano == 0 || own[i].EndTimeUnixNano < own[i].StartTimeUnixNano || len(own[i].SpanId) != 8 || len(own[i].TraceId) != 16 {
			t.Errorf("%s: span %x of trace %x from %d to %d", c.name, own[i].SpanId, own[i].TraceId, own[i].StartTimeUnixNano, own[i].EndTimeUnixNano)
		}
	}
}

// TestRequestSpanSampling checks that the request span follows the
// configured sampler as the SDK's does, for each sampler Setup can be
// given and each kind of caller context, and that a span the handler
// starts with the SDK's tracer nests under it and follows its decision.
func TestRequestSpanSampling(t *testing.T) {
	samplers := map[string]sdktrace.Sampler{
		"always_on":                    sdktrace.AlwaysSample(),
		"always_off":                   sdktrace.NeverSample(),
		"traceidratio 0":               sdktrace.TraceIDRatioBased(0),
		"traceidratio 0.5":             sdktrace.TraceIDRatioBased(0.5),
		"parentbased_always_on":        sdktrace.ParentBased(sdktrace.AlwaysSample()),
		"parentbased_always_off":       sdktrace.ParentBased(sdktrace.NeverSample()),
		"parentbased_traceidratio 0":   sdktrace.ParentBased(sdktrace.TraceIDRatioBased(0)),
		"parentbased_traceidratio 0.5": sdktrace.ParentBased(sdktrace.TraceIDRatioBased(0.5)),
	}
	parents := map[string]mcp.Meta{
		"no caller context": nil,
		"sampled caller":    {"traceparent": sampledParent, "tracestate": "vendor=x"},
		"unsampled caller":  {"traceparent": unsampledParent},
		// traceidratio 0.5 keeps this trace id, and drops the one above
		"sampled caller, low trace id":   {"traceparent": "00-00000000000000000000000000000001-00f067aa0ba902b7-01"},
		"unsampled caller, low trace id": {"traceparent": "00-00000000000000000000000000000001-00f067aa0ba902b7-00"},
	}
	type seen struct {
		sampled, recording, valid bool
		traceID                   trace.TraceID
		traceState                string
		childSampled              bool
		childRecording            bool
	}
	for sname, sampler := range samplers {
		for pname, meta := range parents {
			if meta == nil && strings.Contains(sname, "0.5") {
				continue // a new trace id each time: the two paths' decisions may differ
			}
			p := newTwoPaths(t, sampler, batchSettingsFromEnv())
			var got [2]seen
			var spanIDs [2]trace.SpanID
			for i, tel := range []*Telemetry{p.sdk, p.own} {
				serve(tel, diffCase{method: "tools/call", id: "1", req: callReq("lookup", meta, nil),
					handler: func(_ *Telemetry, ctx context.Context) (mcp.Result, error) {
						span := trace.SpanFromContext(ctx)
						sc := span.SpanContext()
						_, child := span.TracerProvider().Tracer("user").Start(ctx, "db.query")
						child.End()
						got[i] = seen{sampled: sc.IsSampled(), recording: span.IsRecording(), valid: sc.IsValid(),
							traceState: sc.TraceState().String(), childSampled: child.SpanContext().IsSampled(), childRecording: child.IsRecording()}
						if meta != nil {
							got[i].traceID = sc.TraceID()
						}
						spanIDs[i] = sc.SpanID()
						if child.SpanContext().TraceID() != sc.TraceID() {
							t.Errorf("%s, %s: the child is in trace %s, not the request's %s", sname, pname, child.SpanContext().TraceID(), sc.TraceID())
						}
						return &mcp.CallToolResult{}, nil
					}})
			}
			p.flush(t)
			if got[0] != got[1] {
				t.Errorf("%s, %s: mcpgen's request span %+v, the SDK's %+v", sname, pname, got[1], got[0])
			}
			if !got[1].valid {
				t.Errorf("%s, %s: the request span's context is not valid", sname, pname)
			}
			if n, want := len(p.ownSpans(t)), len(p.sdkSpans(t)); n != want {
				t.Errorf("%s, %s: %d request spans exported, the SDK %d", sname, pname, n, want)
			}
			// The child's parent is the request span, on both paths.
			for i, rec := range []*tracetest.SpanRecorder{p.sdkRec, p.ownRec} {
				for _, s := range rec.Ended() {
					if s.Name() == "db.query" && s.Parent().SpanID() != spanIDs[i] {
						t.Errorf("%s, %s: db.query's parent %s, not the request span %s", sname, pname, s.Parent().SpanID(), spanIDs[i])
					}
				}
			}
			if n0, n1 := len(p.sdkRec.Ended())-len(p.sdkSpans(t)), len(p.ownRec.Ended()); n0 != n1 {
				t.Errorf("%s, %s: %d child spans recorded on mcpgen's path, %d on the SDK's", sname, pname, n1, n0)
			}
		}
	}
}

// TestSamplerFromEnv checks that OTEL_TRACES_SAMPLER is read as the SDK
// reads it.
func TestSamplerFromEnv(t *testing.T) {
	for _, c := range []struct {
		sampler, arg string
		want         sdktrace.Sampler
	}{
		{"", "", sdktrace.ParentBased(sdktrace.AlwaysSample())},
		{"always_on", "", sdktrace.AlwaysSample()},
		{"Always_Off", "", sdktrace.NeverSample()},
		{"traceidratio", "0.25", sdktrace.TraceIDRatioBased(0.25)},
		{"traceidratio", "", sdktrace.TraceIDRatioBased(1)},
		{"traceidratio", "2", sdktrace.TraceIDRatioBased(1)},
		{"traceidratio", "x", sdktrace.TraceIDRatioBased(1)},
		{"parentbased_always_on", "", sdktrace.ParentBased(sdktrace.AlwaysSample())},
		{"parentbased_always_off", "", sdktrace.ParentBased(sdktrace.NeverSample())},
		{"parentbased_traceidratio", "0.1", sdktrace.ParentBased(sdktrace.TraceIDRatioBased(0.1))},
		{"jaeger_remote", "", sdktrace.ParentBased(sdktrace.AlwaysSample())},
	} {
		t.Setenv("OTEL_TRACES_SAMPLER", c.sampler)
		t.Setenv("OTEL_TRACES_SAMPLER_ARG", c.arg)
		if got := samplerFromEnv().Description(); got != c.want.Description() {
			t.Errorf("OTEL_TRACES_SAMPLER=%q OTEL_TRACES_SAMPLER_ARG=%q: %s, want %s", c.sampler, c.arg, got, c.want.Description())
		}
	}
}

// TestRequestSpanAfterEnd has handlers leave goroutines that keep using
// the request's span after the request, while other requests reuse its
// record: nothing done to an ended span reaches another span, and its
// context stays its own. Run it with -race.
func TestRequestSpanAfterEnd(t *testing.T) {
	p := newTwoPaths(t, sdktrace.ParentBased(sdktrace.AlwaysSample()), batchSettings{maxQueue: 1 << 16, maxBatch: 64, delay: time.Millisecond, timeout: time.Second})
	const requests = 400
	var late sync.WaitGroup
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < requests; i += 4 {
				answered := make(chan struct{}) // the late goroutine starts after the request's span ended
				serve(p.own, diffCase{method: "tools/call", id: strconv.Itoa(i), req: callReq("lookup", mcp.Meta{"traceparent": sampledParent}, nil),
					handler: func(_ *Telemetry, ctx context.Context) (mcp.Result, error) {
						span := trace.SpanFromContext(ctx)
						span.SetAttributes(attribute.Int("i", i))
						sc := span.SpanContext()
						late.Add(1)
						go func() {
							defer late.Done()
							<-answered
							time.Sleep(time.Duration(rand.IntN(200)) * time.Microsecond)
							span.SetAttributes(attribute.Int("i", -1), attribute.Bool("late", true))
							span.AddEvent("late")
							span.SetStatus(codes.Error, "late")
							span.SetName("late")
							span.End()
							if span.IsRecording() || !span.SpanContext().Equal(sc) || !trace.SpanContextFromContext(ctx).Equal(sc) {
								t.Errorf("request %d: the span's context changed after its end", i)
							}
						}()
						return &mcp.CallToolResult{}, nil
					}})
				close(answered)
			}
		}()
	}
	wg.Wait()
	late.Wait()
	p.flush(t)
	spans := p.ownSpans(t)
	if len(spans) != requests {
		t.Fatalf("%d spans exported, want %d", len(spans), requests)
	}
	ids := map[string]bool{}
	for _, s := range spans {
		attrs := map[string]string{}
		for _, kv := range s.Attributes {
			v := kv.Value.GetStringValue()
			if kv.Key == "i" {
				v = strconv.FormatInt(kv.Value.GetIntValue(), 10)
			}
			attrs[kv.Key] = v
		}
		if attrs["i"] != attrs["jsonrpc.request.id"] || attrs["late"] != "" || len(s.Events) > 0 || s.Status != nil || s.Name != "tools/call lookup" {
			t.Errorf("span of request %s: %v, events %v, status %v, name %q", attrs["jsonrpc.request.id"], attrs, s.Events, s.Status, s.Name)
		}
		if ids[string(s.SpanId)] {
			t.Errorf("span id %x twice", s.SpanId)
		}
		ids[string(s.SpanId)] = true
	}
}

// TestSpanBatcher checks the batching: full batches are sent at once,
// the rest when the delay passes, spans beyond the queue are dropped and
// reported, and Shutdown sends what is left.
func TestSpanBatcher(t *testing.T) {
	bt := newSpanBatcher(&spanExporter{}, testResource, instrumentation.Scope{Name: ScopeName},
		batchSettings{maxQueue: 7, maxBatch: 3, delay: time.Hour, timeout: time.Second})
	var (
		mu       sync.Mutex
		sizes    []int
		reported []string
	)
	sent := make(chan int, 100)
	hold, entered := make(chan struct{}), make(chan struct{}, 100)
	bt.export = func(_ context.Context, spans []byte, n int, _ func()) (bool, error) {
		entered <- struct{}{}
		<-hold
		var req coltracepb.ExportTraceServiceRequest
		if err := proto.Unmarshal(bt.frame.appendRequest(nil, spans), &req); err != nil {
			t.Error(err)
		} else if got := len(req.ResourceSpans[0].ScopeSpans[0].Spans); got != n {
			t.Errorf("a request of %d spans for %d", got, n)
		}
		mu.Lock()
		sizes = append(sizes, n)
		mu.Unlock()
		sent <- n
		return true, nil
	}
	bt.report = func(err error) {
		mu.Lock()
		reported = append(reported, err.Error())
		mu.Unlock()
	}
	go bt.run()
	rec := func(i int) *spanRecord {
		return &spanRecord{spanFields: spanFields{name: fmt.Sprint(i), kind: trace.SpanKindServer,
			sc: trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1}, SpanID: trace.SpanID{byte(i + 1)}, TraceFlags: trace.FlagsSampled})}}
	}
	// 3 spans make a batch, which the exporting goroutine takes and holds
	// (it is no longer queued); 7 more fill the queue; 2 are dropped.
	for i := range 3 {
		bt.add(rec(i))
	}
	<-entered
	for i := 3; i < 12; i++ {
		bt.add(rec(i))
	}
	close(hold)
	for _, want := range []int{3, 3, 3} {
		if n := <-sent; n != want {
			t.Errorf("a batch of %d, want %d", n, want)
		}
	}
	if err := bt.shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	bt.add(rec(99)) // after shutdown: dropped
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(sizes, []int{3, 3, 3, 1}) {
		t.Errorf("batches of %v spans, want 3, 3, 3 and 1", sizes)
	}
	if len(reported) != 1 || !bytes.Contains([]byte(reported[0]), []byte("2 request spans dropped")) {
		t.Errorf("reported %q, want the 2 spans dropped", reported)
	}
}

// TestSpanBatcherDelay checks that a batch that is not full is sent once
// the schedule delay passes.
func TestSpanBatcherDelay(t *testing.T) {
	bt := newSpanBatcher(&spanExporter{}, testResource, instrumentation.Scope{Name: ScopeName},
		batchSettings{maxQueue: 100, maxBatch: 50, delay: 20 * time.Millisecond, timeout: time.Second})
	sent := make(chan int, 1)
	bt.export = func(_ context.Context, _ []byte, n int, _ func()) (bool, error) { sent <- n; return true, nil }
	go bt.run()
	defer bt.shutdown(context.Background())
	bt.add(&spanRecord{spanFields: spanFields{name: "x"}})
	select {
	case n := <-sent:
		if n != 1 {
			t.Errorf("%d spans sent, want 1", n)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("nothing sent after the delay")
	}
}

// TestRequestSpanEncodingMatchesProto checks that the batcher's export
// requests are the bytes proto.Marshal writes for the same spans, for
// random spans of one resource and scope in batches of random sizes.
func TestRequestSpanEncodingMatchesProto(t *testing.T) {
	for seed := range uint64(100) {
		checkBatchEncoding(t, seed)
	}
}

// FuzzRequestSpanEncoding is TestRequestSpanEncodingMatchesProto with
// seeds from the fuzzer: go test -fuzz FuzzRequestSpanEncoding ./connector/telemetry/
func FuzzRequestSpanEncoding(f *testing.F) {
	f.Add(uint64(0))
	f.Add(uint64(1 << 40))
	f.Fuzz(func(t *testing.T, seed uint64) { checkBatchEncoding(t, seed) })
}

func checkBatchEncoding(t *testing.T, seed uint64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, seed^0xba7c4))
	spans := randomSpans(r)
	if len(spans) == 0 {
		return
	}
	res, scope := spans[0].Resource(), spans[0].InstrumentationScope()
	for i, s := range spans {
		stub := tracetest.SpanStubFromReadOnlySpan(s)
		stub.Resource, stub.InstrumentationScope = res, scope
		stub.InstrumentationLibrary = scope //nolint:staticcheck // Snapshot prefers it to InstrumentationScope
		spans[i] = stub.Snapshot()
	}
	maxBatch := 1 + r.IntN(len(spans)+1)
	bt := newSpanBatcher(&spanExporter{}, res, scope, batchSettings{maxQueue: 1000, maxBatch: maxBatch, delay: time.Hour, timeout: time.Second})
	var got [][]byte
	bt.export = func(_ context.Context, b []byte, _ int, _ func()) (bool, error) {
		got = append(got, bt.frame.appendRequest([]byte("junk")[:0], b))
		return true, nil
	}
	go bt.run()
	for _, s := range spans {
		rec := &spanRecord{spanFields: spanFields{
			sc: s.SpanContext(), parent: s.Parent(), name: s.Name(), kind: s.SpanKind(), start: s.StartTime(), end: s.EndTime(),
			attrs: s.Attributes(), droppedAttrs: s.DroppedAttributes(), events: s.Events(), droppedEvents: s.DroppedEvents(),
			links: s.Links(), droppedLinks: s.DroppedLinks(), status: s.Status(),
		}}
		bt.add(rec)
	}
	bt.shutdown(context.Background())
	var want [][]byte
	for chunk := range slices.Chunk(spans, maxBatch) {
		want = append(want, referenceRequest(t, chunk))
	}
	if len(got) != len(want) {
		t.Fatalf("seed %d: %d requests for %d spans in batches of %d, want %d", seed, len(got), len(spans), maxBatch, len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			var gm, wm coltracepb.ExportTraceServiceRequest
			gerr := proto.Unmarshal(got[i], &gm)
			proto.Unmarshal(want[i], &wm)
			t.Fatalf("seed %d, request %d: %d bytes, want %d (proto.Marshal); decoded: %v\ngot  %v\nwant %v", seed, i, len(got[i]), len(want[i]), gerr, &gm, &wm)
		}
	}
}

// TestRequestSpanAllocs counts what the request span adds to a request
// the sampler drops and to one it keeps (the middleware around a handler
// that does nothing).
func TestRequestSpanAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocations are not counted with the race detector")
	}
	for _, c := range []struct {
		name    string
		sampler sdktrace.Sampler
		max     float64
	}{
		// Of these, the caller's context (the propagator's) and the
		// metrics make 5, the span (its own context) 1 and the context
		// carrying the request's id 1; the SDK's span made 7 dropped and
		// 12 sampled.
		{"dropped", sdktrace.NeverSample(), 7},
		{"sampled", sdktrace.AlwaysSample(), 7},
	} {
		p := newTwoPaths(t, c.sampler, batchSettings{maxQueue: 1 << 20, maxBatch: 1 << 20, delay: time.Hour, timeout: time.Second})
		req := callReq("lookup", mcp.Meta{"traceparent": sampledParent}, http.Header{"Mcp-Protocol-Version": {"2026-07-28"}})
		res := &mcp.CallToolResult{}
		h := p.own.Middleware(func(context.Context, string, mcp.Request) (mcp.Result, error) { return res, nil })
		id := json.RawMessage("7")
		h(WithRequestID(context.Background(), id), "tools/call", req)
		n := testing.AllocsPerRun(200, func() { h(WithRequestID(context.Background(), id), "tools/call", req) })
		t.Logf("%s: %.1f allocations a request", c.name, n)
		// A collection during the runs empties the pool of records now
		// and then, which adds a fraction of an allocation.
		if n > c.max+0.5 {
			t.Errorf("%s: %.1f allocations a request, want at most %.0f", c.name, n, c.max)
		}
	}
}

// TestRequestSpanIsItsContext checks the context a request span is: the
// handler finds the span in it, and the rest (values, deadline,
// cancellation, a child's cancellation) is its parent's.
func TestRequestSpanIsItsContext(t *testing.T) {
	if !spanIsContext {
		t.Fatal("package trace does not find a request span in the span's own context: each request pays for a context of trace.ContextWithSpan's")
	}
	p := newTwoPaths(t, sdktrace.ParentBased(sdktrace.AlwaysSample()), batchSettingsFromEnv())
	type key struct{}
	deadline := time.Now().Add(time.Hour)
	parent, cancel := context.WithDeadline(context.WithValue(context.Background(), key{}, "v"), deadline)
	var got context.Context
	p.own.Middleware(func(ctx context.Context, _ string, _ mcp.Request) (mcp.Result, error) {
		got = ctx
		return &mcp.CallToolResult{}, nil
	})(WithRequestID(parent, json.RawMessage("1")), "tools/call", callReq("lookup", nil, nil))
	span, ok := trace.SpanFromContext(got).(*requestSpan)
	if !ok || got != context.Context(span) {
		t.Fatalf("the handler's context is %T, its span %T; want the request span as both", got, trace.SpanFromContext(got))
	}
	if v := got.Value(key{}); v != "v" {
		t.Errorf("the parent's value reads %v", v)
	}
	if d, ok := got.Deadline(); !ok || !d.Equal(deadline) {
		t.Errorf("deadline %v %v, want the parent's %v", d, ok, deadline)
	}
	child, stop := context.WithCancel(got)
	defer stop()
	if got.Err() != nil {
		t.Fatalf("err %v before the parent is cancelled", got.Err())
	}
	cancel()
	select {
	case <-got.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the parent's cancellation did not reach the span's context")
	}
	select {
	case <-child.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the parent's cancellation did not reach a child of the span's context")
	}
	if !errors.Is(got.Err(), context.Canceled) || !errors.Is(child.Err(), context.Canceled) {
		t.Errorf("errors %v and %v, want context.Canceled", got.Err(), child.Err())
	}
}
