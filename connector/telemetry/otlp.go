package telemetry

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// The OTLP/HTTP exporters are mcpgen's own rather than the
// OpenTelemetry Go exporters (otlptracehttp, otlpmetrichttp): those import
// the OTLP collector packages, which hold the gRPC service stubs and so
// link gRPC into every connector (about 5 MB); the request messages they
// need are one repeated field around the data messages, encoded here.
// See docs/decisions.md.

// otlpClient posts OTLP export requests (protobuf over HTTP) for one
// signal, configured by the standard OTEL_EXPORTER_OTLP_* variables.
type otlpClient struct {
	url     string
	headers http.Header
	gzip    bool
	timeout time.Duration
	client  *http.Client
}

// newOTLPClient reads the settings of signal ("traces" or "metrics"): the
// signal's own variable (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ...) wins
// over the general one.
func newOTLPClient(get func(string) string, signal string) (*otlpClient, error) {
	sig := "OTEL_EXPORTER_OTLP_" + strings.ToUpper(signal) + "_"
	setting := func(name string) (string, string) {
		if v := get(sig + name); v != "" {
			return v, sig + name
		}
		return get("OTEL_EXPORTER_OTLP_" + name), "OTEL_EXPORTER_OTLP_" + name
	}
	c := &otlpClient{headers: http.Header{}, timeout: 10 * time.Second}
	if v := get(sig + "ENDPOINT"); v != "" {
		c.url = v // used as it is
	} else {
		base := get("OTEL_EXPORTER_OTLP_ENDPOINT")
		if base == "" {
			base = "http://localhost:4318"
		}
		c.url = strings.TrimRight(base, "/") + "/v1/" + signal
	}
	if u, err := url.Parse(c.url); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New(errEndpoint(c.url))
	}
	if v, name := setting("HEADERS"); v != "" {
		for _, kv := range strings.Split(v, ",") {
			k, val, ok := strings.Cut(kv, "=")
			k = strings.TrimSpace(k)
			if !ok || k == "" {
				return nil, errors.New(errHeaders(name, kv))
			}
			if dec, err := url.PathUnescape(strings.TrimSpace(val)); err == nil {
				val = dec
			}
			c.headers.Set(k, val)
		}
	}
	if v, name := setting("TIMEOUT"); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || ms <= 0 {
			return nil, errors.New(errTimeout(name, v))
		}
		c.timeout = time.Duration(ms) * time.Millisecond
	}
	switch v, name := setting("COMPRESSION"); v {
	case "", "none":
	case "gzip":
		c.gzip = true
	default:
		return nil, errors.New(errCompression(name, v))
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if v, name := setting("CERTIFICATE"); v != "" {
		pem, err := os.ReadFile(v)
		if err != nil {
			return nil, errors.New(errCertificate(name, err))
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, errors.New(errNoPEM(name, v))
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool}
	}
	c.client = &http.Client{Transport: tr}
	return c, nil
}

// post sends one export request. A 429 or 5xx answer is tried again,
// twice at most, while ctx and the timeout allow.
func (c *otlpClient) post(ctx context.Context, body []byte) error {
	return c.send(ctx, [][]byte{body}, nil)
}

// postBuffer is post of buf's bytes, and gives buf back once net/http is
// done with it.
func (c *otlpClient) postBuffer(ctx context.Context, buf *exportBuffer) error {
	defer buf.release()
	return c.send(ctx, [][]byte{buf.b}, buf)
}

// postParts is post of the concatenation of parts, without making it. It
// reports whether net/http is done with parts (it closed every body it
// was given), after which their memory may be used again; if it is not,
// release (if not nil) is called when it is: net/http closes a request's
// body, if not before Do returns then after.
func (c *otlpClient) postParts(ctx context.Context, release func(), parts ...[]byte) (done bool, err error) {
	var open bodies
	err = c.send(ctx, parts, &open)
	return open.giveUp(release), err
}

