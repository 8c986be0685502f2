package telemetry

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/exemplar"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Config says what Setup exports besides what the OTEL_* variables ask.
type Config struct {
	// ServiceName and ServiceVersion name the connector in what it
	// exports, unless OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES say
	// otherwise.
	ServiceName, ServiceVersion string
	// Prometheus asks for metrics in Prometheus text (MetricsHandler).
	Prometheus bool
	// LookupEnv reads the environment (os.LookupEnv when nil). The
	// sampler and the batching read theirs from the process's environment.
	LookupEnv func(string) (string, bool)
	// Logger gets the errors of exporting (a collector that cannot be
	// reached ...); slog.Default() when nil.
	Logger *slog.Logger
}

// Setup returns a Telemetry that exports what the environment and cfg
// ask for, or nil when they ask for nothing: OTLP over HTTP (protobuf)
// for traces when OTEL_TRACES_EXPORTER is "otlp", or is unset while
// OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is
// set, and likewise for metrics (OTEL_METRICS_EXPORTER,
// OTEL_EXPORTER_OTLP_METRICS_ENDPOINT); OTEL_SDK_DISABLED=true turns OTLP
// off. The exporters read OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT,
// _COMPRESSION and _CERTIFICATE (each also per signal); the sampler
// (OTEL_TRACES_SAMPLER), the batching (OTEL_BSP_*) and the export interval
// (OTEL_METRIC_EXPORT_INTERVAL) read their standard variables. Setup makes its providers and the W3C
// propagators OpenTelemetry's global ones, so that a handler's
// otel.Tracer(...) spans nest under the request's span.
func Setup(ctx context.Context, cfg Config) (*Telemetry, error) {
	env := cfg.LookupEnv
	if env == nil {
		env = os.LookupEnv
	}
	get := func(k string) string { v, _ := env(k); return strings.TrimSpace(v) }
	traces, err := exporterWanted(get, "OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
	if err != nil {
		return nil, err
	}
	metrics, err := exporterWanted(get, "OTEL_METRICS_EXPORTER", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL")
	if err != nil {
		return nil, err
	}
	if strings.EqualFold(get("OTEL_SDK_DISABLED"), "true") {
		traces, metrics = false, false
	}
	if !traces && !metrics && !cfg.Prometheus {
		return nil, nil
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.Default()
	}
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { logger.Warn("telemetry", "err", err) }))

	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", cfg.ServiceName), attribute.String("service.version", cfg.ServiceVersion)),
		resource.WithTelemetrySDK(),
		resource.WithFromEnv(), // OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES win
	)
	if err != nil && res == nil {
		return nil, errors.New(errResource(err))
	}
	var (
		p         = Providers{Propagator: propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})}
		shutdown  []func(context.Context) error
		handler   http.Handler
		reqTracer *requestTracer // nil without traces
	)
	if traces {
		c, err := newOTLPClient(get, "traces")
		if err != nil {
			return nil, err
		}
		exp := &spanExporter{c: c}
		sampler := samplerFromEnv()
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res), sdktrace.WithSampler(sampler))
		p.Tracer = tp
		// The resource the provider gives its spans, for the request
		// spans: collectors see one service.
		spanRes, _ := resource.Merge(resource.Environment(), res)
		reqTracer = newRequestTracer(tp, sampler, sdktrace.NewSpanLimits(),
			newSpanBatcher(exp, spanRes, instrumentation.Scope{Name: ScopeName}, batchSettingsFromEnv()))
		go reqTracer.batch.run()
		shutdown = append(shutdown, reqTracer.batch.shutdown, tp.Shutdown)
		otel.SetTracerProvider(tp)
	}
	// The request histograms are recorded by mcpgen (reqmetrics.go),
	// unless exemplars are asked for: only the SDK's instruments keep
	// them.
	_, exemplars := os.LookupEnv("OTEL_METRICS_EXEMPLAR_FILTER")
	var rm *requestMetrics
	if (metrics || cfg.Prometheus) && !exemplars {
		rm = newRequestMetrics()
	}
	var readers []sdkmetric.Option
	if metrics {
		c, err := newOTLPClient(get, "metrics")
		if err != nil {
			return nil, err
		}
		var ropts []sdkmetric.PeriodicReaderOption
		if rm != nil {
			ropts = append(ropts, sdkmetric.WithProducer(rm))
		}
		readers = append(readers, sdkmetric.WithReader(sdkmetric.NewPeriodicReader(&metricExporter{c}, ropts...)))
	}
	if cfg.Prometheus {
		reg := prometheus.NewRegistry()
		popts := []otelprom.Option{otelprom.WithRegisterer(reg)}
		if rm != nil {
			popts = append(popts, otelprom.WithProducer(rm))
		}
		exp, err := otelprom.New(popts...)
		if err != nil {
			return nil, errors.New(errPrometheus(err))
		}
		readers = append(readers, sdkmetric.WithReader(exp))
		handler = promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorLog: slogPrinter{logger}})
	}
	if len(readers) > 0 {
		opts := append(readers, sdkmetric.WithResource(res))
		if !exemplars {
			// Neither mcpgen's OTLP exporter nor /metrics (Prometheus
			// text, not OpenMetrics) sends exemplars, so the SDK's
			// default (keep one for each sampled span's measurements)
			// would be work thrown away on every traced call.
			opts = append(opts, sdkmetric.WithExemplarFilter(exemplar.AlwaysOffFilter))
		}
		mp := sdkmetric.NewMeterProvider(opts...)
		p.Meter = mp
		shutdown = append(shutdown, mp.Shutdown)
		otel.SetMeterProvider(mp)
	}
	otel.SetTextMapPropagator(p.Propagator)
	if p.Meter == nil {
		rm = nil // no readers: nothing to record
	}
	t, err := newTelemetry(p, rm)
	if err != nil {
		return nil, err
	}
	t.shutdown, t.metricsHandler = shutdown, handler
	t.builtinSampler = traces
	t.reqTracer = reqTracer
	return t, nil
}

