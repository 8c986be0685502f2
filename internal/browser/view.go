package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/chromedp"
)

// Problem is something that went wrong while a page was shown.
type Problem struct {
	// Kind is "exception" (uncaught, or an unhandled rejection), "console"
	// (console.error), "csp" (a Content-Security-Policy violation) or "log"
	// (an error the browser logged, such as a failed request).
	Kind string
	Text string
	// URL, Line and Column (from 1; 0 when unknown) say where it happened.
	// A caller that knows the page's source maps may replace them with the
	// place in the source (URL a path such as ui/summary.tsx).
	URL          string
	Line, Column int64
}

// String is the problem's kind and the first line of its text (a stack
// trace is left out), with where it happened.
func (p Problem) String() string {
	text, _, _ := strings.Cut(p.Text, "\n")
	s := p.Kind + ": " + text
	if p.URL != "" {
		where := p.URL
		if len(where) > 120 {
			where = where[:117] + "..."
		}
		switch {
		case p.Line > 0 && p.Column > 0:
			where = fmt.Sprintf("%s:%d:%d", where, p.Line, p.Column)
		case p.Line > 0:
			where = fmt.Sprintf("%s:%d", where, p.Line)
		}
		s += " (at " + where + ")"
	}
	return s
}

// Statuses of the element holding the view (data-app-status), and Timeout
// for a view that did not get to either.
const (
	StatusReady   = "ready"
	StatusError   = "error"
	StatusTimeout = "timeout"
)

// View is one inspector page showing a view, in its own tab. Its methods
// must not be called concurrently.
type View struct {
	ctx    context.Context
	cancel context.CancelFunc

	// URL is the page's address.
	URL string
	// Status is "ready", "error" (the inspector could not load the view;
	// Error says why) or "timeout" (neither within the time given).
	Status string
	Error  string

	mu       sync.Mutex
	problems []Problem
}

// Open opens url, an inspector deep link that renders a view, in a new tab
// and waits (at most timeout) until the element holding the view says the
// view is ready or failed, then until its size has settled. The
// View records problems from then on too; Close closes the tab.
func (b *Browser) Open(ctx context.Context, url string, timeout time.Duration) (*View, error) {
	// Each view gets a browser context of its own (like a fresh profile):
	// an open inspector page keeps long-lived connections to its server,
	// and one profile allows only six per host, so with one shared context
	// a test's fourth open view never loaded.
	tctx, tcancel := chromedp.NewContext(b.ctx, chromedp.WithNewBrowserContext())
	stop := context.AfterFunc(ctx, tcancel)
	v := &View{ctx: tctx, cancel: func() { stop(); tcancel() }, URL: url}
	// Open the tab, then subscribe before navigating so no message is lost.
	if err := chromedp.Do(tctx); err != nil {
		v.Close()
		return nil, fmt.Errorf("opening a tab: %w", err)
	}
	messages := chromedp.Console(tctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if p, ok := problem(m); ok {
				v.mu.Lock()
				v.problems = append(v.problems, p)
				v.mu.Unlock()
			}
		}
	}()
	// The timeout covers loading the page too.
	wctx, wcancel := context.WithTimeout(tctx, timeout)
	defer wcancel()
	if err := chromedp.Do(wctx, chromedp.Navigate(url)); err != nil {
		if wctx.Err() != nil && ctx.Err() == nil {
			v.Status = StatusTimeout
			return v, nil
		}
		v.Close()
		return nil, fmt.Errorf("opening %s: %w", url, err)
	}
	st, err := chromedp.Run(wctx, chromedp.Poll[string](statusJS, chromedp.WithPollingInterval(50*time.Millisecond)))
	switch {
	case err == nil:
		v.Status = st
	case wctx.Err() != nil && ctx.Err() == nil:
		v.Status = StatusTimeout
		return v, nil
	default:
		v.Close()
		return nil, fmt.Errorf("waiting for the view: %w", err)
	}
	if v.Status == StatusError {
		v.Error, _ = chromedp.Run(tctx, chromedp.Evaluate[string](`document.querySelector("[data-app-status]")?.getAttribute("data-app-error") ?? ""`))
		return v, nil
	}
	sctx, scancel := context.WithTimeout(tctx, 5*time.Second)
	defer scancel()
	_ = chromedp.Do(sctx, chromedp.Evaluate[chromedp.Void](settleJS, chromedp.EvalAwaitPromise))
	return v, nil
}

