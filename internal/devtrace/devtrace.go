// Package devtrace turns the OpenTelemetry traces a connector exports under
// mcpgen dev (OTLP/HTTP, protobuf) into the spans of each trace, kept for a
// while in memory, so that the inspector can show the trace of a request it
// sent: its own traceparent in the request's _meta names the trace.
package devtrace

import (
	"compress/gzip"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"
	"sync"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// Paths at which a Collector's handlers are mounted.
const (
	// ReceivePath is the OTLP/HTTP traces endpoint: the connector's
	// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT.
	ReceivePath = "/_mcpgen/otlp/v1/traces"
	// TracePath, followed by a trace id (32 hex digits), answers the
	// spans of that trace as JSON.
	TracePath = "/_mcpgen/traces/"
)

// Bounds of what a Collector keeps: the most recent traces, a number of
// spans in each, and the size of one export.
const (
	maxTraces        = 256
	maxSpansPerTrace = 512
	maxExportBytes   = 4 << 20
)

// Span is one span of a trace, as the inspector shows it.
type Span struct {
	SpanID       string         `json:"spanId"`
	ParentSpanID string         `json:"parentSpanId,omitempty"`
	Name         string         `json:"name"`
	Kind         string         `json:"kind"`
	Service      string         `json:"service,omitempty"` // the resource's service.name
	Scope        string         `json:"scope,omitempty"`   // the instrumentation scope
	Start        uint64         `json:"startUnixNano,string"`
	End          uint64         `json:"endUnixNano,string"`
	Status       string         `json:"status,omitempty"` // "error" or "ok"; "" unset
	Message      string         `json:"statusMessage,omitempty"`
	Attributes   map[string]any `json:"attributes,omitempty"`
}

// TokenHeader is the request header that carries a Collector's token on
// an export.
const TokenHeader = "X-Mcpgen-Trace-Token"

// Collector keeps the spans received, by trace. Its methods are safe for
// concurrent use.
type Collector struct {
	token  string
	mu     sync.Mutex
	traces map[string][]Span
	order  []string // trace ids, oldest first
}

// New returns an empty Collector with a token of its own.
func New() *Collector { return &Collector{token: rand.Text(), traces: map[string][]Span{}} }

// Token is what an export must carry in TokenHeader: the connector mcpgen
// dev starts is given it, and nothing else (another process, a web page)
// can add spans.
func (c *Collector) Token() string { return c.token }

// Spans returns the spans received so far of trace id (32 lowercase hex
// digits), in the order of their start.
func (c *Collector) Spans(id string) []Span {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := slices.Clone(c.traces[id])
	slices.SortStableFunc(out, func(a, b Span) int {
		switch {
		case a.Start < b.Start:
			return -1
		case a.Start > b.Start:
			return 1
		}
		return 0
	})
	return out
}

// Add keeps the spans of an export.
func (c *Collector) Add(req *coltracepb.ExportTraceServiceRequest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rs := range req.GetResourceSpans() {
		service := ""
		for _, kv := range rs.GetResource().GetAttributes() {
			if kv.GetKey() == "service.name" {
				service = kv.GetValue().GetStringValue()
			}
		}
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				c.add(hex.EncodeToString(s.GetTraceId()), spanOf(s, service, ss.GetScope().GetName()))
			}
		}
	}
}

func (c *Collector) add(trace string, s Span) {
	spans, known := c.traces[trace]
	if !known {
		if len(c.order) >= maxTraces {
			delete(c.traces, c.order[0])
			c.order = c.order[1:]
		}
		c.order = append(c.order, trace)
	}
	if len(spans) < maxSpansPerTrace {
		c.traces[trace] = append(spans, s)
	}
}

func spanOf(s *tracepb.Span, service, scope string) Span {
	out := Span{
		SpanID: hex.EncodeToString(s.GetSpanId()), Name: s.GetName(), Service: service, Scope: scope,
		Kind:  strings.ToLower(strings.TrimPrefix(s.GetKind().String(), "SPAN_KIND_")),
		Start: s.GetStartTimeUnixNano(), End: s.GetEndTimeUnixNano(), Message: s.GetStatus().GetMessage(),
	}
	if p := s.GetParentSpanId(); len(p) > 0 {
		out.ParentSpanID = hex.EncodeToString(p)
	}
	switch s.GetStatus().GetCode() {
	case tracepb.Status_STATUS_CODE_ERROR:
		out.Status = "error"
	case tracepb.Status_STATUS_CODE_OK:
		out.Status = "ok"
	}
	if attrs := s.GetAttributes(); len(attrs) > 0 {
		out.Attributes = make(map[string]any, len(attrs))
		for _, kv := range attrs {
			out.Attributes[kv.GetKey()] = valueOf(kv.GetValue())
		}
	}
	return out
}

