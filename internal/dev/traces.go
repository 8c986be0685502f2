package dev

import (
	"fmt"
	"net"
	"strings"

	"github.com/mcpgen/mcpgen/internal/devtrace"
)

// traceEnv returns the variables that have the connector export its traces
// over OTLP to the inspector listening at addr: only the traces whose
// caller sampled them (the inspector sends a sampled traceparent with each
// request; a host's requests stay untraced unless the host sends one), in
// batches sent every 100 ms so a trace shows soon after its answer. It
// carry token, which the inspector's collector wants. It
// returns none when env, the developer's own, configures OpenTelemetry:
// their collector then gets the traces, as in production.
func traceEnv(addr net.Addr, token string, env []string) []string {
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_TRACES_EXPORTER", "OTEL_TRACES_SAMPLER", "OTEL_SDK_DISABLED":
			if v != "" {
				return nil
			}
		}
	}
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return nil
	}
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return []string{
		fmt.Sprintf("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://%s%s", net.JoinHostPort(host, port), devtrace.ReceivePath),
		"OTEL_EXPORTER_OTLP_TRACES_HEADERS=" + devtrace.TokenHeader + "=" + token,
		"OTEL_TRACES_SAMPLER=parentbased_always_off",
		"OTEL_BSP_SCHEDULE_DELAY=100",
	}
}
