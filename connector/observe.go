package connector

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/mcpgen/mcpgen/connector/telemetry"
	"github.com/mcpgen/mcpgen/internal/cmdline"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// observe hooks the server's telemetry into both request paths (the
// go-sdk's and the fast path, through use) and into the requests the
// server sends its clients. It runs last in NewServer, so the request's
// span is the outermost middleware and covers the others.
func (s *Server) observe() error {
	t := s.opts.telemetry
	if t == nil {
		return nil
	}
	s.tel = t
	tools := make([]string, 0, len(s.tools))
	for n := range s.tools {
		tools = append(tools, n)
	}
	prompts := make([]string, 0, len(s.prompts))
	for n := range s.prompts {
		prompts = append(prompts, n)
	}
	t.SetNames(tools, prompts)
	s.use(func(next mcp.MethodHandler) mcp.MethodHandler {
		traced := t.Middleware(next)
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			// A parked session's initialize, made again to bring it back
			// (park.go), is not the client's: no span, no measurement.
			if (method == "initialize" || method == "notifications/initialized") && replaying(ctx) {
				return next(ctx, method, req)
			}
			return traced(ctx, method, req)
		}
	})
	s.mcp.AddSendingMiddleware(t.Sending)
	return t.ObserveSessions(func() int64 { return int64(s.fastPath.SessionCount()) })
}

// observeFlags are a connector binary's telemetry flags; OTLP export is
// configured by the standard OTEL_* variables (see package telemetry).
type observeFlags struct {
	metricsAddr *string
	lookup      func(string) (string, bool)
}

func declareObserveFlags(c *cmdline.Set) *observeFlags {
	return &observeFlags{
		metricsAddr: c.String("metrics-addr", "MCPGEN_METRICS_ADDR", "",
			"serve Prometheus metrics at http://`HOST:PORT`/metrics, a listener apart from the\nMCP one (traces and metrics go over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set)"),
		lookup: c.Lookup,
	}
}

// setup returns the telemetry the flags and the OTEL_* variables ask for
// (nil for none) and the listener of --metrics-addr (nil without it), or
// the exit code and error: 2 for a setting it cannot use, 1 when it
// cannot listen.
func (f *observeFlags) setup(ctx context.Context, app *App, logger *slog.Logger) (*telemetry.Telemetry, net.Listener, int, error) {
	t, err := telemetry.Setup(ctx, telemetry.Config{
		ServiceName:    orDefault(app.Name, "connector"),
		ServiceVersion: appVersion(app),
		Prometheus:     *f.metricsAddr != "",
		LookupEnv:      f.lookup,
		Logger:         logger,
	})
	if err != nil {
		return nil, nil, 2, err
	}
	if *f.metricsAddr == "" {
		return t, nil, 0, nil
	}
	ln, err := net.Listen("tcp", *f.metricsAddr)
	if err != nil {
		t.Shutdown(ctx)
		return nil, nil, 1, fmt.Errorf("cannot listen on --metrics-addr %s: %v", *f.metricsAddr, err)
	}
	return t, ln, 0, nil
}

// serveMetrics serves GET /metrics on ln until ctx is done; the line it
// logs names the address (with the port chosen for HOST:0).
func serveMetrics(ctx context.Context, ln net.Listener, t *telemetry.Telemetry, logger *slog.Logger, stderr io.Writer, jsonLog bool) {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", t.MetricsHandler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: defaultReadTimeout, IdleTimeout: defaultIdleTimeout,
		ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}
	line := fmt.Sprintf("serving metrics at http://%s/metrics", ln.Addr())
	if jsonLog {
		// Written at any --log-level, as the line naming the MCP address.
		r := slog.NewRecord(time.Now(), slog.LevelInfo, line, 0)
		r.AddAttrs(slog.String("addr", ln.Addr().String()))
		logger.Handler().Handle(ctx, r)
	} else {
		fmt.Fprintln(stderr, line)
	}
	go srv.Serve(ln)
	context.AfterFunc(ctx, func() { srv.Close() })
}

// endTelemetry flushes what t holds to its exporters before the process
// exits, waiting at most a few seconds for an unreachable collector.
func endTelemetry(t *telemetry.Telemetry, logger *slog.Logger) {
	if t == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := t.Shutdown(ctx); err != nil {
		logger.Warn("telemetry: flushing at exit", "err", err)
	}
}
