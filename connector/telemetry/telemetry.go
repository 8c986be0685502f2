// Package telemetry turns a connector's JSON-RPC requests into
// OpenTelemetry spans and metrics, named as the OpenTelemetry semantic
// conventions for MCP name them, and sets up where they go: OTLP, chosen
// by the standard OTEL_* environment variables, and Prometheus text at
// /metrics.
//
// A connector without telemetry configured has no *Telemetry at all: the
// runtime then adds no middleware and every hook is a method on a nil
// pointer that returns at once, so a call costs what it cost before.
package telemetry

import (
	"context"
	"net/http"
	"net/textproto"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

var (
	noopTracer = tracenoop.NewTracerProvider().Tracer(ScopeName)
	noopMeter  = metricnoop.NewMeterProvider()
)

// ScopeName is the instrumentation scope of every span and metric the
// runtime emits.
const ScopeName = "github.com/mcpgen/mcpgen/connector"

// Providers are where a Telemetry sends its spans and metrics. A nil
// provider sends nothing of its kind.
type Providers struct {
	Tracer trace.TracerProvider
	Meter  metric.MeterProvider
	// Propagator reads the caller's trace context from a request's _meta
	// and HTTP header, and writes it into the requests the server sends
	// the client. Nil means W3C Trace Context and Baggage.
	Propagator propagation.TextMapPropagator
}

// Telemetry records the spans and metrics of one server. A nil
// *Telemetry records nothing, and all its methods may be called on it.
type Telemetry struct {
	tracer  trace.Tracer
	tracing bool // spans are recorded (a real tracer provider)
	// builtinSampler says the tracer provider's sampler is one of the
	// SDK's (Setup's, from OTEL_TRACES_SAMPLER), none of which reads a
	// span's attributes, so they may be set after the start.
	builtinSampler bool
	// reqTracer starts the request spans in place of tracer when Setup
	// exports spans with its own exporter (see reqspan.go).
	reqTracer    *requestTracer
	propagator   propagation.TextMapPropagator
	headerFields []string // the propagator's fields as HTTP header names

	duration       metric.Float64Histogram   // mcp.server.operation.duration (nil with reqMetrics)
	resultSize     metric.Int64Histogram     // mcpgen.server.result.size (nil with reqMetrics)
	reqMetrics     *requestMetrics           // records those two when Setup set telemetry up
	rateLimited    metric.Int64Counter       // mcpgen.server.rate_limited
	clientDuration metric.Float64Histogram   // mcp.client.operation.duration
	streams        metric.Int64UpDownCounter // mcpgen.server.streams
	tasks          metric.Int64UpDownCounter // mcpgen.server.tasks
	taskDuration   metric.Float64Histogram   // mcpgen.server.task.duration
	storeDuration  metric.Float64Histogram   // mcpgen.store.operation.duration
	meter          metric.Meter
	attrSets       attrCache
	kinds          kindCache
	tools, prompts map[string]bool // SetNames

	// set by Setup
	metricsHandler http.Handler
	shutdown       []func(context.Context) error
}

// durationBounds are the buckets of the duration histograms, in seconds:
// the semantic conventions' advice for MCP, with finer buckets below 10 ms
// where most tool calls of a connector end.
var durationBounds = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}

// storeBounds are the buckets of the store duration histogram, in
// seconds: those of requests, with two below them for a nearby Redis.
var storeBounds = append([]float64{0.0001, 0.00025}, durationBounds...)

// sizeBounds are the buckets of the result size histogram, in bytes.
var sizeBounds = []float64{64, 256, 1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20}

// The request histograms' names and descriptions. The duration's count
// is the number of requests, by method, tool and outcome (mcpgen.outcome:
// ok, tool_error, error, cancelled).
const (
	durationName        = "mcp.server.operation.duration"
	durationDescription = "MCP request duration as observed on the receiver from the time it was received until the result or ack is sent."
	sizeName            = "mcpgen.server.result.size"
	sizeDescription     = "Size of the text and structured content of tool results, resources read and prompts got."
)

// New returns a Telemetry that records into p. It fails only when an
// instrument cannot be created (a provider's error).
func New(p Providers) (*Telemetry, error) { return newTelemetry(p, nil) }

