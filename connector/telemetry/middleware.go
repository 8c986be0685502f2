package telemetry

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/internal/fastpath"
	"github.com/mcpgen/mcpgen/internal/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Attribute keys of the semantic conventions for MCP, and mcpgen's own.
const (
	keyMethodName      = attribute.Key("mcp.method.name")
	keySessionID       = attribute.Key("mcp.session.id")
	keyProtocolVersion = attribute.Key("mcp.protocol.version")
	keyResourceURI     = attribute.Key("mcp.resource.uri")
	keyToolName        = attribute.Key("gen_ai.tool.name")
	keyPromptName      = attribute.Key("gen_ai.prompt.name")
	keyOperationName   = attribute.Key("gen_ai.operation.name")
	keyRequestID       = attribute.Key("jsonrpc.request.id")
	keyStatusCode      = attribute.Key("rpc.response.status_code")
	keyErrorType       = attribute.Key("error.type")
	keyTransport       = attribute.Key("network.transport")
	keyProtocolName    = attribute.Key("network.protocol.name")
	keyOutcome         = attribute.Key("mcpgen.outcome")
)

// other stands for a value outside the known set in metric attributes, so
// that what a client sends cannot grow the number of series.
const other = "_OTHER"

// Outcomes of a request, as the request log names them.
const (
	outcomeOK        = "ok"
	outcomeToolError = "tool_error"
	outcomeError     = "error"
	outcomeCancelled = "cancelled"
)

// knownMethods are the request methods that keep their name in metrics.
var knownMethods = map[string]bool{
	"initialize": true, "ping": true, "server/discover": true, "logging/setLevel": true,
	"tools/list": true, "tools/call": true, "prompts/list": true, "prompts/get": true,
	"resources/list": true, "resources/templates/list": true, "resources/read": true,
	"resources/subscribe": true, "resources/unsubscribe": true, "subscriptions/listen": true,
	"completion/complete": true, "tasks/get": true, "tasks/list": true, "tasks/cancel": true,
	"tasks/result": true, "elicitation/create": true, "sampling/createMessage": true, "roots/list": true,
}

// serverSpan is the option of every request span's kind, made once.
var serverSpan = trace.WithSpanKind(trace.SpanKindServer)

// SetNames tells t the server's tool and prompt names: other names keep
// out of metrics and span names. Call it before serving.
func (t *Telemetry) SetNames(tools, prompts []string) {
	if t == nil {
		return
	}
	t.tools = make(map[string]bool, len(tools))
	for _, n := range tools {
		t.tools[n] = true
	}
	t.prompts = make(map[string]bool, len(prompts))
	for _, n := range prompts {
		t.prompts[n] = true
	}
}

type requestIDKey struct{}

// WithRequestID returns ctx carrying the JSON-RPC id of the request it
// serves (as sent), for the span's jsonrpc.request.id: the go-sdk does not
// show it to middleware, so a transport that knows it says it here.
func WithRequestID(ctx context.Context, id json.RawMessage) context.Context {
	return &requestIDContext{Context: ctx, id: id}
}

// requestIDContext is a context carrying a request's id: the value of
// requestIDKey is the context itself, so that the id is not boxed into
// an allocation of its own, as context.WithValue would.
type requestIDContext struct {
	context.Context
	id json.RawMessage
}

func (c *requestIDContext) Value(key any) any {
	if key == (requestIDKey{}) {
		return c
	}
	return c.Context.Value(key)
}

// request is what a span and the metrics say of one request.
type request struct {
	method    string
	tool      string // gen_ai.tool.name
	prompt    string // gen_ai.prompt.name
	uri       string // mcp.resource.uri
	session   string
	version   string
	transport string // tcp or pipe
}

