package devtrace

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

func export(trace byte, spans ...*tracepb.Span) []byte {
	for _, s := range spans {
		s.TraceId = bytes.Repeat([]byte{trace}, 16)
	}
	b, _ := proto.Marshal(&coltracepb.ExportTraceServiceRequest{ResourceSpans: []*tracepb.ResourceSpans{{
		Resource: &resourcepb.Resource{Attributes: []*commonpb.KeyValue{{Key: "service.name", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: "notes"}}}}},
		ScopeSpans: []*tracepb.ScopeSpans{{
			Scope: &commonpb.InstrumentationScope{Name: "github.com/mcpgen/mcpgen"},
			Spans: spans,
		}},
	}}})
	return b
}

func TestReceiveAndServe(t *testing.T) {
	c := New()
	mux := http.NewServeMux()
	mux.Handle(ReceivePath, c.ReceiveHandler())
	mux.Handle(TracePath, c.TraceHandler())
	ts := httptest.NewServer(mux)
	defer ts.Close()
	send := func(body []byte, ctype, enc string, h http.Header) int {
		req, _ := http.NewRequest("POST", ts.URL+ReceivePath, bytes.NewReader(body))
		req.Header = h
		req.Header.Set("Content-Type", ctype)
		if enc != "" {
			req.Header.Set("Content-Encoding", enc)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	post := func(body []byte, ctype, enc string) int {
		return send(body, ctype, enc, http.Header{TokenHeader: {c.Token()}})
	}
	// Without the token, or from a web page, nothing is kept.
	for _, h := range []http.Header{{}, {TokenHeader: {"guess"}}, {TokenHeader: {c.Token()}, "Origin": {"http://127.0.0.1:1"}}} {
		if code := send(export(0xab, &tracepb.Span{SpanId: []byte{7}, Name: "forged"}), "application/x-protobuf", "", h); code != http.StatusForbidden {
			t.Errorf("an export with header %v: %d, want 403", h, code)
		}
	}
	server := &tracepb.Span{SpanId: []byte{1, 1, 1, 1, 1, 1, 1, 1}, ParentSpanId: []byte{9, 9, 9, 9, 9, 9, 9, 9}, Name: "tools/call find_orders",
		Kind: tracepb.Span_SPAN_KIND_SERVER, StartTimeUnixNano: 1_800_000_000_000_000_100, EndTimeUnixNano: 1_800_000_000_000_900_000,
		Attributes: []*commonpb.KeyValue{{Key: "gen_ai.tool.name", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: "find_orders"}}}},
		Status:     &tracepb.Status{Code: tracepb.Status_STATUS_CODE_ERROR, Message: "backend down"}}
	child := &tracepb.Span{SpanId: []byte{2, 2, 2, 2, 2, 2, 2, 2}, ParentSpanId: server.SpanId, Name: "db query",
		StartTimeUnixNano: 1_800_000_000_000_000_500, EndTimeUnixNano: 1_800_000_000_000_800_000,
		Attributes: []*commonpb.KeyValue{{Key: "rows", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: 3}}}}}
	// The child arrives first, in its own gzipped export, as a batch may.
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(export(0xab, child))
	zw.Close()
	if code := post(gz.Bytes(), "application/x-protobuf", "gzip"); code != 200 {
		t.Fatalf("gzipped export: %d", code)
	}
	if code := post(export(0xab, server), "application/x-protobuf", ""); code != 200 {
		t.Fatalf("export: %d", code)
	}
	for _, bad := range []struct {
		body       []byte
		ctype, enc string
		want       int
	}{
		{[]byte(`{"resourceSpans":[]}`), "application/json", "", http.StatusUnsupportedMediaType},
		{[]byte("\xff\xff\xff"), "application/x-protobuf", "", http.StatusBadRequest},
		{[]byte("not gzip"), "application/x-protobuf", "gzip", http.StatusBadRequest},
		{export(0xab), "application/x-protobuf", "br", http.StatusUnsupportedMediaType},
		{make([]byte, maxExportBytes+1), "application/x-protobuf", "", http.StatusBadRequest},
	} {
		if code := post(bad.body, bad.ctype, bad.enc); code != bad.want {
			t.Errorf("export %q (%s, %q): %d, want %d", bad.body[:min(len(bad.body), 20)], bad.ctype, bad.enc, code, bad.want)
		}
	}

	resp, err := http.Get(ts.URL + TracePath + strings.Repeat("ab", 16))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got struct {
		TraceID string `json:"traceId"`
		Spans   []struct {
			SpanID, ParentSpanID, Name, Kind, Service, Scope, Status, StatusMessage string
			StartUnixNano                                                           string
			Attributes                                                              map[string]any
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if len(got.Spans) != 2 {
		t.Fatalf("trace: %+v, want 2 spans", got)
	}
	s, c2 := got.Spans[0], got.Spans[1]
	if s.Name != "tools/call find_orders" || s.Kind != "server" || s.Service != "notes" || s.Status != "error" || s.StatusMessage != "backend down" ||
		s.Attributes["gen_ai.tool.name"] != "find_orders" || s.StartUnixNano != "1800000000000000100" || s.ParentSpanID != "0909090909090909" {
		t.Errorf("first span (earliest start) %+v", s)
	}
	if c2.Name != "db query" || c2.ParentSpanID != s.SpanID || c2.Attributes["rows"] != float64(3) {
		t.Errorf("child span %+v", c2)
	}
	for _, path := range []string{TracePath + "nothex", TracePath + "abab"} {
		if r, _ := http.Get(ts.URL + path); r.StatusCode != http.StatusBadRequest {
			t.Errorf("GET %s: %d, want 400", path, r.StatusCode)
		}
	}
	if r, _ := http.Get(ts.URL + TracePath + strings.Repeat("cd", 16)); r.StatusCode != 200 {
		t.Errorf("an unknown trace: %d, want 200 with no spans", r.StatusCode)
	}
}

// TestBounds: the oldest traces are forgotten past maxTraces, and a trace
// keeps at most maxSpansPerTrace spans.
func TestBounds(t *testing.T) {
	c := New()
	for i := range maxTraces + 10 {
		var req coltracepb.ExportTraceServiceRequest
		proto.Unmarshal(export(0, &tracepb.Span{SpanId: []byte{1}, Name: "s"}), &req)
		req.ResourceSpans[0].ScopeSpans[0].Spans[0].TraceId = []byte(fmt.Sprintf("%016d", i))
		c.Add(&req)
	}
	if n := len(c.traces); n != maxTraces {
		t.Errorf("%d traces kept, want %d", n, maxTraces)
	}
	if s := c.Spans(fmt.Sprintf("%x", fmt.Sprintf("%016d", 0))); len(s) != 0 {
		t.Errorf("the oldest trace is still kept: %v", s)
	}
	var spans []*tracepb.Span
	for range maxSpansPerTrace + 5 {
		spans = append(spans, &tracepb.Span{SpanId: []byte{2}, Name: "s"})
	}
	var req coltracepb.ExportTraceServiceRequest
	proto.Unmarshal(export(0xee, spans...), &req)
	c.Add(&req)
	if n := len(c.Spans(strings.Repeat("ee", 16))); n != maxSpansPerTrace {
		t.Errorf("%d spans kept of one trace, want %d", n, maxSpansPerTrace)
	}
}
