// Package dev is `mcpgen dev`: it watches a connector's sources, rebuilds
// what changed, and serves the connector through a long-lived front whose
// MCP sessions survive every rebuild. Go edits rebuild and restart the
// connector process behind the front; view edits are rebundled and swapped
// in the front directly, without a restart.
package dev

import (
	"context"
	"errors"
	"fmt"
	"github.com/mcpgen/mcpgen/connector/authserver"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpgen/mcpgen/connector"
	"github.com/mcpgen/mcpgen/generator/diag"
	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/generator/lint"
	"github.com/mcpgen/mcpgen/internal/dev/watch"
	"github.com/mcpgen/mcpgen/internal/inspector"
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
	Auth *connector.Auth
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
	relist *child // the connector announced a list change
	exited *child // the connector exited
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
	front    *front
	gate     *connector.AuthGate // nil without Options.Auth
	asrv     *authserver.Server  // nil without Options.AuthUpstream
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
	retiring map[*conn]bool // replaced connectors finishing their calls
	current  *child         // the serving connector process
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
		retiring: map[*conn]bool{},
		opts:     opts,
		dir:      dir,
		out:      &term{w: opts.Stdout, errw: opts.Stderr, root: dir},
		front:    newFront(filepath.Base(dir)+" (mcpgen dev)", "dev", evs),
		evs:      evs,
	}
	// The connector trusts what the front forwards (the verified caller,
	// the host-facing client's address for per-caller limits) only with
	// this run's key.
	r.front.key = newDevKey()
	r.opts.Env = append(slices.Clip(r.opts.Env), connector.DevFrontKeyEnv+"="+r.front.key)
	if opts.RateLimit != "" {
		if _, err := connector.ParseRate(opts.RateLimit); err != nil {
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

func (r *runner) run(ctx context.Context) (err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var ln net.Listener
	url := "stdio"
	if r.opts.Addr != "" {
		ln, err = net.Listen("tcp", r.opts.Addr)
		if err != nil {
			return fmt.Errorf("listening on %s: %w (pass --addr to use another address)", r.opts.Addr, err)
		}
		url = "http://" + displayAddr(ln.Addr()) + "/mcp"
	}
	if (r.opts.Auth != nil || r.opts.AuthUpstream != nil) && ln != nil {
		if err := r.newGate(displayAddr(ln.Addr())); err != nil {
			ln.Close()
			return err
		}
	}
	r.tmp, err = os.MkdirTemp("", "mcpgen-dev-")
	if err != nil {
		if ln != nil {
			ln.Close()
		}
		return err
	}
	defer os.RemoveAll(r.tmp)
	if c, ok := r.opts.Builder.(io.Closer); ok {
		defer c.Close()
	}

	var hs *http.Server
	if ln != nil {
		// The inspector's view sandbox is a second origin: the front's
		// host, another port.
		sandboxHost, _, _ := net.SplitHostPort(ln.Addr().String())
		r.insp, err = inspector.New(inspector.Options{
			ProjectDir:  r.dir,
			Name:        filepath.Base(r.dir),
			SandboxAddr: net.JoinHostPort(sandboxHost, "0"),
			AllowHosts:  r.opts.AllowHosts,
			// The views the front serves, with their source maps: the
			// browser's developer tools show a view's errors in ui/.
			Views: r.front.currentViews,
		})
		if err != nil {
			ln.Close()
			return fmt.Errorf("starting the inspector: %w", err)
		}
		defer r.insp.Close()
		hs = &http.Server{Handler: r.handler(), ReadHeaderTimeout: 10 * time.Second}
		go hs.Serve(ln)
	}
	// Hosts may connect (and over stdio, do) before the first build: the
	// front holds their list requests until it is done.
	defer r.front.firstBuildDone()
	if r.opts.Stdio != nil {
		ss, err := r.front.srv.Connect(ctx, &mcp.IOTransport{
			Reader: io.NopCloser(r.opts.Stdio.In),
			Writer: nopWriteCloser{r.opts.Stdio.Out},
		}, nil)
		if err != nil {
			return fmt.Errorf("serving stdio: %w", err)
		}
		go func() {
			// The host closed stdin (or the session failed): it is gone,
			// and so is the reason to run.
			_ = ss.Wait()
			r.out.line("the host closed stdin")
			cancel()
		}()
	}

	// Watch before the first build, so edits made during it are not lost.
	wa, err := watch.New(r.dir)
	if err != nil {
		return fmt.Errorf("watching %s: %w", r.dir, err)
	}
	defer wa.Close()
	defer r.shutdown(hs)

	r.out.banner(r.dir)
	r.rebuildViews(ctx, watch.Batch{Kind: watch.View}, true)
	first := r.startBuild(ctx, watch.Batch{Kind: watch.Go})
	r.finishBuild(ctx, first, <-first.done)
	r.front.firstBuildDone()
	if ctx.Err() != nil {
		return nil
	}
	r.out.ready(url, r.opts.AllowHosts)
	r.serving = true
	if r.opts.Ready != nil {
		r.opts.Ready(url)
	}
	var (
		restart <-chan time.Time
		job     *buildJob // the build running, if any
		queued  *watch.Batch    // Go changes that arrived while it ran
	)
	defer func() {
		if job != nil {
			job.cancel()
			<-job.done
		}
	}()
	for {
		select {
		case <-ctx.Done():
			r.out.line("stopping")
			return nil
		case diags := <-jobDone(job):
			j := job
			job = nil
			if queued != nil {
				// Superseded: build again with every change since.
				j.cancel()
				nb := watch.Merge(j.b, *queued)
				queued = nil
				job = r.startBuild(ctx, nb)
				continue
			}
			r.finishBuild(ctx, j, diags)
		case b, ok := <-wa.Batches():
			if !ok {
				return errors.New("file watcher stopped")
			}
			// Take whatever else is already queued, so a burst costs one build.
			for more := true; more; {
				select {
				case nb := <-wa.Batches():
					b = watch.Merge(b, nb)
				default:
					more = false
				}
			}
			if b.Kind&watch.View != 0 {
				// A view that appears or disappears can fix or break a
				// tool's ui= link, which only the generator checks.
				if r.rebuildViews(ctx, b, false) {
					b.Kind |= watch.Go
				}
			}
			if b.Kind&watch.Go != 0 {
				switch {
				case job == nil:
					job = r.startBuild(ctx, b)
				case queued == nil:
					job.cancel()
					nb := b
					queued = &nb
				default:
					nb := watch.Merge(*queued, b)
					queued = &nb
				}
			}
		case res := <-r.typeDone():
			r.typesChecked(ctx, res)
		case err := <-wa.Errors():
			r.out.warn("file watcher: %v", err)
		case e := <-r.evs:
			r.mu.Lock()
			cur := r.current
			r.mu.Unlock()
			switch {
			case e.relist != nil && e.relist == cur:
				r.relist(ctx)
			case e.exited != nil && e.exited == cur && !cur.expected():
				r.mu.Lock()
				up := time.Since(r.started)
				if up > 10*time.Second || r.backoff == 0 {
					r.backoff = 250 * time.Millisecond
				} else if r.backoff < 8*time.Second {
					r.backoff *= 2
				}
				d := r.backoff
				r.mu.Unlock()
				r.out.fail("connector exited after %s (%s); restarting in %s", round(up), exitText(cur.err), round(d))
				restart = time.After(d)
			}
		case <-restart:
			restart = nil
			r.mu.Lock()
			cur := r.current
			r.mu.Unlock()
			if cur != nil && cur.exited() && !r.restart(ctx, cur.bin) {
				r.mu.Lock()
				if r.backoff < 8*time.Second {
					r.backoff *= 2
				}
				d := r.backoff
				r.mu.Unlock()
				r.out.fail("retrying in %s", round(d))
				restart = time.After(d)
			}
		}
	}
}

// shutdown stops serving: it ends the hosts' sessions (and so their event
// streams, which would hold an HTTP shutdown for its whole timeout), closes
// the HTTP server and stops every connector, the serving one and those still
// finishing calls after a swap, all at once: Ctrl-C should feel immediate.
func (r *runner) shutdown(hs *http.Server) {
	r.front.closing.Store(true)
	var wg sync.WaitGroup
	wg.Go(func() {
		for ss := range r.front.srv.Sessions() {
			_ = ss.Close()
		}
		if hs == nil {
			return
		}
		sctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		_ = hs.Shutdown(sctx)
		hs.Close()
	})
	r.mu.Lock()
	c := r.current
	var old []*conn
	for p := range r.retiring {
		old = append(old, p)
	}
	r.mu.Unlock()
	for _, p := range old {
		wg.Go(func() { p.child.stop(stopGrace) })
	}
	if c != nil {
		wg.Go(func() { c.stop(stopGrace) })
	}
	wg.Wait()
	r.wg.Wait()
	if r.views != nil {
		r.views.Close()
	}
}

// stopGrace is how long a connector has to exit after SIGTERM when mcpgen
// dev stops, before it is killed.
const stopGrace = 500 * time.Millisecond

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

func viewNames(views []ir.View) []string {
	var names []string
	for _, v := range views {
		names = append(names, v.Name)
	}
	slices.Sort(names)
	return names
}

// rebuildViews rebundles the views and swaps them in the front. It reports
// whether the set of view names changed.
func (r *runner) rebuildViews(ctx context.Context, b watch.Batch, first bool) (namesChanged bool) {
	start := time.Now()
	if r.views == nil {
		v, err := r.opts.Views(r.dir)
		if err != nil {
			r.out.fail("views: %v", err)
			r.report("views", b.Files, false, start)
			return
		}
		r.views = v
	}
	if r.views == nil {
		if !first {
			_, _ = r.front.setViews(nil)
		}
		return
	}
	views, diags := r.views.Rebuild(ctx)
	r.publish("views", diags)
	if diags.HasErrors() {
		r.out.changed(b.Files)
		r.out.diags(diags)
		r.out.fail("views not rebuilt; still serving the last good bundle")
		r.report("views", b.Files, false, start)
		return
	}
	before := viewNames(r.front.currentViews())
	old, ch := r.front.setViews(views)
	namesChanged = !slices.Equal(before, viewNames(views))
	for _, u := range old {
		_ = r.front.srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: u})
	}
	if len(diags) > 0 {
		r.out.diags(diags)
	}
	if w, ok := r.opts.Builder.(interface{ WriteViews([]ir.View) error }); ok && !first {
		// Keep the generated views file in step, as mcpgen generate would.
		if err := w.WriteViews(views); err != nil {
			r.out.warn("writing the generated views file: %v", err)
		}
	}
	if first {
		r.out.views(views, time.Since(start))
	} else {
		r.out.changed(b.Files)
		r.out.viewSwap(views, before, old, ch, time.Since(start))
	}
	r.report("views", b.Files, true, start)
	if !first {
		if b.Kind&watch.Go != 0 || namesChanged {
			// A Go build follows and regenerates ui/mcpgen.d.ts: checking
			// the views against the old declarations now would report
			// errors the build is about to fix. The build runs the check.
			r.types.deferred = true
		} else {
			r.checkTypes(ctx)
		}
	}
	return namesChanged
}