// bodies counts the request bodies made of one set of parts that
// net/http has not closed yet.
type bodies struct {
	mu      sync.Mutex
	open    int
	gone    bool   // the sender gave the parts up while bodies were open
	release func() // then called when the last is closed
}

func (o *bodies) opened() {
	o.mu.Lock()
	o.open++
	o.mu.Unlock()
}

func (o *bodies) closed() {
	o.mu.Lock()
	o.open--
	var release func()
	if o.open == 0 && o.gone {
		release, o.release = o.release, nil
	}
	o.mu.Unlock()
	if release != nil {
		release()
	}
}

// giveUp reports whether every body is closed; if one is not, release
// is called when the last one is.
func (o *bodies) giveUp(release func()) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.open == 0 {
		return true
	}
	o.gone, o.release = true, release
	return false
}

// send posts parts, one after the other, as one request's body. buf, an
// *exportBuffer or a *bodies, learns of every body net/http closes: the
// buffer is given back, the count of bodies still open falls.
func (c *otlpClient) send(ctx context.Context, parts [][]byte, buf any) error {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	size := 0
	for _, p := range parts {
		size += len(p)
	}
	if c.gzip {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		for _, p := range parts {
			zw.Write(p)
		}
		zw.Close()
		parts, buf, size = [][]byte{b.Bytes()}, nil, b.Len()
	}
	wait := 500 * time.Millisecond
	for attempt := 0; ; attempt++ {
		newBody := func() (io.ReadCloser, error) {
			switch x := buf.(type) {
			case *exportBuffer:
				return newBufferReader(x), nil
			case *bodies:
				return newPartsBody(parts, x), nil
			}
			return newPartsBody(parts, nil), nil
		}
		rd, _ := newBody()
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, rd)
		if err != nil {
			rd.Close()
			return err
		}
		req.ContentLength, req.GetBody = int64(size), newBody // a redirect sends it again
		for k, v := range c.headers {
			req.Header[k] = v
		}
		req.Header.Set("Content-Type", "application/x-protobuf")
		if c.gzip {
			req.Header.Set("Content-Encoding", "gzip")
		}
		resp, err := c.client.Do(req)
		if err != nil {
			return fmt.Errorf("OTLP export to %s: %w", c.url, err)
		}
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		resp.Body.Close()
		if resp.StatusCode/100 == 2 {
			return nil
		}
		retry := resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusBadGateway ||
			resp.StatusCode == http.StatusServiceUnavailable || resp.StatusCode == http.StatusGatewayTimeout
		if !retry || attempt == 2 {
			return fmt.Errorf("OTLP export to %s: %s %s", c.url, resp.Status, bytes.TrimSpace(msg))
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("OTLP export to %s: %s, then %w", c.url, resp.Status, ctx.Err())
		case <-time.After(wait):
		}
		wait *= 2
	}
}

// partsBody reads parts one after the other as a request's body; open,
// if not nil, counts the bodies not closed yet.
type partsBody struct {
	parts  [][]byte
	open   *bodies
	closed atomic.Bool
}

func newPartsBody(parts [][]byte, open *bodies) *partsBody {
	if open != nil {
		open.opened()
	}
	return &partsBody{parts: append([][]byte(nil), parts...), open: open}
}

func (b *partsBody) Read(p []byte) (int, error) {
	for len(b.parts) > 0 && len(b.parts[0]) == 0 {
		b.parts = b.parts[1:]
	}
	if len(b.parts) == 0 {
		return 0, io.EOF
	}
	n := copy(p, b.parts[0])
	b.parts[0] = b.parts[0][n:]
	return n, nil
}

// WriteTo writes what is left in as many writes as parts: net/http's
// io.Copy of the body then passes the spans, the largest part, in one.
func (b *partsBody) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for len(b.parts) > 0 {
		n, err := w.Write(b.parts[0])
		total += int64(n)
		b.parts[0] = b.parts[0][n:]
		if err != nil {
			return total, err
		}
		b.parts = b.parts[1:]
	}
	return total, nil
}