func valueOf(v *commonpb.AnyValue) any {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_BoolValue:
		return x.BoolValue
	case *commonpb.AnyValue_IntValue:
		return x.IntValue
	case *commonpb.AnyValue_DoubleValue:
		return x.DoubleValue
	case *commonpb.AnyValue_BytesValue:
		return hex.EncodeToString(x.BytesValue)
	case *commonpb.AnyValue_ArrayValue:
		var out []any
		for _, e := range x.ArrayValue.GetValues() {
			out = append(out, valueOf(e))
		}
		return out
	case *commonpb.AnyValue_KvlistValue:
		out := map[string]any{}
		for _, kv := range x.KvlistValue.GetValues() {
			out[kv.GetKey()] = valueOf(kv.GetValue())
		}
		return out
	}
	return nil
}

// ReceiveHandler serves the OTLP/HTTP traces endpoint: a POST of an
// ExportTraceServiceRequest in protobuf (gzipped or not), carrying the
// token, is kept and answered with an empty ExportTraceServiceResponse.
// Without the token, or from a browser (an Origin header), it is refused
// with 403; JSON OTLP with 415, as is any other content: this endpoint is
// for the connector mcpgen dev runs.
func (c *Collector) ReceiveHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", "POST")
			http.Error(w, "Method Not Allowed: POST an OTLP traces export", http.StatusMethodNotAllowed)
			return
		}
		if subtle.ConstantTimeCompare([]byte(r.Header.Get(TokenHeader)), []byte(c.token)) != 1 || r.Header.Get("Origin") != "" {
			http.Error(w, "Forbidden: this endpoint takes the traces of the connector mcpgen dev runs", http.StatusForbidden)
			return
		}
		if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/x-protobuf" {
			http.Error(w, "Unsupported Media Type: send OTLP/HTTP in protobuf (application/x-protobuf)", http.StatusUnsupportedMediaType)
			return
		}
		var body io.Reader = http.MaxBytesReader(w, r.Body, maxExportBytes)
		switch r.Header.Get("Content-Encoding") {
		case "", "identity":
		case "gzip":
			zr, err := gzip.NewReader(body)
			if err != nil {
				http.Error(w, "Bad Request: the gzip body cannot be read: "+err.Error(), http.StatusBadRequest)
				return
			}
			defer zr.Close()
			body = io.LimitReader(zr, maxExportBytes)
		default:
			http.Error(w, "Unsupported Media Type: Content-Encoding must be gzip or none", http.StatusUnsupportedMediaType)
			return
		}
		data, err := io.ReadAll(body)
		if err != nil {
			http.Error(w, fmt.Sprintf("Bad Request: reading the export: %v (at most %d bytes)", err, maxExportBytes), http.StatusBadRequest)
			return
		}
		var req coltracepb.ExportTraceServiceRequest
		if err := proto.Unmarshal(data, &req); err != nil {
			http.Error(w, "Bad Request: not an OTLP ExportTraceServiceRequest: "+err.Error(), http.StatusBadRequest)
			return
		}
		c.Add(&req)
		out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(out)
	})
}

// TraceHandler answers GET TracePath+ID with the trace's spans received so
// far, {"traceId": ID, "spans": [...]}, oldest start first: empty while
// none has arrived (the connector exports in batches), so the inspector
// polls.
func (c *Collector) TraceHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := strings.ToLower(strings.TrimPrefix(r.URL.Path, TracePath))
		if b, err := hex.DecodeString(id); err != nil || len(b) != 16 {
			http.Error(w, "Bad Request: a trace id is 32 hex digits", http.StatusBadRequest)
			return
		}
		spans := c.Spans(id)
		if spans == nil {
			spans = []Span{}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"traceId": id, "spans": spans})
	})
}