// buildJob is one build of the connector, running in the background so
// that view edits are served meanwhile and a newer Go edit can cancel it.
type buildJob struct {
	b      watch.Batch
	bin    string
	start  time.Time
	cancel context.CancelFunc
	done   chan diag.List
}

// startBuild starts building the connector for the changes in b.
func (r *runner) startBuild(ctx context.Context, b watch.Batch) *buildJob {
	if len(b.Files) > 0 {
		r.out.changed(b.Files)
	}
	r.gen++
	r.building = true
	bctx, cancel := context.WithCancel(ctx)
	j := &buildJob{
		b:      b,
		bin:    filepath.Join(r.tmp, fmt.Sprintf("connector-%d%s", r.gen, exeSuffix())),
		start:  time.Now(),
		cancel: cancel,
		done:   make(chan diag.List, 1),
	}
	go func() { j.done <- r.opts.Builder.Build(bctx, j.bin) }()
	return j
}

// finishBuild reports a finished build and, when it succeeded, starts the
// new connector and swaps it in.
// quietLint leaves out the lint findings (generator/lint) when they are the
// same as after the last good build (wherever their lines moved), saying so
// in one line: a save that does not touch them should not scroll the
// terminal with them again.
func (r *runner) quietLint(diags diag.List) diag.List {
	var found, rest diag.List
	for _, d := range diags {
		if lint.Lookup(d.Code) != nil {
			found = append(found, d)
		} else {
			rest = append(rest, d)
		}
	}
	// Compared without line numbers: an edit above a finding moves it
	// without changing it.
	var b strings.Builder
	for _, d := range found {
		b.WriteString(d.Pos.File + "\x00" + d.Message + "\n")
	}
	shown := b.String()
	if shown != r.lintShown {
		r.lintShown = shown
		return diags
	}
	if len(found) > 0 {
		r.out.line("%s as before (mcpgen lint lists them)", count(len(found), "lint warning"))
	}
	return rest
}

