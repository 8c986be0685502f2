package runtime

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultAddr is where a connector binary serves HTTP unless --addr says
// otherwise.
const DefaultAddr = "127.0.0.1:8080"

// ShutdownGrace is how long a connector binary lets requests in flight
// finish after SIGINT or SIGTERM.
const ShutdownGrace = 10 * time.Second

// Main runs a connector binary: it parses os.Args, serves until SIGINT or
// SIGTERM, and returns the process exit code. A generated main.go is
// os.Exit(runtime.Main(mcpgenApp())).
func Main(app *App, opts ...Option) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return Run(ctx, app, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, opts...)
}

// Run is Main with its inputs explicit, for tests and embedding: args
// without the program name; stdin and stdout carry JSON-RPC in --stdio mode
// only; every log line goes to stderr.
func Run(ctx context.Context, app *App, args []string, stdin io.Reader, stdout, stderr io.Writer, opts ...Option) int {
	if app == nil {
		fmt.Fprintln(stderr, "mcpgen runtime: no App")
		return 2
	}
	name := app.Name
	if name == "" {
		name = "connector"
	}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", DefaultAddr, "serve Streamable HTTP at http://`HOST:PORT`/mcp")
	stdio := fs.Bool("stdio", false, "serve newline-delimited JSON-RPC on stdin/stdout instead of HTTP")
	stateless := fs.Bool("stateless", false, "serve HTTP without sessions (MCP 2026-07-28 stateless mode): no resource\nsubscriptions, sampling, elicitation, stream resumption or per-session log level")
	version := fs.Bool("version", false, "print the version and exit")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "%s %s: an MCP server\n\nUsage:\n  %s [--addr HOST:PORT] [--stateless]   serve Streamable HTTP at /mcp\n  %s --stdio                           serve over stdin/stdout\n\nFlags:\n", name, orDefault(app.Version, "(devel)"), name, name)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "%s: unexpected argument %q; run %s --help\n", name, fs.Arg(0), name)
		return 2
	}
	if *version {
		fmt.Fprintf(stdout, "%s %s\n", name, orDefault(app.Version, "(devel)"))
		return 0
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	opts = append([]Option{WithLogger(logger), WithStateless(*stateless)}, opts...)
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
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "%s: cannot listen on %s: %v\n", name, *addr, err)
		return 1
	}
	return s.serveHTTP(ctx, ln, stderr)
}

func (s *Server) serveHTTP(ctx context.Context, ln net.Listener, stderr io.Writer) int {
	h := s.Handler()
	var inflight sync.WaitGroup
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		// GET streams stay open until the client leaves; only requests
		// (POST, DELETE) are waited for on shutdown.
		if r.Method != http.MethodGet {
			inflight.Add(1)
			defer inflight.Done()
		}
		h.ServeHTTP(w, r)
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	mode := ""
	if s.opts.stateless {
		mode = " (stateless)"
	}
	fmt.Fprintf(stderr, "%s serving MCP%s at http://%s/mcp\n", s.mcpName(), mode, ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		s.logger.Error("http", "err", err)
		return 1
	case <-ctx.Done():
	}
	// Stop accepting, give requests in flight up to ShutdownGrace to
	// finish, then close every connection (open GET streams included).
	ln.Close()
	srv.SetKeepAlivesEnabled(false)
	finished := make(chan struct{})
	go func() { inflight.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(ShutdownGrace):
		s.logger.Warn("shutdown: requests still running after the grace period; closing them", "grace", ShutdownGrace)
	}
	srv.Close()
	s.logger.Info("stopped")
	return 0
}

func (s *Server) mcpName() string { return orDefault(s.app.Name, "connector") }

// ServeIO serves one client over newline-delimited JSON-RPC read from r and
// written to w, until ctx is done or r ends.
func (s *Server) ServeIO(ctx context.Context, r io.Reader, w io.Writer) error {
	rc, ok := r.(io.ReadCloser)
	if !ok {
		rc = io.NopCloser(r)
	}
	wc, ok := w.(io.WriteCloser)
	if !ok {
		wc = nopWriteCloser{w}
	}
	return s.mcp.Run(ctx, &mcp.IOTransport{Reader: rc, Writer: wc})
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