func (t *Telemetry) describe(method string, req mcp.Request) request {
	d := request{method: method, transport: "pipe"}
	extra := req.GetExtra()
	if extra != nil && extra.Header != nil {
		d.transport = "tcp"
		// The header's name is canonical, as net/http keeps it: no
		// need for Get's canonical copy of the name.
		if v := extra.Header["Mcp-Protocol-Version"]; len(v) > 0 {
			d.version = v[0]
		}
	}
	switch p := req.GetParams().(type) {
	case *mcp.CallToolParamsRaw:
		if p != nil {
			d.tool = p.Name
		}
	case *mcp.CallToolParams:
		if p != nil {
			d.tool = p.Name
		}
	case *mcp.GetPromptParams:
		if p != nil {
			d.prompt = p.Name
		}
	case *mcp.ReadResourceParams:
		if p != nil {
			d.uri = p.URI
		}
	case *mcp.SubscribeParams:
		if p != nil {
			d.uri = p.URI
		}
	case *mcp.UnsubscribeParams:
		if p != nil {
			d.uri = p.URI
		}
	case *mcp.InitializeParams:
		if p != nil {
			d.version = p.ProtocolVersion
		}
	}
	if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil {
		if d.version == "" {
			if ip := ss.InitializeParams(); ip != nil {
				d.version = ip.ProtocolVersion
			}
		}
	}
	return d
}

// Middleware is receiving middleware for a go-sdk server (and the
// runtime's fast path) that serves each JSON-RPC request in a server span
// and records its metrics. The span continues the caller's trace from
// params._meta (traceparent, tracestate, baggage; SEP-414), else from the
// HTTP request's traceparent header; the handler's ctx carries it, so the
// spans a handler starts nest under it.
func (t *Telemetry) Middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if strings.HasPrefix(method, "notifications/") {
			return next(ctx, method, req)
		}
		ctx, m := t.begin(ctx, method, req)
		res, err := next(ctx, method, req)
		t.finish(ctx, m, res, err)
		return res, err
	}
}

// measure is what the middleware keeps of a request while its handler
// runs. It is held through a pointer, so that the middleware's frame,
// under every handler's, stays small: a deep handler then fits in its
// goroutine's first stack (see connector's requestLine).
type measure struct {
	start time.Time
	d     request
	k     *requestKind // nil for names the server does not know
	span  trace.Span   // nil without tracing
}

var measures = sync.Pool{New: func() any { return new(measure) }}

// begin starts measuring a request, and its span with tracing: ctx
// carries the span.
func (t *Telemetry) begin(ctx context.Context, method string, req mcp.Request) (context.Context, *measure) {
	m := measures.Get().(*measure)
	m.start = time.Now()
	m.d = t.describe(method, req)
	m.d.session = fastpath.SessionID(ctx, req) // parked sessions' too
	m.k = t.kinds.get(t, m.d)
	if t.tracing {
		ctx, m.span = t.startServer(ctx, m, req)
	}
	return ctx, m
}

// finish measures the request m ended with res and err, ends its span
// and gives m back.
func (t *Telemetry) finish(ctx context.Context, m *measure, res mcp.Result, err error) {
	start, d, k, span := m.start, &m.d, m.k, m.span
	outcome, errType, errMsg := classify(res, err)
	var ms metricSet
	if k != nil && outcome == outcomeOK {
		ms = k.ok
	} else {
		ms = t.attrSets.get(t, metricKey{
			method: d.method, tool: d.tool, prompt: d.prompt, outcome: outcome,
			errType: errType, version: d.version, transport: d.transport,
		})
	}
	n, sized := resultSize(res)
	sized = sized && err == nil
	took := time.Since(start)
	if ms.series != nil {
		ms.series.record(took.Seconds(), n, sized)
	} else {
		opt := metric.WithAttributeSet(ms.set)
		t.duration.Record(ctx, took.Seconds(), opt)
		if sized {
			t.resultSize.Record(ctx, n, opt)
		}
	}
	if span != nil {
		if r, ok := res.(*mcp.CallToolResult); ok && r != nil && len(r.InputRequests) > 0 {
			inputRequired(span, r.InputRequests)
		}
		if errType != "" {
			span.SetAttributes(keyErrorType.String(errType))
			if outcome == outcomeError {
				span.SetAttributes(keyStatusCode.String(errType))
			}
			span.SetStatus(codes.Error, errMsg)
		}
		if rs, ok := span.(*requestSpan); ok {
			rs.endAfter(took) // its start is the request's
		} else {
			span.End()
		}
	}
	*m = measure{}
	measures.Put(m)
}

