package telemetry

import (
	"fmt"
	"log/slog"
)

// Message templates of the package's errors.

func errExporterKind(variable, value string) string {
	return fmt.Sprintf("%s=%q: a connector exports \"otlp\" (OTLP over HTTP) or \"none\"; for Prometheus use --metrics-addr HOST:PORT", variable, value)
}

func errProtocol(variable, value string) string {
	return fmt.Sprintf("%s (or OTEL_EXPORTER_OTLP_PROTOCOL)=%q: a connector sends OTLP as \"http/protobuf\" only (the collector's port 4318); unset it or set it to http/protobuf", variable, value)
}

func errExporter(what string, err error) string {
	return fmt.Sprintf("telemetry: cannot set up the %s exporter: %v (check the OTEL_EXPORTER_OTLP_* variables)", what, err)
}

func errResource(err error) string {
	return fmt.Sprintf("telemetry: reading OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES: %v", err)
}

// slogPrinter logs the Prometheus handler's errors.
type slogPrinter struct{ l *slog.Logger }

func (p slogPrinter) Println(v ...any) {
	p.l.Warn("telemetry: serving /metrics", "err", fmt.Sprint(v...))
}