func (r *runner) finishBuild(ctx context.Context, j *buildJob, diags diag.List) {
	j.cancel()
	r.building = false
	if ctx.Err() != nil {
		return // stopping: the build was cancelled, not broken
	}
	r.publish("go", diags)
	if diags.HasErrors() {
		if r.types.deferred {
			r.checkTypes(ctx) // a view changed meanwhile: check it as things are
		}
		r.out.diags(diags)
		if r.hasCurrent() {
			r.out.fail("build failed; still serving the last good build")
		} else {
			r.out.fail("build failed; fix the errors above and save")
		}
		r.report("go", j.b.Files, false, j.start)
		return
	}
	if diags = r.quietLint(diags); len(diags) > 0 {
		r.out.diags(diags)
	}
	built := time.Since(j.start)
	if p, ok := r.opts.Builder.(interface{ Phases() string }); ok {
		r.phases = p.Phases()
	}
	if r.start(ctx, j.bin, "go", j.b.Files, j.start, built) {
		r.removeOldBinaries(j.bin)
	}
	// Generation rewrote ui/mcpgen.d.ts: the views may no longer fit.
	r.checkTypes(ctx)
}

// jobDone is the channel a running build reports on; nil (never ready)
// when none runs.
func jobDone(j *buildJob) <-chan diag.List {
	if j == nil {
		return nil
	}
	return j.done
}