// newTelemetry is New; with rm, the request histograms are recorded there
// rather than through p's meter, whose readers must then have rm as a
// producer (reqmetrics.go).
func newTelemetry(p Providers, rm *requestMetrics) (*Telemetry, error) {
	t := &Telemetry{propagator: p.Propagator, reqMetrics: rm}
	if t.propagator == nil {
		t.propagator = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	}
	for _, f := range t.propagator.Fields() {
		t.headerFields = append(t.headerFields, textproto.CanonicalMIMEHeaderKey(f))
	}
	if p.Tracer != nil {
		t.tracer = p.Tracer.Tracer(ScopeName)
		t.tracing = true
	} else {
		t.tracer = noopTracer
	}
	mp := p.Meter
	if mp == nil {
		mp = noopMeter
	}
	m := mp.Meter(ScopeName)
	t.meter = m
	var err error
	if rm == nil {
		if t.duration, err = m.Float64Histogram(durationName,
			metric.WithUnit("s"),
			metric.WithDescription(durationDescription),
			metric.WithExplicitBucketBoundaries(durationBounds...)); err != nil {
			return nil, err
		}
		if t.resultSize, err = m.Int64Histogram(sizeName,
			metric.WithUnit("By"),
			metric.WithDescription(sizeDescription),
			metric.WithExplicitBucketBoundaries(sizeBounds...)); err != nil {
			return nil, err
		}
	}
	if t.rateLimited, err = m.Int64Counter("mcpgen.server.rate_limited",
		metric.WithUnit("{call}"),
		metric.WithDescription("Tool calls refused by a rate limit.")); err != nil {
		return nil, err
	}
	if t.clientDuration, err = m.Float64Histogram("mcp.client.operation.duration",
		metric.WithUnit("s"),
		metric.WithDescription("Duration of the requests the server sends the client (elicitation, sampling, roots), until the answer is received."),
		metric.WithExplicitBucketBoundaries(durationBounds...)); err != nil {
		return nil, err
	}
	if t.streams, err = m.Int64UpDownCounter("mcpgen.server.streams",
		metric.WithUnit("{stream}"),
		metric.WithDescription("Open standalone event streams (HTTP GET, subscriptions/listen).")); err != nil {
		return nil, err
	}
	t.streams.Add(context.Background(), 0) // a series from the start: dashboards show 0, not "no data"
	if t.tasks, err = m.Int64UpDownCounter("mcpgen.server.tasks",
		metric.WithUnit("{task}"),
		metric.WithDescription("Tasks running in this process, by tool.")); err != nil {
		return nil, err
	}
	if t.taskDuration, err = m.Float64Histogram("mcpgen.server.task.duration",
		metric.WithUnit("s"),
		// Its count is the number of tasks ended, by tool and final
		// status (mcpgen.task.status).
		metric.WithDescription("Duration of tasks run in this process, from their creation until their final status."),
		metric.WithExplicitBucketBoundaries(taskBounds...)); err != nil {
		return nil, err
	}
	if t.storeDuration, err = m.Float64Histogram("mcpgen.store.operation.duration",
		metric.WithUnit("s"),
		metric.WithDescription("Duration of the operations on a networked state store (--store), one round trip each."),
		metric.WithExplicitBucketBoundaries(storeBounds...)); err != nil {
		return nil, err
	}
	return t, nil
}

// Tracing reports whether t records spans.
func (t *Telemetry) Tracing() bool { return t != nil && t.tracing }

// ObserveSessions reports count's answer as the number of open sessions
// (mcpgen.server.sessions) each time the metrics are collected.
func (t *Telemetry) ObserveSessions(count func() int64) error {
	if t == nil {
		return nil
	}
	_, err := t.meter.Int64ObservableUpDownCounter("mcpgen.server.sessions",
		metric.WithUnit("{session}"),
		metric.WithDescription("Open MCP sessions (protocol versions before 2026-07-28)."),
		metric.WithInt64Callback(func(_ context.Context, o metric.Int64Observer) error {
			o.Observe(count())
			return nil
		}))
	return err
}

// StreamOpened counts a standalone event stream as open until the
// returned function is called.
func (t *Telemetry) StreamOpened(ctx context.Context) (closed func()) {
	if t == nil {
		return func() {}
	}
	t.streams.Add(ctx, 1)
	return func() { t.streams.Add(context.WithoutCancel(ctx), -1) }
}

// RateLimited counts a call to tool refused by a rate limit, and marks
// the call's span.
func (t *Telemetry) RateLimited(ctx context.Context, tool string) {
	if t == nil {
		return
	}
	t.rateLimited.Add(ctx, 1, metric.WithAttributeSet(attribute.NewSet(keyToolName.String(tool))))
	trace.SpanFromContext(ctx).AddEvent("rate_limited")
}

// MetricsHandler returns the handler of Prometheus text (GET /metrics),
// or nil when Setup was not asked for one.
func (t *Telemetry) MetricsHandler() http.Handler {
	if t == nil {
		return nil
	}
	return t.metricsHandler
}

// Shutdown flushes what is buffered to the exporters and stops them.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	var first error
	for _, f := range t.shutdown {
		if err := f(ctx); err != nil && first == nil {
			first = err
		}
	}
	return first
}