func (b *partsBody) Close() error {
	if b.closed.CompareAndSwap(false, true) && b.open != nil {
		b.open.closed()
	}
	return nil
}

// exportRequest encodes an Export*ServiceRequest: its only field (1) is
// the repeated resource data.
func exportRequest[M proto.Message](items []M) ([]byte, error) {
	var b []byte
	for _, it := range items {
		enc, err := proto.Marshal(it)
		if err != nil {
			return nil, err
		}
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendBytes(b, enc)
	}
	return b, nil
}

// metricExporter is an sdkmetric.Exporter sending OTLP/HTTP with
// cumulative temporality, the SDK's default aggregations.
type metricExporter struct{ c *otlpClient }

func (e *metricExporter) Temporality(k sdkmetric.InstrumentKind) metricdata.Temporality {
	return sdkmetric.DefaultTemporalitySelector(k)
}

func (e *metricExporter) Aggregation(k sdkmetric.InstrumentKind) sdkmetric.Aggregation {
	return sdkmetric.DefaultAggregationSelector(k)
}

func (e *metricExporter) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	out := &metricpb.ResourceMetrics{Resource: resourcePB(rm.Resource)}
	if rm.Resource != nil {
		out.SchemaUrl = rm.Resource.SchemaURL()
	}
	var unsupported []string
	for _, sm := range rm.ScopeMetrics {
		ps := &metricpb.ScopeMetrics{Scope: scopePB(sm.Scope), SchemaUrl: sm.Scope.SchemaURL}
		for _, m := range sm.Metrics {
			pm := &metricpb.Metric{Name: m.Name, Description: m.Description, Unit: m.Unit}
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				pm.Data = sumPB(d)
			case metricdata.Sum[float64]:
				pm.Data = sumPB(d)
			case metricdata.Gauge[int64]:
				pm.Data = &metricpb.Metric_Gauge{Gauge: &metricpb.Gauge{DataPoints: numberPoints(d.DataPoints)}}
			case metricdata.Gauge[float64]:
				pm.Data = &metricpb.Metric_Gauge{Gauge: &metricpb.Gauge{DataPoints: numberPoints(d.DataPoints)}}
			case metricdata.Histogram[int64]:
				pm.Data = histogramPB(d)
			case metricdata.Histogram[float64]:
				pm.Data = histogramPB(d)
			default:
				unsupported = append(unsupported, fmt.Sprintf("%s (%T)", m.Name, m.Data))
				continue
			}
			ps.Metrics = append(ps.Metrics, pm)
		}
		out.ScopeMetrics = append(out.ScopeMetrics, ps)
	}
	body, err := exportRequest([]*metricpb.ResourceMetrics{out})
	if err != nil {
		return err
	}
	err = e.c.post(ctx, body)
	if err == nil && len(unsupported) > 0 {
		err = fmt.Errorf("OTLP export: left out metrics of a kind mcpgen does not export: %s", strings.Join(unsupported, ", "))
	}
	return err
}

func (e *metricExporter) ForceFlush(context.Context) error { return nil }
func (e *metricExporter) Shutdown(context.Context) error   { return nil }

func temporalityPB(t metricdata.Temporality) metricpb.AggregationTemporality {
	if t == metricdata.DeltaTemporality {
		return metricpb.AggregationTemporality_AGGREGATION_TEMPORALITY_DELTA
	}
	return metricpb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE
}

func sumPB[N int64 | float64](d metricdata.Sum[N]) *metricpb.Metric_Sum {
	return &metricpb.Metric_Sum{Sum: &metricpb.Sum{
		DataPoints: numberPoints(d.DataPoints), AggregationTemporality: temporalityPB(d.Temporality), IsMonotonic: d.IsMonotonic,
	}}
}