// restart starts the last good binary again after a crash.
func (r *runner) restart(ctx context.Context, bin string) bool {
	return r.start(ctx, bin, "restart", nil, time.Now(), 0)
}

// start runs bin, mirrors it and makes it the serving connector.
func (r *runner) start(ctx context.Context, bin, kind string, files []string, start time.Time, built time.Duration) bool {
	ch, err := startChild(bin, r.dir, append(os.Environ(), r.opts.Env...), r.out.errw)
	if err != nil {
		r.out.fail("starting the connector: %v", err)
		r.report(kind, files, false, start)
		return false
	}
	go func() {
		<-ch.done
		select {
		case r.evs <- event{exited: ch}:
		case <-ctx.Done():
		}
	}()
	rctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	err = ch.waitReady(rctx)
	var c *conn
	var snap *snapshot
	if err == nil {
		c, snap, err = r.front.connect(rctx, ch)
	}
	if err != nil {
		ch.stop(time.Second)
		r.out.fail("the new connector did not start: %v", err)
		if r.hasCurrent() {
			r.out.fail("still serving the last good build")
		}
		r.report(kind, files, false, start)
		return false
	}
	prev, changes := r.front.install(c, snap)
	r.mu.Lock()
	r.current = ch
	r.started = time.Now()
	r.mu.Unlock()
	if prev != nil {
		r.mu.Lock()
		r.retiring[prev] = true
		r.mu.Unlock()
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			prev.retire(10 * time.Second)
			r.mu.Lock()
			delete(r.retiring, prev)
			r.mu.Unlock()
		}()
	}
	phases := ""
	if kind == "go" {
		phases = r.phases
	}
	r.out.swapped(kind, built, phases, time.Since(start), snap, changes, prev == nil)
	r.report(kind, files, true, start)
	return true
}

// relist re-mirrors the serving connector after it announced a change.
func (r *runner) relist(ctx context.Context) {
	r.front.mu.Lock()
	c := r.front.cur
	r.front.mu.Unlock()
	if c == nil {
		return
	}
	snap, err := list(own(ctx), c)
	if err != nil {
		r.out.warn("re-listing the connector: %v", err)
		return
	}
	r.front.mu.Lock()
	r.front.snap = snap
	r.front.mu.Unlock()
	if ch := r.front.sync(); !ch.empty() {
		r.out.listChanged(ch)
	}
}

// publish shows the inspector the diagnostics of one kind of build ("views",
// "go" or "types") beside the last ones of the other kinds.
func (r *runner) publish(kind string, diags diag.List) {
	if r.insp == nil {
		return
	}
	if r.diags == nil {
		r.diags = map[string]diag.List{}
	}
	r.diags[kind] = diags
	var all diag.List
	shown := []inspector.Diagnostic{}
	for _, k := range []string{"views", "go", "types"} {
		all.Append(r.diags[k])
		for _, d := range inspector.Diagnostics(r.diags[k], r.dir) {
			d.Stage = k
			shown = append(shown, d)
		}
	}
	r.builds++
	r.insp.SetStatus(inspector.Status{Build: r.builds, OK: !all.HasErrors(), Diagnostics: shown})
}

func (r *runner) hasCurrent() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.current != nil
}

// removeOldBinaries deletes connector binaries no process runs any more.
func (r *runner) removeOldBinaries(keep string) {
	ents, _ := os.ReadDir(r.tmp)
	for _, e := range ents {
		p := filepath.Join(r.tmp, e.Name())
		if p != keep && strings.HasPrefix(e.Name(), "connector-") {
			// A retiring connector may still run its binary; Linux lets us
			// unlink it regardless.
			_ = os.Remove(p)
		}
	}
}

func (r *runner) report(kind string, files []string, ok bool, start time.Time) {
	if r.opts.Events != nil && r.serving {
		r.opts.Events(Event{Kind: kind, Files: files, OK: ok, Duration: time.Since(start)})
	}
}

func displayAddr(a net.Addr) string {
	s := a.String()
	if strings.HasPrefix(s, "[::]:") || strings.HasPrefix(s, "0.0.0.0:") {
		_, port, _ := net.SplitHostPort(s)
		return "localhost:" + port
	}
	return s
}

func round(d time.Duration) time.Duration {
	switch {
	case d > 10*time.Second:
		return d.Round(time.Second)
	case d > time.Second:
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Millisecond)
}

// exeSuffix is what the platform's executables end with.
func exeSuffix() string {
	if goruntime.GOOS == "windows" {
		return ".exe"
	}
	return ""
}
