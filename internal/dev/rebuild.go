package dev

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/generator/diag"
	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/generator/lint"
	"github.com/mcpgen/mcpgen/internal/dev/front"
	"github.com/mcpgen/mcpgen/internal/dev/watch"
	"github.com/mcpgen/mcpgen/internal/inspector"
)

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
			_, _ = r.front.SetViews(nil)
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
	before := viewNames(r.front.Views())
	old, ch := r.front.SetViews(views)
	namesChanged = !slices.Equal(before, viewNames(views))
	r.front.ResourcesUpdated(ctx, old)
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

// finishBuild reports a finished build and, when it succeeded, starts the
// new connector and swaps it in.
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
	ch, err := startChild(bin, r.dir, slices.Concat(os.Environ(), r.traceEnv, r.opts.Env), r.out.errw)
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
	var c *front.Conn
	var snap *front.Snapshot
	if err == nil {
		c, snap, err = r.front.Attach(rctx, ch)
	}
	if err != nil {
		ch.Stop(time.Second)
		r.out.fail("the new connector did not start: %v", err)
		if r.hasCurrent() {
			r.out.fail("still serving the last good build")
		}
		r.report(kind, files, false, start)
		return false
	}
	prev, changes := r.front.Install(c, snap)
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
			prev.Retire(10 * time.Second)
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
	ch, err := r.front.Relist(ctx)
	if err != nil {
		r.out.warn("re-listing the connector: %v", err)
		return
	}
	if !ch.Empty() {
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