// startServer starts the server span of a request.
func (t *Telemetry) startServer(ctx context.Context, m *measure, req mcp.Request) (context.Context, trace.Span) {
	start, d, k := m.start, m.d, m.k
	parent := ctx
	var links []trace.Link
	var meta map[string]any
	if p := req.GetParams(); p != nil && !isNilParams(p) {
		meta = p.GetMeta()
	}
	if _, ok := meta["traceparent"].(string); ok {
		// The caller's context travels with the message; the transport's
		// (an HTTP request's) is only linked, as the conventions ask.
		if amb := trace.SpanContextFromContext(ctx); amb.IsValid() {
			links = append(links, trace.Link{SpanContext: amb})
		} else if extra := req.GetExtra(); extra != nil && extra.Header != nil && extra.Header.Get("Traceparent") != "" {
			if sc := trace.SpanContextFromContext(t.propagator.Extract(ctx, propagation.HeaderCarrier(extra.Header))); sc.IsValid() {
				links = append(links, trace.Link{SpanContext: sc})
			}
		}
		parent = t.propagator.Extract(ctx, metaCarrier(meta))
	} else if extra := req.GetExtra(); extra != nil && t.carriesContext(extra.Header) && !trace.SpanContextFromContext(ctx).IsValid() {
		parent = t.propagator.Extract(ctx, propagation.HeaderCarrier(extra.Header))
	}
	var sh *spanShape
	if k != nil {
		sh = k.shape
	} else {
		sh = newSpanShape(t, shapeKeyOf(d))
	}
	if t.reqTracer != nil {
		sctx, span := t.reqTracer.start(parent, sh.name, start, links)
		if rec := span.rec; rec != nil { // not shared yet: no lock
			if sh.enc != nil && len(rec.attrs) == 0 {
				// sh's attributes are valid, within the limits and
				// encoded already; the request's own follow, under
				// keys of their own.
				rec.attrs = append(rec.attrs, sh.attrs...)
				rec.shapeN, rec.shapeEnc = len(sh.attrs), sh.enc
				rec.setAttributes(&t.reqTracer.limits, appendRequestAttrs(rec.attrs[len(rec.attrs):], ctx, d))
				rec.attrsDirty = false
			} else {
				// The attributes are made in the record's spare room,
				// then added where they already are (within the span
				// limits).
				rec.setAttributes(&t.reqTracer.limits, appendSpanAttrs(rec.attrs[len(rec.attrs):], ctx, sh, d))
			}
		}
		return sctx, span
	}
	if t.builtinSampler && links == nil {
		// No sampler of the SDK's reads attributes: given after the
		// start, they are copied once rather than twice, and not made at
		// all for a span the sampler dropped.
		sctx, span := t.tracer.Start(parent, sh.name, serverSpan, trace.WithTimestamp(start))
		if span.IsRecording() {
			span.SetAttributes(spanAttrs(ctx, sh, d)...)
		}
		return sctx, span
	}
	attrs := spanAttrs(ctx, sh, d)
	if links != nil {
		return t.tracer.Start(parent, sh.name, trace.WithSpanKind(trace.SpanKindServer), trace.WithTimestamp(start),
			trace.WithAttributes(attrs...), trace.WithLinks(links...))
	}
	return t.tracer.Start(parent, sh.name, serverSpan, trace.WithTimestamp(start), trace.WithAttributes(attrs...))
}

// spanAttrs are the attributes of the server span of d: sh's, then the
// resource URI, session and request id (from ctx), in a list of their
// exact size.
func spanAttrs(ctx context.Context, sh *spanShape, d request) []attribute.KeyValue {
	n := len(sh.attrs)
	for _, v := range [...]bool{d.uri != "", d.session != "", ctx.Value(requestIDKey{}) != nil} {
		if v {
			n++
		}
	}
	return appendSpanAttrs(make([]attribute.KeyValue, 0, n), ctx, sh, d)
}

// appendSpanAttrs appends the attributes of the server span of d to
// attrs.
func appendSpanAttrs(attrs []attribute.KeyValue, ctx context.Context, sh *spanShape, d request) []attribute.KeyValue {
	return appendRequestAttrs(append(attrs, sh.attrs...), ctx, d)
}

