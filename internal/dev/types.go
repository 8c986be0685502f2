package dev

import (
	"context"
	"time"

	"github.com/mcpgen/mcpgen/generator/diag"
	"github.com/mcpgen/mcpgen/internal/typecheck"
)

// typeResult is one finished background type check.
type typeResult struct {
	diags diag.List
	err   error
	took  time.Duration
}

// typeState is the background type check of the views: one tsc at a time,
// started after every good rebuild; a rebuild during a check makes it run
// again when it ends, and only the newest result is shown. While a Go build
// runs (it regenerates ui/mcpgen.d.ts, the declarations the views are
// checked against) no check starts and none is shown: the check is
// deferred to the build's end.
type typeState struct {
	busy, again bool
	deferred    bool // a check is due once the running Go build ends
	warned      bool
	errors      int // errors of the last shown result
	done        chan typeResult
}

// checkTypes starts a type check of the views in the background, when the
// project has TypeScript (a tsconfig.json) and the check is not turned off.
func (r *runner) checkTypes(ctx context.Context) {
	if r.opts.NoTypeCheck {
		return
	}
	ts := &r.types
	if r.building {
		ts.deferred = true
		return
	}
	if ts.busy {
		ts.again = true
		return
	}
	ts.deferred = false
	c, err := typecheck.Find(r.dir)
	if err != nil && !ts.warned {
		ts.warned = true
		r.out.warn("views are not type-checked: %v", err)
	}
	if c == nil {
		return
	}
	if ts.done == nil {
		ts.done = make(chan typeResult, 1)
	}
	ts.busy = true
	go func() {
		start := time.Now()
		d, err := c.Check(ctx)
		ts.done <- typeResult{diags: d, err: err, took: time.Since(start)}
	}()
}

// typesChecked shows a finished type check: its errors in the terminal and
// the inspector's overlay, or that they are fixed.
func (r *runner) typesChecked(ctx context.Context, res typeResult) {
	ts := &r.types
	ts.busy = false
	if ctx.Err() != nil {
		return
	}
	if ts.again {
		ts.again = false
		r.checkTypes(ctx)
		return
	}
	if r.building {
		// A Go build started meanwhile: this result may be against the
		// declarations it is rewriting. Its end checks again.
		ts.deferred = true
		return
	}
	if res.err != nil {
		r.out.warn("type check: %v", res.err)
		return
	}
	prev := ts.errors
	ts.errors = 0
	for _, d := range res.diags {
		if d.Severity == diag.Error {
			ts.errors++
		}
	}
	switch {
	case len(res.diags) > 0:
		r.out.diags(res.diags)
		r.out.fail("type errors in the views (tsc, %s); the views still serve", round(res.took))
	case prev > 0:
		r.out.line("type errors fixed (tsc, %s)", round(res.took))
	}
	r.publish("types", res.diags)
}

// typeDone is the channel a running type check reports on; nil (never
// ready) when none runs.
func (r *runner) typeDone() <-chan typeResult {
	if !r.types.busy {
		return nil
	}
	return r.types.done
}