// samplerFromEnv is the sampler OTEL_TRACES_SAMPLER and
// OTEL_TRACES_SAMPLER_ARG name in the process's environment, read as the
// SDK reads them (which also reports a name or ratio it cannot use): the
// tracer provider and the request spans share it.
func samplerFromEnv() sdktrace.Sampler {
	ratio := func() sdktrace.Sampler {
		arg := strings.TrimSpace(os.Getenv("OTEL_TRACES_SAMPLER_ARG"))
		if arg == "" {
			return sdktrace.TraceIDRatioBased(1)
		}
		v, err := strconv.ParseFloat(arg, 64)
		if err != nil || v < 0 || v > 1 {
			return sdktrace.TraceIDRatioBased(1)
		}
		return sdktrace.TraceIDRatioBased(v)
	}
	switch strings.ToLower(strings.TrimSpace(os.Getenv("OTEL_TRACES_SAMPLER"))) {
	case "always_on":
		return sdktrace.AlwaysSample()
	case "always_off":
		return sdktrace.NeverSample()
	case "traceidratio":
		return ratio()
	case "parentbased_always_off":
		return sdktrace.ParentBased(sdktrace.NeverSample())
	case "parentbased_traceidratio":
		return sdktrace.ParentBased(ratio())
	}
	return sdktrace.ParentBased(sdktrace.AlwaysSample()) // the default, and parentbased_always_on
}

// exporterWanted reports whether the variable kindVar (such as
// OTEL_TRACES_EXPORTER) asks for OTLP, or leaves it to whether an OTLP
// endpoint is set. It refuses what a connector cannot export.
func exporterWanted(get func(string) string, kindVar, endpointVar, protocolVar string) (bool, error) {
	want := false
	switch v := strings.ToLower(get(kindVar)); v {
	case "":
		want = get("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || get(endpointVar) != ""
	case "none":
		return false, nil
	case "otlp":
		want = true
	default:
		return false, errors.New(errExporterKind(kindVar, v))
	}
	if !want {
		return false, nil
	}
	proto := get(protocolVar)
	if proto == "" {
		proto = get("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	if proto != "" && proto != "http/protobuf" {
		return false, errors.New(errProtocol(protocolVar, proto))
	}
	return true, nil
}