// statusJS is truthy once the view is ready or failed.
const statusJS = `(() => {
  const s = document.querySelector("[data-app-status]")?.getAttribute("data-app-status");
  return s === "ready" || s === "error" ? s : false;
})()`

// settleJS scrolls the element holding the view into view and resolves
// once it has kept its size for ten animation frames (the view reports its
// size, and the host resizes the frame), or after 300 frames.
const settleJS = `new Promise((resolve) => {
  // Chromium neither paints nor runs the frames of an iframe from another
  // origin while it is off screen, so the view would never report its size.
  document.querySelector("[data-app-status]")?.scrollIntoView({ block: "start" });
  let last = "", same = 0, n = 0;
  const tick = () => {
    const el = document.querySelector("[data-app-status]");
    const f = el && el.querySelector("iframe");
    const r = (f || el || document.body).getBoundingClientRect();
    const k = r.width + "x" + r.height;
    if (k === last) same++; else { same = 0; last = k; }
    if (same >= 10 || ++n > 300) resolve(k); else requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})`

// Problems returns what went wrong so far, in order.
func (v *View) Problems() []Problem {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]Problem(nil), v.problems...)
}

// Screenshot returns a PNG of the element holding the view, once its size
// has settled (as after opening it). A picture of one colour throughout (a
// frame a busy machine has not painted yet) is taken again, for up to 5
// seconds, and then returned as it is. Each attempt is bounded by
// shotAttempt: one that waits on an element the page has since hidden or
// replaced (a host re-rendering) never ends, and the next attempt finds
// the element anew; after shotAttempts the last error is returned.
func (v *View) Screenshot(ctx context.Context) ([]byte, error) {
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	_, _ = run(sctx, v, chromedp.Evaluate[chromedp.Void](settleJS, chromedp.EvalAwaitPromise))
	cancel()
	deadline := time.Now().Add(5 * time.Second)
	for stalled := 0; ; {
		actx, cancel := context.WithTimeout(ctx, shotAttempt)
		shot, err := run(actx, v, chromedp.Screenshot(chromedp.CSS("[data-app-status]")))
		timedOut := actx.Err() == context.DeadlineExceeded && ctx.Err() == nil
		cancel()
		if err != nil && timedOut {
			if stalled++; stalled < shotAttempts {
				continue
			}
			return nil, fmt.Errorf("no screenshot in %d attempts of %v: %w", shotAttempts, shotAttempt, err)
		}
		if err != nil || !oneColour(shot) || time.Now().After(deadline) {
			return shot, err
		}
		select {
		case <-ctx.Done():
			return shot, nil
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// oneColour reports whether the PNG b is one colour throughout (a PNG it
// cannot decode is not).
func oneColour(b []byte) bool {
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return false
	}
	r := img.Bounds()
	if r.Empty() {
		return true
	}
	first := img.At(r.Min.X, r.Min.Y)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if img.At(x, y) != first {
				return false
			}
		}
	}
	return true
}

// Text returns the view's visible text (document.body.innerText).
func (v *View) Text(ctx context.Context) (string, error) {
	return v.Eval(ctx, `document.body ? document.body.innerText : ""`)
}

// Query returns the text of every element of the view that matches the
// CSS selector, in document order.
func (v *View) Query(ctx context.Context, selector string) ([]string, error) {
	sel, _ := json.Marshal(selector)
	out, err := v.Eval(ctx, `JSON.stringify(Array.from(document.querySelectorAll(`+string(sel)+`), (e) => e.innerText ?? e.textContent ?? ""))`)
	if err != nil {
		return nil, err
	}
	var texts []string
	if err := json.Unmarshal([]byte(out), &texts); err != nil {
		return nil, fmt.Errorf("query %s: %w", selector, err)
	}
	return texts, nil
}

