package dev

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpgen/mcpgen/internal/dev/front"
	"github.com/mcpgen/mcpgen/internal/dev/watch"
	"github.com/mcpgen/mcpgen/internal/devtrace"
	"github.com/mcpgen/mcpgen/internal/inspector"
)

// run is the dev loop: it listens, builds once, then rebuilds on every batch
// of changes (one Go build at a time, a newer edit cancelling a running
// one), restarts a crashed connector with backoff, and stops when ctx ends.
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
		err := r.front.Protect(front.AuthConfig{Auth: r.opts.Auth, Upstream: r.opts.AuthUpstream, PublicURL: r.opts.PublicURL,
			Addr: displayAddr(ln.Addr()), Name: filepath.Base(r.dir)})
		if err != nil {
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
		// The connector exports the traces of the inspector's requests
		// to the inspector, which shows them (traces.go).
		traces := devtrace.New()
		r.traceEnv = traceEnv(ln.Addr(), traces.Token(), append(os.Environ(), r.opts.Env...))
		r.insp, err = inspector.New(inspector.Options{
			Traces:      traces,
			ProjectDir:  r.dir,
			Name:        filepath.Base(r.dir),
			SandboxAddr: net.JoinHostPort(sandboxHost, "0"),
			AllowHosts:  r.opts.AllowHosts,
			// The views the front serves, with their source maps: the
			// browser's developer tools show a view's errors in ui/.
			Views: r.front.Views,
		})
		if err != nil {
			ln.Close()
			return fmt.Errorf("starting the inspector: %w", err)
		}
		defer r.insp.Close()
		hs = &http.Server{Handler: r.front.Handler(r.opts.AllowHosts, r.insp), ReadHeaderTimeout: 10 * time.Second}
		go hs.Serve(ln)
	}
	// Hosts may connect (and over stdio, do) before the first build: the
	// front holds their list requests until it is done.
	defer r.front.FirstBuildDone()
	if r.opts.Stdio != nil {
		ss, err := r.front.Serve(ctx, &mcp.IOTransport{
			Reader: io.NopCloser(r.opts.Stdio.In),
			Writer: nopWriteCloser{r.opts.Stdio.Out},
		})
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
	r.front.FirstBuildDone()
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
		job     *buildJob    // the build running, if any
		queued  *watch.Batch // Go changes that arrived while it ran
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
			case e.exited != nil && e.exited == cur && !cur.Expected():
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
	r.front.SetStopping()
	var wg sync.WaitGroup
	wg.Go(func() {
		r.front.CloseSessions()
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
	var old []*front.Conn
	for p := range r.retiring {
		old = append(old, p)
	}
	r.mu.Unlock()
	for _, p := range old {
		wg.Go(func() { p.Process().Stop(stopGrace) })
	}
	if c != nil {
		wg.Go(func() { c.Stop(stopGrace) })
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
