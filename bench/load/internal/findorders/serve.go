package findorders

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
	"time"
)

// Flags are the command line every benchmark server takes, like a
// connector binary's: --addr and --stateless.
type Flags struct {
	Addr      string
	Stateless bool
}

// ParseFlags parses os.Args.
func ParseFlags() Flags {
	var f Flags
	flag.StringVar(&f.Addr, "addr", "127.0.0.1:8080", "serve Streamable HTTP at http://`HOST:PORT`/mcp")
	flag.BoolVar(&f.Stateless, "stateless", false, "serve without sessions")
	flag.Parse()
	return f
}

// Serve serves h at /mcp on addr until SIGINT or SIGTERM. With
// BENCH_CPUPROFILE set it writes a CPU profile of the whole run there,
// and its allocations (pprof's allocs profile) beside it, in FILE.allocs.
func Serve(addr string, h http.Handler) {
	if path := os.Getenv("BENCH_CPUPROFILE"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			fail(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fail(err)
		}
		defer func() {
			pprof.StopCPUProfile()
			f.Close()
			writeAllocs(path + ".allocs")
		}()
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fail(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go srv.Serve(ln)
	fmt.Fprintf(os.Stderr, "serving MCP at http://%s/mcp\n", ln.Addr())
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	srv.Shutdown(sctx)
	srv.Close()
}

// writeAllocs writes the allocations of the whole run to path.
func writeAllocs(path string) {
	f, err := os.Create(path)
	if err != nil {
		fail(err)
	}
	defer f.Close()
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