func numberPoints[N int64 | float64](dps []metricdata.DataPoint[N]) []*metricpb.NumberDataPoint {
	out := make([]*metricpb.NumberDataPoint, 0, len(dps))
	for _, dp := range dps {
		p := &metricpb.NumberDataPoint{
			Attributes: attrsPB(dp.Attributes.ToSlice()), StartTimeUnixNano: unixNano(dp.StartTime), TimeUnixNano: unixNano(dp.Time),
		}
		switch v := any(dp.Value).(type) {
		case int64:
			p.Value = &metricpb.NumberDataPoint_AsInt{AsInt: v}
		case float64:
			p.Value = &metricpb.NumberDataPoint_AsDouble{AsDouble: v}
		}
		out = append(out, p)
	}
	return out
}

func histogramPB[N int64 | float64](d metricdata.Histogram[N]) *metricpb.Metric_Histogram {
	h := &metricpb.Histogram{AggregationTemporality: temporalityPB(d.Temporality)}
	for _, dp := range d.DataPoints {
		sum := float64(dp.Sum)
		p := &metricpb.HistogramDataPoint{
			Attributes: attrsPB(dp.Attributes.ToSlice()), StartTimeUnixNano: unixNano(dp.StartTime), TimeUnixNano: unixNano(dp.Time),
			Count: dp.Count, Sum: &sum, BucketCounts: dp.BucketCounts, ExplicitBounds: dp.Bounds,
		}
		if v, ok := dp.Min.Value(); ok {
			f := float64(v)
			p.Min = &f
		}
		if v, ok := dp.Max.Value(); ok {
			f := float64(v)
			p.Max = &f
		}
		h.DataPoints = append(h.DataPoints, p)
	}
	return &metricpb.Metric_Histogram{Histogram: h}
}

func resourcePB(r *resource.Resource) *resourcepb.Resource {
	if r == nil {
		return &resourcepb.Resource{}
	}
	return &resourcepb.Resource{Attributes: attrsPB(r.Attributes())}
}

func scopePB(s instrumentation.Scope) *commonpb.InstrumentationScope {
	return &commonpb.InstrumentationScope{Name: s.Name, Version: s.Version, Attributes: attrsPB(s.Attributes.ToSlice())}
}

func attrsPB(kvs []attribute.KeyValue) []*commonpb.KeyValue {
	if len(kvs) == 0 {
		return nil
	}
	out := make([]*commonpb.KeyValue, 0, len(kvs))
	for _, kv := range kvs {
		out = append(out, &commonpb.KeyValue{Key: string(kv.Key), Value: valuePB(kv.Value)})
	}
	return out
}

func valuePB(v attribute.Value) *commonpb.AnyValue {
	switch v.Type() {
	case attribute.BOOL:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{BoolValue: v.AsBool()}}
	case attribute.INT64:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: v.AsInt64()}}
	case attribute.FLOAT64:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: v.AsFloat64()}}
	case attribute.STRING:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v.AsString()}}
	case attribute.BOOLSLICE:
		return arrayPB(v.AsBoolSlice(), func(b bool) attribute.Value { return attribute.BoolValue(b) })
	case attribute.INT64SLICE:
		return arrayPB(v.AsInt64Slice(), attribute.Int64Value)
	case attribute.FLOAT64SLICE:
		return arrayPB(v.AsFloat64Slice(), attribute.Float64Value)
	case attribute.STRINGSLICE:
		return arrayPB(v.AsStringSlice(), attribute.StringValue)
	}
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v.Emit()}}
}

func arrayPB[T any](xs []T, val func(T) attribute.Value) *commonpb.AnyValue {
	arr := &commonpb.ArrayValue{}
	for _, x := range xs {
		arr.Values = append(arr.Values, valuePB(val(x)))
	}
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_ArrayValue{ArrayValue: arr}}
}

func unixNano(t time.Time) uint64 {
	if t.IsZero() {
		return 0
	}
	return uint64(t.UnixNano())
}