// appendRequestAttrs appends the attributes of the server span of d that
// change from request to request: the resource URI, session and request
// id. No key of theirs is one of a spanShape's.
func appendRequestAttrs(attrs []attribute.KeyValue, ctx context.Context, d request) []attribute.KeyValue {
	if d.uri != "" {
		attrs = append(attrs, keyResourceURI.String(d.uri))
	}
	if d.session != "" {
		attrs = append(attrs, keySessionID.String(d.session))
	}
	if c, ok := ctx.Value(requestIDKey{}).(*requestIDContext); ok && len(c.id) > 0 {
		raw := c.id
		id := string(raw)
		if raw[0] == '"' {
			if uq, err := strconv.Unquote(id); err == nil {
				id = uq
			}
		}
		attrs = append(attrs, keyRequestID.String(id))
	}
	return attrs
}

// carriesContext reports whether h has a header the propagator reads
// (traceparent, baggage ...). Most requests have none, and asking the
// propagator costs a canonical header name, made anew, per field.
func (t *Telemetry) carriesContext(h http.Header) bool {
	for _, k := range t.headerFields {
		if _, ok := h[k]; ok {
			return true
		}
	}
	return false
}

// spanShape is what the server span of every request of one method,
// tool or prompt, protocol version and transport carries: its name and
// the attributes that do not change from call to call.
type spanShape struct {
	name  string
	attrs []attribute.KeyValue
	// enc is attrs as OTLP span attributes, for mcpgen's own request
	// span (nil when the span limits leave no room for them all).
	enc []byte
}

// shapeKey is what a spanShape depends on.
type shapeKey struct {
	method, tool, prompt, version, transport string
}

func shapeKeyOf(d request) shapeKey {
	return shapeKey{method: d.method, tool: d.tool, prompt: d.prompt, version: d.version, transport: d.transport}
}

// requestKind is what every request of one shapeKey the server knows
// shares: its span's shape (with tracing), and the metric set of its
// outcome when it succeeds, so that the common request costs one map
// lookup for both.
type requestKind struct {
	shape *spanShape
	ok    metricSet
}

// kindCache holds the requestKind of every shapeKey seen whose method,
// tool or prompt and version the server knows; names a client makes up
// are described afresh each time and not kept.
type kindCache struct {
	mu    sync.RWMutex
	kinds map[shapeKey]*requestKind
}

// get returns the kind of d, or nil when a name in it is not one the
// server knows.
func (c *kindCache) get(t *Telemetry, d request) *requestKind {
	key := shapeKeyOf(d)
	c.mu.RLock()
	k, ok := c.kinds[key]
	c.mu.RUnlock()
	if ok {
		return k
	}
	known := knownMethods[key.method] && (key.tool == "" || t.tools[key.tool]) && (key.prompt == "" || t.prompts[key.prompt]) &&
		(key.version == "" || wire.Supported(key.version))
	if !known {
		return nil
	}
	k = &requestKind{ok: t.attrSets.get(t, metricKey{
		method: key.method, tool: key.tool, prompt: key.prompt, outcome: outcomeOK, version: key.version, transport: key.transport,
	})}
	if t.tracing {
		k.shape = newSpanShape(t, key)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if k0, ok := c.kinds[key]; ok {
		return k0
	}
	if c.kinds == nil {
		c.kinds = map[shapeKey]*requestKind{}
	}
	c.kinds[key] = k
	return k
}

// newSpanShape names the span of k: {method} {tool or prompt} for a tool
// or prompt the server has, the method alone otherwise, so that span
// names stay few whatever a client sends.
func newSpanShape(t *Telemetry, k shapeKey) *spanShape {
	sh := &spanShape{name: k.method}
	attrs := make([]attribute.KeyValue, 0, 6)
	attrs = append(attrs, keyMethodName.String(k.method))
	switch {
	case k.tool != "":
		attrs = append(attrs, keyToolName.String(k.tool), keyOperationName.String("execute_tool"))
		if k.method == "tools/call" && t.tools[k.tool] {
			sh.name = "tools/call " + k.tool
		}
	case k.prompt != "":
		attrs = append(attrs, keyPromptName.String(k.prompt))
		if k.method == "prompts/get" && t.prompts[k.prompt] {
			sh.name = "prompts/get " + k.prompt
		}
	}
	if k.version != "" {
		attrs = append(attrs, keyProtocolVersion.String(k.version))
	}
	attrs = append(attrs, keyTransport.String(k.transport))
	if k.transport == "tcp" {
		attrs = append(attrs, keyProtocolName.String("http"))
	}
	sh.attrs = attrs
	if rt := t.reqTracer; rt != nil && (rt.limits.AttributeCountLimit < 0 || len(attrs) <= rt.limits.AttributeCountLimit) {
		for i, a := range attrs {
			attrs[i] = truncateValue(a, rt.limits.AttributeValueLengthLimit)
			sh.enc = appendKeyValue(sh.enc, fSpanAttributes, attrs[i])
		}
	}
	return sh
}

// Sending is sending middleware for a go-sdk server: each request the
// server sends the client during a call (elicitation, sampling, roots)
// gets a client span under the call's span, whose context travels in the
// request's _meta, and its duration is recorded.
func (t *Telemetry) Sending(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "elicitation/create", "sampling/createMessage", "roots/list":
		default:
			return next(ctx, method, req)
		}
		start := time.Now()
		var span trace.Span
		if t.tracing {
			attrs := []attribute.KeyValue{keyMethodName.String(method)}
			if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil && ss.ID() != "" {
				attrs = append(attrs, keySessionID.String(ss.ID()))
			}
			ctx, span = t.tracer.Start(ctx, method, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
			if p := req.GetParams(); p != nil && !isNilParams(p) {
				m := make(map[string]any, len(p.GetMeta())+2)
				for k, v := range p.GetMeta() {
					m[k] = v
				}
				t.propagator.Inject(ctx, metaCarrier(m))
				p.SetMeta(m)
			}
		}
		res, err := next(ctx, method, req)
		_, errType, errMsg := classify(res, err)
		attrs := []attribute.KeyValue{keyMethodName.String(method)}
		if errType != "" {
			attrs = append(attrs, keyErrorType.String(errType))
		}
		t.clientDuration.Record(ctx, time.Since(start).Seconds(), metric.WithAttributes(attrs...))
		if span != nil {
			if errType != "" {
				span.SetAttributes(keyErrorType.String(errType))
				span.SetStatus(codes.Error, errMsg)
			}
			span.End()
		}
		return res, err
	}
}

