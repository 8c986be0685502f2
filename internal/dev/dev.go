// Package dev is `mcpgen dev`: it turns a connector's source directory into
// a connector that is served all the time and always current. It builds the
// connector, runs it as a child process behind the front (package
// internal/dev/front), whose MCP sessions survive every rebuild, and reacts
// to the batches of changes the watcher (package internal/dev/watch)
// reports: Go edits rebuild and restart the connector process; view edits
// are rebundled and swapped in the front directly, without a restart.
package dev

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/connector"
	"github.com/mcpgen/mcpgen/generator/diag"
	"github.com/mcpgen/mcpgen/internal/authgate"
	"github.com/mcpgen/mcpgen/internal/dev/front"
	"github.com/mcpgen/mcpgen/internal/devlink"
	"github.com/mcpgen/mcpgen/internal/inspector"
	"github.com/mcpgen/mcpgen/internal/ratespec"
)

// Options configure Run.
type Options struct {
	// Dir is the project directory (holding go.mod); "" is the current one.
	Dir string
	// Addr is where the front listens; "" is 127.0.0.1:8080 (with Stdio:
	// no HTTP at all). Port 0 picks a free port (see Ready).
	Addr string
	// Stdio, when set, serves the front to one host over its In and Out
	// (newline-delimited JSON-RPC), for hosts that start their servers
	// themselves. Out then carries nothing but JSON-RPC: progress goes to
	// Stderr with the diagnostics. Run returns when the host closes In.
	Stdio *Stdio
	// AllowHosts are extra Host (and Origin) names accepted besides
	// localhost, e.g. a tunnel's public hostname. "*.example.com" matches
	// subdomains. $MCPGEN_DEV_ALLOW_HOST (comma-separated) adds more.
	AllowHosts []string
	// Stdout receives progress; Stderr receives diagnostics and the
	// connector's own output. Nil discards.
	Stdout, Stderr io.Writer

	// Builder builds the connector binary. Nil: the shared pipeline
	// (generate, then go build) for a project that requires mcpgen, plain
	// `go build` for any other Go MCP server taking --addr.
	Builder Builder
	// Views makes the project's view bundler; nil uses package bundler,
	// which resolves react from the project's node_modules.
	Views ViewsFunc
	// Env is extra environment for the connector process.
	Env []string
	// Ready, when set, is called once with the front's URL after the first
	// build (good or bad) has been reported.
	Ready func(url string)
	// Auth, when set, makes the front an OAuth resource server like a built
	// connector with --auth-issuer: it verifies the host's tokens and passes
	// the caller's identity to the connector. PublicURL names the resource
	// (default: the front's own URL); RateLimit is the connector's
	// --rate-limit.
	Auth *authgate.Auth
	// AuthUpstream, instead of Auth, makes the front the authorization
	// server in front of an upstream identity provider, like a built
	// connector with --auth-upstream (its state in memory for the run).
	AuthUpstream *connector.AuthUpstream
	PublicURL    string
	RateLimit    string
	// NoTypeCheck turns off the background type check of the views, which
	// otherwise runs the project's TypeScript compiler (when it has a
	// tsconfig.json) after every good rebuild and reports its errors.
	NoTypeCheck bool
	// Events, when set, is called after every rebuild that follows Ready,
	// with what happened.
	// Benchmarks and tools use it; the terminal output does not depend on it.
	Events func(Event)
}

// Stdio is the host's end of a stdio session: what it writes to mcpgen
// dev's stdin, and where mcpgen dev's stdout goes.
type Stdio struct {
	In  io.Reader
	Out io.Writer
}

// Event reports one finished rebuild.
type Event struct {
	Kind     string        // "views", "go", "restart"
	Files    []string      // the changed files, relative to Dir
	OK       bool          // false: diagnostics were printed, the last good build still serves
	Duration time.Duration // from the end of the debounce to serving
}

// event is what the dev loop reacts to, besides file batches.
type event struct {
	relist front.Process // the connector announced a list change
	exited *child        // the connector exited
}

