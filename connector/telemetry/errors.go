package telemetry

import (
	"fmt"
	"log/slog"
)

// Message templates of the package's errors. Setup's errors name the
// variable at fault and what it takes; a connector binary prints them
// after its name and exits with status 2.

func errExporterKind(variable, value string) string {
	return fmt.Sprintf("%s=%q: a connector exports \"otlp\" (OTLP over HTTP) or \"none\"; for Prometheus use --metrics-addr HOST:PORT", variable, value)
}

func errProtocol(variable, value string) string {
	return fmt.Sprintf("%s (or OTEL_EXPORTER_OTLP_PROTOCOL)=%q: a connector sends OTLP as \"http/protobuf\" only (the collector's port 4318); unset it or set it to http/protobuf", variable, value)
}

func errEndpoint(url string) string {
	return fmt.Sprintf("OTLP endpoint %q: want an http:// or https:// URL such as http://collector:4318 (OTEL_EXPORTER_OTLP_ENDPOINT)", url)
}

func errHeaders(variable, pair string) string {
	return fmt.Sprintf("%s: want key=value pairs separated by commas, got %q", variable, pair)
}

func errTimeout(variable, value string) string {
	return fmt.Sprintf("%s=%q: want milliseconds, such as 10000", variable, value)
}

func errCompression(variable, value string) string {
	return fmt.Sprintf("%s=%q: want gzip or none", variable, value)
}

func errCertificate(variable string, err error) string {
	return fmt.Sprintf("%s: %v", variable, err)
}

func errNoPEM(variable, path string) string {
	return fmt.Sprintf("%s: %s holds no PEM certificate", variable, path)
}

func errPrometheus(err error) string {
	return fmt.Sprintf("cannot set up the Prometheus exporter: %v", err)
}

func errResource(err error) string {
	return fmt.Sprintf("reading OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES: %v", err)
}

// slogPrinter logs the Prometheus handler's errors.
type slogPrinter struct{ l *slog.Logger }

func (p slogPrinter) Println(v ...any) {
	p.l.Warn("telemetry: serving /metrics", "err", fmt.Sprint(v...))
}

func errSpansDropped(n int) string {
	return fmt.Sprintf("%d request spans dropped: more ended than the collector took; raise OTEL_BSP_MAX_QUEUE_SIZE, or sample (OTEL_TRACES_SAMPLER)", n)
}