// Eval evaluates a JavaScript expression inside the view's document and
// returns its value as a string.
func (v *View) Eval(ctx context.Context, expr string) (string, error) {
	frame, err := v.frame(ctx)
	if err != nil {
		return "", err
	}
	// PollFunction evaluates in the frame's document; the predicate (an
	// array, always truthy) holds at once, so it returns on the first try.
	out, err := run(ctx, v, chromedp.PollFunction[[]string](`() => { const v = (`+expr+`); return [v === undefined || v === null ? "" : String(v)]; }`,
		chromedp.WithPollingInFrame(frame), chromedp.WithPollingTimeout(5*time.Second)))
	if err != nil {
		return "", err
	}
	if len(out) != 1 {
		return "", fmt.Errorf("evaluating %q: no value", expr)
	}
	return out[0], nil
}

// Wait waits, at most timeout, until the JavaScript expression is truthy
// inside the view's document.
func (v *View) Wait(ctx context.Context, expr string, timeout time.Duration) error {
	frame, err := v.frame(ctx)
	if err != nil {
		return err
	}
	_, err = run(ctx, v, chromedp.PollFunction[chromedp.Void](`() => (`+expr+`)`,
		chromedp.WithPollingInFrame(frame), chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(timeout)))
	return err
}

// HostEval evaluates a JavaScript expression in the page that holds the
// view (the host), awaiting it when it is a promise, and returns its value
// as JSON.
func (v *View) HostEval(ctx context.Context, expr string) ([]byte, error) {
	return run(ctx, v, chromedp.Evaluate[[]byte](expr, chromedp.EvalAwaitPromise))
}

// HostWait waits, at most timeout, until the JavaScript expression is
// truthy in the page that holds the view.
func (v *View) HostWait(ctx context.Context, expr string, timeout time.Duration) error {
	_, err := run(ctx, v, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(timeout)))
	return err
}

// frame returns the iframe that shows the view.
func (v *View) frame(ctx context.Context) (*chromedp.Node, error) {
	frames, err := run(ctx, v, chromedp.Nodes(chromedp.CSS("[data-app-status] iframe")))
	if err != nil {
		return nil, fmt.Errorf("finding the view's frame: %w", err)
	}
	if len(frames) == 0 {
		return nil, fmt.Errorf("the page shows no view")
	}
	return frames[0], nil
}

// actionTimeout bounds one action on an open view.
const actionTimeout = 30 * time.Second

// shotAttempt bounds one attempt at a screenshot, and shotAttempts is how
// many are made before Screenshot gives up (see Screenshot).
var shotAttempt = 8 * time.Second

const shotAttempts = 3

// run runs one action in the view's tab, bounded by ctx and actionTimeout.
func run[T any](ctx context.Context, v *View, a chromedp.Action[T]) (T, error) {
	rctx, cancel := context.WithTimeout(v.ctx, actionTimeout)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	return chromedp.Run(rctx, a)
}

// Close closes the tab.
func (v *View) Close() { v.cancel() }

// problem classifies a console message; ok is false for one that is not a
// problem (logs, warnings).
func problem(m chromedp.ConsoleMessage) (Problem, bool) {
	p := Problem{Text: m.Text, URL: m.URL}
	if m.URL != "" {
		p.Line, p.Column = m.Line+1, m.Column+1
	}
	switch {
	case m.IsException():
		p.Kind = "exception"
		if m.Stack != nil && len(m.Stack.CallFrames) > 0 && p.URL == "" {
			f := m.Stack.CallFrames[0]
			p.URL, p.Line, p.Column = f.URL, f.LineNumber+1, f.ColumnNumber+1
		}
	case m.Type != chromedp.ConsoleError:
		return p, false
	case strings.Contains(m.Text, "Content Security Policy"):
		p.Kind = "csp"
	case m.Source != "":
		p.Kind = "log"
	default:
		p.Kind = "console"
	}
	return p, true
}