// inputRequired marks the span of a 2026-07-28 call that ends asking the
// client questions (its result is input_required; the client answers by
// calling again): an event naming each question's method.
func inputRequired(span trace.Span, reqs mcp.InputRequestMap) {
	methods := make([]string, 0, len(reqs))
	for _, r := range reqs {
		switch r.(type) {
		case *mcp.ElicitParams:
			methods = append(methods, "elicitation/create")
		case *mcp.CreateMessageParams, *mcp.CreateMessageWithToolsParams:
			methods = append(methods, "sampling/createMessage")
		case *mcp.ListRootsParams:
			methods = append(methods, "roots/list")
		default:
			methods = append(methods, other)
		}
	}
	slices.Sort(methods)
	span.AddEvent("input_required", trace.WithAttributes(attribute.StringSlice("mcp.input_requests", methods)))
}

// classify names a request's outcome, and for a failure its error.type
// (the JSON-RPC error code, tool_error or cancelled) and message.
func classify(res mcp.Result, err error) (outcome, errType, msg string) {
	switch {
	case err != nil:
		if errors.Is(err, context.Canceled) {
			return outcomeCancelled, "cancelled", err.Error()
		}
		code := int64(jsonrpc.CodeInternalError)
		var we *jsonrpc.Error
		if errors.As(err, &we) {
			code = we.Code
			return outcomeError, strconv.FormatInt(code, 10), we.Message
		}
		return outcomeError, strconv.FormatInt(code, 10), err.Error()
	default:
		if r, ok := res.(*mcp.CallToolResult); ok && r != nil && r.IsError {
			return outcomeToolError, "tool_error", toolErrorText(r)
		}
	}
	return outcomeOK, "", ""
}

// toolErrorText is the first text of an isError result, for the span's
// status description.
func toolErrorText(r *mcp.CallToolResult) string {
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok && tc != nil {
			const max = 200
			if len(tc.Text) > max {
				return tc.Text[:max]
			}
			return tc.Text
		}
	}
	return "tool_error"
}

