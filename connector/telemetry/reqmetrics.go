package telemetry

import (
	"context"
	"slices"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// The two histograms every request records, mcp.server.operation.duration
// and mcpgen.server.result.size, are aggregated here when Setup sets
// telemetry up (the connector binary's way), and handed to its readers
// (OTLP, Prometheus) as a metric Producer, rather than recorded through
// the SDK's instruments: the SDK normalizes a measurement's attribute set
// on every Record, which made the two records about 2 % of a loaded
// server's CPU with every call traced. A series here is found with the
// request's attribute set (attrCache) and recorded under its own mutex.
// What a reader sees is what the SDK's instruments would give it: the
// same names, units, descriptions, buckets, cumulative counts, sum, min
// and max. With exemplars asked for (OTEL_METRICS_EXEMPLAR_FILTER), or
// with providers of the caller's (New), the SDK's instruments record.

// requestMetrics holds the request histograms' series.
type requestMetrics struct {
	start time.Time // the start of every series: counts are cumulative

	mu     sync.Mutex
	series []*requestSeries
}

func newRequestMetrics() *requestMetrics { return &requestMetrics{start: time.Now()} }

// requestSeries is the two histograms of one attribute set.
type requestSeries struct {
	attrs attribute.Set

	mu       sync.Mutex
	duration histogram[float64]
	size     histogram[int64]
}

// histogram is an explicit-bucket histogram's state: counts[i] counts the
// values v with bounds[i-1] < v <= bounds[i], the last one those above
// every bound, as OpenTelemetry's explicit buckets do.
type histogram[N int64 | float64] struct {
	counts   []uint64
	count    uint64
	sum      N
	min, max N
}

func (h *histogram[N]) record(bounds []float64, v N) {
	if h.counts == nil {
		h.counts = make([]uint64, len(bounds)+1)
	}
	i, _ := slices.BinarySearch(bounds, float64(v)) // the first bound >= v
	h.counts[i]++
	if h.count == 0 || v < h.min {
		h.min = v
	}
	if h.count == 0 || v > h.max {
		h.max = v
	}
	h.count++
	h.sum += v
}

// newSeries returns a new series of attrs, known to the producer.
func (m *requestMetrics) newSeries(attrs attribute.Set) *requestSeries {
	s := &requestSeries{attrs: attrs}
	m.mu.Lock()
	m.series = append(m.series, s)
	m.mu.Unlock()
	return s
}

// record records a request that took d seconds and, when sized, whose
// result had size bytes.
func (s *requestSeries) record(d float64, size int64, sized bool) {
	s.mu.Lock()
	s.duration.record(durationBounds, d)
	if sized {
		s.size.record(sizeBounds, size)
	}
	s.mu.Unlock()
}

// Produce is the sdkmetric.Producer of the request histograms: their
// cumulative state now. A histogram without a measurement yet is left
// out, as the SDK leaves out an instrument nothing was recorded on.
func (m *requestMetrics) Produce(context.Context) ([]metricdata.ScopeMetrics, error) {
	m.mu.Lock()
	series := slices.Clone(m.series)
	m.mu.Unlock()
	now := time.Now()
	var (
		durations []metricdata.HistogramDataPoint[float64]
		sizes     []metricdata.HistogramDataPoint[int64]
	)
	for _, s := range series {
		s.mu.Lock()
		if s.duration.count > 0 {
			durations = append(durations, dataPoint(s.attrs, m.start, now, durationBounds, &s.duration))
		}
		if s.size.count > 0 {
			sizes = append(sizes, dataPoint(s.attrs, m.start, now, sizeBounds, &s.size))
		}
		s.mu.Unlock()
	}
	var out []metricdata.Metrics
	if len(durations) > 0 {
		out = append(out, metricdata.Metrics{
			Name: durationName, Description: durationDescription, Unit: "s",
			Data: metricdata.Histogram[float64]{DataPoints: durations, Temporality: metricdata.CumulativeTemporality},
		})
	}
	if len(sizes) > 0 {
		out = append(out, metricdata.Metrics{
			Name: sizeName, Description: sizeDescription, Unit: "By",
			Data: metricdata.Histogram[int64]{DataPoints: sizes, Temporality: metricdata.CumulativeTemporality},
		})
	}
	if len(out) == 0 {
		return nil, nil
	}
	return []metricdata.ScopeMetrics{{Scope: instrumentation.Scope{Name: ScopeName}, Metrics: out}}, nil
}

// dataPoint is h's state as a data point; it copies what h goes on
// changing.
func dataPoint[N int64 | float64](attrs attribute.Set, start, now time.Time, bounds []float64, h *histogram[N]) metricdata.HistogramDataPoint[N] {
	return metricdata.HistogramDataPoint[N]{
		Attributes: attrs, StartTime: start, Time: now,
		Count: h.count, Bounds: slices.Clone(bounds), BucketCounts: slices.Clone(h.counts),
		Min: metricdata.NewExtrema(h.min), Max: metricdata.NewExtrema(h.max), Sum: h.sum,
	}
}