// Run serves the project at opts.Dir until ctx ends. It returns an error
// only when it cannot start (a bad directory, a busy address); build
// errors are printed and waited out.
func Run(ctx context.Context, opts Options) error {
	r, err := newRunner(opts)
	if err != nil {
		return err
	}
	return r.run(ctx)
}

type runner struct {
	opts Options
	insp *inspector.Server
	// traceEnv is the environment that has the connector export the
	// traces of the inspector's requests to it (traces.go).
	traceEnv []string
	// diags are the last diagnostics of the view bundle and of the Go
	// build, which the inspector shows.
	diags  map[string]diag.List
	builds int
	types  typeState
	// building is true from the start of a Go build until it is
	// finished: the build regenerates ui/mcpgen.d.ts, so the views' type
	// check waits for it (types.go).
	building bool
	dir      string
	out      *term
	front    *front.Front
	evs      chan event
	tmp      string
	views    Views
	gen      int
	// phases is how the last build spent its time, when the builder says.
	phases string
	// lintShown is the rendering of the lint findings last printed, so a
	// rebuild that leaves them as they were does not print them again.
	lintShown string
	// serving is set once the first build has been reported; Events are
	// sent only for the rebuilds after it.
	serving bool

	wg       sync.WaitGroup // retiring connectors
	mu       sync.Mutex
	retiring map[*front.Conn]bool // replaced connectors finishing their calls
	current  *child               // the serving connector process
	started  time.Time
	backoff  time.Duration
}

func newRunner(opts Options) (*runner, error) {
	if opts.Stdout == nil {
		opts.Stdout = io.Discard
	}
	if opts.Stderr == nil {
		opts.Stderr = io.Discard
	}
	if opts.Addr == "" && opts.Stdio == nil {
		opts.Addr = "127.0.0.1:8080"
	}
	if opts.Stdio != nil {
		// stdout is the protocol's: everything for people goes to stderr.
		opts.Stdout = opts.Stderr
	}
	if opts.Views == nil {
		opts.Views = bundlerViews
	}
	if env := os.Getenv("MCPGEN_DEV_ALLOW_HOST"); env != "" {
		for _, h := range strings.Split(env, ",") {
			if h = strings.TrimSpace(h); h != "" {
				opts.AllowHosts = append(opts.AllowHosts, h)
			}
		}
	}
	dir := opts.Dir
	if dir == "" {
		dir = "."
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		what := "is not a directory"
		if errors.Is(err, os.ErrNotExist) {
			what = "does not exist"
		}
		return nil, fmt.Errorf("%s %s: give the connector's directory (the one holding go.mod), or create one with mcpgen new", dir, what)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		return nil, fmt.Errorf("%s has no go.mod: run mcpgen dev in a connector's directory (or create one with mcpgen new)", dir)
	}
	evs := make(chan event, 16)
	r := &runner{
		retiring: map[*front.Conn]bool{},
		opts:     opts,
		dir:      dir,
		out:      &term{w: opts.Stdout, errw: opts.Stderr, root: dir},
		evs:      evs,
	}
	r.front = front.New(front.Options{
		Name:    filepath.Base(dir) + " (mcpgen dev)",
		Version: "dev",
		ListChanged: func(p front.Process) {
			select {
			case evs <- event{relist: p}:
			default:
			}
		},
		Log: opts.Stderr,
	})
	// The connector trusts what the front forwards (the verified caller,
	// the host-facing client's address for per-caller limits) only with
	// this run's key.
	r.opts.Env = append(slices.Clip(r.opts.Env), devlink.KeyEnv+"="+r.front.Key())
	if opts.RateLimit != "" {
		if _, err := ratespec.ParseRate(opts.RateLimit); err != nil {
			return nil, fmt.Errorf("--rate-limit: %v", err)
		}
		r.opts.Env = append(slices.Clip(r.opts.Env), "MCPGEN_RATE_LIMIT="+opts.RateLimit)
	}
	if r.opts.Builder == nil {
		b, err := defaultBuilder(dir)
		if err != nil {
			return nil, err
		}
		r.opts.Builder = b
	}
	return r, nil
}