// resultSize is the size in bytes of the text and structured content of a
// tool result, a resource read or a prompt, and whether res is one.
func resultSize(res mcp.Result) (int64, bool) {
	var n int
	switch r := res.(type) {
	case *mcp.CallToolResult:
		if r == nil {
			return 0, false
		}
		n = contentSize(r.Content)
		switch sc := r.StructuredContent.(type) {
		case json.RawMessage:
			n += len(sc)
		case []byte:
			n += len(sc)
		}
	case *mcp.ReadResourceResult:
		if r == nil {
			return 0, false
		}
		for _, c := range r.Contents {
			if c != nil {
				n += len(c.Text) + len(c.Blob)
			}
		}
	case *mcp.GetPromptResult:
		if r == nil {
			return 0, false
		}
		for _, m := range r.Messages {
			if m != nil {
				n += contentSize([]mcp.Content{m.Content})
			}
		}
	default:
		return 0, false
	}
	return int64(n), true
}

func contentSize(cs []mcp.Content) int {
	n := 0
	for _, c := range cs {
		switch x := c.(type) {
		case *mcp.TextContent:
			if x != nil {
				n += len(x.Text)
			}
		case *mcp.ImageContent:
			if x != nil {
				n += len(x.Data)
			}
		case *mcp.AudioContent:
			if x != nil {
				n += len(x.Data)
			}
		case *mcp.EmbeddedResource:
			if x != nil && x.Resource != nil {
				n += len(x.Resource.Text) + len(x.Resource.Blob)
			}
		}
	}
	return n
}

// isNilParams reports whether p is a typed nil (a request without
// params), whose GetMeta would panic.
func isNilParams(p mcp.Params) bool {
	switch x := p.(type) {
	case *mcp.CallToolParamsRaw:
		return x == nil
	case *mcp.ReadResourceParams:
		return x == nil
	case *mcp.ListToolsParams:
		return x == nil
	}
	v := reflect.ValueOf(p)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// metaCarrier reads and writes propagation keys in a _meta object.
type metaCarrier map[string]any

func (m metaCarrier) Get(key string) string {
	s, _ := m[key].(string)
	return s
}

func (m metaCarrier) Set(key, value string) { m[key] = value }

func (m metaCarrier) Keys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

// metricKey is what the metrics of one request are grouped by.
type metricKey struct {
	method, tool, prompt, outcome, errType, version, transport string
}

// attrCache holds the attribute set of every metricKey seen, and its
// series of the request histograms when they are recorded here
// (reqmetrics.go), so that a request's metrics cost a map lookup rather
// than a new set. Its keys are bounded: names outside the known ones are
// recorded as _OTHER.
type attrCache struct {
	mu   sync.RWMutex
	sets map[metricKey]metricSet
}

// metricSet is the attribute set of a request's metrics, and its series
// (nil when the SDK's instruments record).
type metricSet struct {
	set    attribute.Set
	series *requestSeries
}

func (c *attrCache) get(t *Telemetry, k metricKey) metricSet {
	if !knownMethods[k.method] {
		k.method = other
	}
	if k.tool != "" && !t.tools[k.tool] {
		k.tool = other
	}
	if k.prompt != "" && !t.prompts[k.prompt] {
		k.prompt = other
	}
	if k.version != "" && !wire.Supported(k.version) {
		k.version = other
	}
	c.mu.RLock()
	s, ok := c.sets[k]
	c.mu.RUnlock()
	if ok {
		return s
	}
	attrs := []attribute.KeyValue{keyMethodName.String(k.method), keyOutcome.String(k.outcome), keyTransport.String(k.transport)}
	if k.tool != "" {
		attrs = append(attrs, keyToolName.String(k.tool), keyOperationName.String("execute_tool"))
	}
	if k.prompt != "" {
		attrs = append(attrs, keyPromptName.String(k.prompt))
	}
	if k.errType != "" {
		attrs = append(attrs, keyErrorType.String(k.errType))
	}
	if k.version != "" {
		attrs = append(attrs, keyProtocolVersion.String(k.version))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.sets[k]; ok {
		return s // made meanwhile: one series per set
	}
	s = metricSet{set: attribute.NewSet(attrs...)}
	if t.reqMetrics != nil {
		s.series = t.reqMetrics.newSeries(s.set)
	}
	if c.sets == nil {
		c.sets = map[metricKey]metricSet{}
	}
	c.sets[k] = s
	return s
}
