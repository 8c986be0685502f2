// Package browser renders MCP Apps views in headless Chromium, driven by
// chromedp, and reports what a user would see and what went wrong: the
// view's status (the inspector's data-app-status), uncaught exceptions,
// console errors and Content-Security-Policy violations, the view's text, a
// DOM query and a screenshot. It opens pages of the mcpgen inspector
// (internal/inspector), whose deep links select a tool, a fixture, a host
// preset and a theme; `mcpgen test` and package mcpgentest build on it.
package browser

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/mcpgen/mcpgen/internal/chromium"
)

// ErrNoChromium is returned by Find when no Chromium is installed.
var ErrNoChromium = chromium.ErrNotFound

// Find returns the path of a Chromium (or Chrome) binary: $MCPGEN_CHROME
// when set, else the first of chromium, chromium-browser, google-chrome and
// google-chrome-stable on PATH.
func Find() (string, error) { return chromium.Find() }

// startTimeout bounds the browser's start.
const startTimeout = time.Minute

// Options configure Launch.
type Options struct {
	// Exec is the browser binary; "" uses Find.
	Exec string
	// Width and Height are the window size (default 1280×900).
	Width, Height int
	// Stderr receives the browser's own output; nil discards it.
	Stderr io.Writer
}

// Browser is one headless Chromium process. Its methods are safe for
// concurrent use; each View is its own tab.
type Browser struct {
	ctx    context.Context // the browser's chromedp context
	cancel context.CancelFunc
	once   sync.Once
}

// Launch starts headless Chromium. The browser lives until Close (or until
// ctx ends).
func Launch(ctx context.Context, opts Options) (*Browser, error) {
	if opts.Exec == "" {
		p, err := Find()
		if err != nil {
			return nil, err
		}
		opts.Exec = p
	}
	if opts.Width == 0 {
		opts.Width, opts.Height = 1280, 900
	}
	if opts.Stderr == nil {
		opts.Stderr = io.Discard
	}
	aopts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(opts.Exec))
	for _, f := range chromium.Flags() {
		if name, value := chromium.Split(f); value != "" {
			aopts = append(aopts, chromedp.Flag(name, value))
		} else {
			aopts = append(aopts, chromedp.Flag(name, true))
		}
	}
	aopts = append(aopts,
		chromedp.WindowSize(opts.Width, opts.Height),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("disable-features", "Translate,BlinkGenPropertyTrees,IsolateSandboxedIframes"),
		chromedp.Flag("font-render-hinting", "none"), // steadier screenshots
		chromedp.CombinedOutput(opts.Stderr),
	)
	actx, acancel := chromedp.NewExecAllocator(ctx, aopts...)
	bctx, bcancel := chromedp.NewContext(actx, chromedp.WithErrorf(func(string, ...any) {}))
	// Start the browser now, so a missing or broken binary is reported
	// here. (The first action binds the browser's life to its context, so
	// it gets no timeout of its own.)
	errc := make(chan error, 1)
	go func() { errc <- chromedp.Do(bctx) }()
	select {
	case err := <-errc:
		if err != nil {
			bcancel()
			acancel()
			return nil, fmt.Errorf("starting %s: %w", opts.Exec, err)
		}
	case <-time.After(startTimeout):
		bcancel()
		acancel()
		<-errc
		return nil, fmt.Errorf("%s did not start within %s", opts.Exec, startTimeout)
	}
	return &Browser{ctx: bctx, cancel: func() { bcancel(); acancel() }}, nil
}

// Close stops the browser.
func (b *Browser) Close() {
	b.once.Do(func() {
		_ = chromedp.Cancel(b.ctx)
		b.cancel()
	})
}
