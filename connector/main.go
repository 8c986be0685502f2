package connector

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/mcpgen/mcpgen/internal/cmdline"
	"github.com/mcpgen/mcpgen/internal/httpedge"
	"github.com/mcpgen/mcpgen/internal/logbuf"
)

// Main runs a connector binary: it parses os.Args, serves until SIGINT or
// SIGTERM, and returns the process exit code. A generated main.go is
// os.Exit(mcpgen.Main(mcpgenApp())).
//
// The first signal starts the drain; a second one ends the process at once
// (the signal's default action), for a person pressing Ctrl-C twice.
func Main(app *App, opts ...Option) int {
	ctx, stop := shutdownContext(signal.Notify, signal.Reset, os.Interrupt, syscall.SIGTERM)
	defer stop()
	return Run(ctx, app, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, opts...)
}

// shutdownContext returns a context cancelled by the first of sigs. The
// signals' default action is restored (reset) before the context is
// cancelled, so a second signal sent once the drain has begun (it is
// logged on that cancellation) ends the process; one that came even
// before that is raised again, with the same effect. notify and reset are
// signal.Notify and signal.Reset but in tests.
func shutdownContext(notify func(chan<- os.Signal, ...os.Signal), reset func(...os.Signal), sigs ...os.Signal) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 2)
	notify(ch, sigs...)
	done := make(chan struct{})
	go func() {
		select {
		case <-ch:
		case <-done:
			reset(sigs...)
			return
		}
		reset(sigs...)
		select {
		case again := <-ch:
			if p, err := os.FindProcess(os.Getpid()); err != nil || p.Signal(again) != nil {
				os.Exit(1)
			}
		default:
		}
		cancel()
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() { close(done) })
		cancel()
	}
}

// Run is Main with its inputs explicit, for tests and embedding: args
// without the program name; stdin and stdout carry JSON-RPC in --stdio mode
// only; every log line goes to stderr. Flags may also come from the
// environment (MCPGEN_ADDR, PORT, MCPGEN_ALLOW_HOST ...; see --help); a flag
// on the command line wins over its variable. Options in opts win over
// flags.
func Run(ctx context.Context, app *App, args []string, stdin io.Reader, stdout, stderr io.Writer, opts ...Option) int {
	if app == nil {
		fmt.Fprintln(stderr, "mcpgen runtime: no App")
		return 2
	}
	name := app.Name
	if name == "" {
		name = "connector"
	}
	var given options
	for _, o := range opts {
		o(&given)
	}
	cl := cmdline.New(name, stderr, given.lookupEnv)

	// Serving.
	addr := cl.String("addr", "MCPGEN_ADDR", defaultAddr, "serve Streamable HTTP at http://`HOST:PORT`/mcp (without it, PORT=N in the\nenvironment means 0.0.0.0:N)")
	stdio := cl.Bool("stdio", "", false, "serve newline-delimited JSON-RPC on stdin/stdout instead of HTTP")
	stateless := cl.Bool("stateless", "MCPGEN_STATELESS", false, "turn HTTP sessions off: every request stands alone (MCP 2026-07-28 is served\neither way); clients before 2026-07-28 lose resource subscriptions, sampling,\nelicitation, stream resumption and a per-session log level")
	version := cl.Bool("version", "", false, "print the version and exit")
	healthcheck := cl.Bool("healthcheck", "", false, "ask the server at --addr (or MCPGEN_ADDR, PORT) for GET /healthz; exit 0 if it\nis serving, 1 if not (for container health checks in images without curl)")

	// Deployment (deploy.go).
	dep := deploymentFlags(cl)

	// Auth and rate limits (authflags.go).
	af := declareAuthFlags(cl)

	// Sessions, questions to clients, stdio input (protoflags.go).
	proto := protocolFlags(cl)

	// HTTP+SSE and WebSocket (streamserve.go).
	streams := streamFlags(cl)
	// Traces and metrics (observe.go).
	obs := declareObserveFlags(cl)
	// Replicas: the state store, requestState keys, trusted proxies
	// (storeflags.go).
	sh := sharedFlags(cl)

	cl.Flags().Usage = func() {
		fmt.Fprintf(stderr, "%s %s: an MCP server\n\nUsage:\n  %s [--addr HOST:PORT] [--stateless]   serve Streamable HTTP at /mcp (also HTTP+SSE at /sse, WebSocket at /ws)\n  %s --stdio                           serve over stdin/stdout\n\nFlags (a [$VAR] may be set in the environment instead):\n", name, appVersion(app), name, name)
		cl.PrintDefaults()
	}
	if err := cl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if cl.Flags().NArg() > 0 {
		fmt.Fprintf(stderr, "%s: unexpected argument %q; run %s --help\n", name, cl.Flags().Arg(0), name)
		return 2
	}
	if *version {
		fmt.Fprintf(stdout, "%s %s\n", name, appVersion(app))
		return 0
	}
	if *healthcheck {
		listen, err := listenAddr(cl, *addr)
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", name, err)
			return 2
		}
		return httpedge.ProbeHealth(ctx, listen, stderr)
	}
	// From here on, what goes to stderr (the request log above all) is
	// gathered for a moment and written together (logbuf): a line per
	// request written on its own costs a system call each.
	lw := logbuf.New(stderr, 0)
	defer lw.Close()
	stderr = lw
	logger, err := newLogger(stderr, *dep.logFormat, *dep.logLevel)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 2
	}
	depOpts, err := dep.options()
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 2
	}
	authOpts, err := af.options(*stdio, *dep.publicURL, name, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 2
	}
	depOpts = append(depOpts, authOpts...)
	listen, err := listenAddr(cl, *addr)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 2
	}

	shOpts, closeStore, err := sh.options(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 2
	}
	defer closeStore()
	depOpts = append(depOpts, shOpts...)

	tel, metricsLn, code, err := obs.setup(ctx, app, logger)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return code
	}
	defer endTelemetry(tel, logger)
	if metricsLn != nil {
		serveMetrics(ctx, metricsLn, tel, logger, stderr, strings.EqualFold(*dep.logFormat, "json"))
	}

	flagOpts := []Option{WithLogger(logger), WithStateless(*stateless), WithTelemetry(tel)}
	flagOpts = append(flagOpts, depOpts...)
	flagOpts = append(flagOpts, proto.options()...)
	flagOpts = append(flagOpts, streams()...)
	opts = append(flagOpts, opts...)
	s, err := NewServer(app, opts...)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	if *stdio {
		if *stateless {
			fmt.Fprintf(stderr, "%s: --stateless applies to HTTP only; ignored with --stdio\n", name)
		}
		err := s.ServeIO(ctx, stdin, stdout)
		if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
			logger.Error("stdio", "err", err)
			return 1
		}
		return 0
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		fmt.Fprintf(stderr, "%s: cannot listen on %s: %v\n", name, listen, err)
		return 1
	}
	return s.serveHTTP(ctx, ln, stderr, *dep.drain, strings.EqualFold(*dep.logFormat, "json"))
}

func (s *Server) mcpName() string { return orDefault(s.app.Name, "connector") }
