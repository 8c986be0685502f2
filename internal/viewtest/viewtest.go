// Package viewtest runs a connector project's view fixtures in headless
// Chromium: it builds the connector, serves it behind the mcpgen inspector
// (the real host bridge, AppBridge, with each host preset and theme), opens
// every fixtures/TOOL/NAME.json through the inspector's deep links, and
// fails a fixture whose view throws, logs an error, violates its CSP or
// never becomes ready. Screenshots are kept as goldens beside the fixtures
// and later runs compare with them. `mcpgen test` is this package.
package viewtest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/generator/diag"
	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/internal/browser"
	"github.com/mcpgen/mcpgen/internal/fixture"
	"github.com/mcpgen/mcpgen/internal/imagediff"
	"github.com/mcpgen/mcpgen/internal/inspector"
	"github.com/mcpgen/mcpgen/internal/pipeline"
)

// Hosts and Themes are the host presets and themes every fixture is shown
// in by default.
var (
	Hosts  = []string{"claude", "chatgpt"}
	Themes = []string{"light", "dark"}
)

// Options configure Run.
type Options struct {
	// Dir is the connector's module root.
	Dir string
	// Update keeps this run's screenshots as the goldens.
	Update bool
	// Hosts and Themes default to the package's Hosts and Themes.
	Hosts, Themes []string
	// Out is where screenshots and diff images go; default
	// DIR/.mcpgen/test.
	Out string
	// Timeout bounds the wait for one view to become ready; default 20s.
	Timeout time.Duration
	// Tolerance is the fraction of pixels a screenshot may change; 0 uses
	// imagediff's default.
	Tolerance float64
	// TypeCheck type-checks the views while the connector builds.
	TypeCheck bool
	// Chrome is the browser binary; "" finds one (browser.Find).
	Chrome string
	// Stdout receives one line per case; Stderr the build's output.
	Stdout, Stderr io.Writer
}

// Case is one fixture in one host preset and theme.
type Case struct {
	Fixture fixture.Fixture
	Host    string
	Theme   string
	// Failures say what went wrong; empty for a case that passed.
	Failures []string
	// Screenshot is the path of this run's screenshot ("" when none).
	Screenshot string
	// Golden is the golden's path; Compared whether it existed and was
	// compared (Update writes it instead); Diff the diff image's path when
	// the screenshot changed.
	Golden   string
	Compared bool
	Diff     string
	Updated  bool
}

// Name is "TOOL/NAME host theme".
func (c *Case) Name() string { return c.Fixture.ID() + " " + c.Host + " " + c.Theme }

// Report is what Run did.
type Report struct {
	Cases []Case
	// Diagnostics are the build's and the fixtures' problems (warnings
	// included).
	Diagnostics diag.List
}

// Failed counts the cases that failed.
func (r *Report) Failed() int {
	n := 0
	for _, c := range r.Cases {
		if len(c.Failures) > 0 {
			n++
		}
	}
	return n
}

// Run builds the connector at opts.Dir and runs every fixture. The error is
// for what stopped the run: no browser, a failed build (a
// *diag.ListError or *pipeline.BuildError), bad fixtures (*diag.ListError);
// failed cases are in the report.
func Run(ctx context.Context, opts Options) (*Report, error) {
	if opts.Hosts == nil {
		opts.Hosts = Hosts
	}
	if opts.Themes == nil {
		opts.Themes = Themes
	}
	if opts.Timeout == 0 {
		opts.Timeout = 20 * time.Second
	}
	if opts.Stdout == nil {
		opts.Stdout = io.Discard
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, err
	}
	if opts.Out == "" {
		opts.Out = filepath.Join(dir, ".mcpgen", "test")
	}
	if opts.Chrome == "" {
		if opts.Chrome, err = browser.Find(); err != nil {
			return nil, err
		}
	}
	rep := &Report{}

	fixtures, fdiags := fixture.Load(dir)
	rep.Diagnostics.Append(fdiags)
	if fdiags.HasErrors() {
		return rep, rep.Diagnostics.Err(dir)
	}

	tmp, err := os.MkdirTemp("", "mcpgen-test-")
	if err != nil {
		return rep, err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "connector")
	// The binary only serves the views under test: a tool name hosts cannot
	// call (a rule that fails mcpgen build) stays a warning here.
	brep, err := pipeline.Build(ctx, pipeline.Options{Dir: dir, Minify: true, TypeCheck: opts.TypeCheck,
		Stdout: opts.Stderr, Stderr: opts.Stderr, AllowLint: pipeline.BuildFailingLint()}, bin)
	if brep != nil {
		rep.Diagnostics.Append(brep.Diagnostics)
	}
	if err != nil {
		return rep, err
	}
	cdiags := fixture.Check(fixtures, brep.Project.Tools)
	rep.Diagnostics.Append(cdiags)
	rep.Diagnostics.Sort()
	if cdiags.HasErrors() {
		return rep, rep.Diagnostics.Err(dir)
	}
	if len(fixtures) == 0 {
		return rep, nil
	}

	endpoint, stop, err := serveConnector(ctx, bin)
	if err != nil {
		return rep, err
	}
	defer stop()
	// The views as bundled, with their source maps: a view's error is
	// reported at its place in ui/.
	views := brep.Project.Views
	insp, err := inspector.New(inspector.Options{MCPURL: endpoint, ProjectDir: dir, Name: filepath.Base(dir),
		Log: log.New(io.Discard, "", 0), Views: func() []ir.View { return views }})
	if err != nil {
		return rep, fmt.Errorf("starting the inspector: %w", err)
	}
	defer insp.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return rep, err
	}
	hs := &http.Server{Handler: insp, ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	defer hs.Close()
	base := "http://" + ln.Addr().String()

	b, err := browser.Launch(ctx, browser.Options{Exec: opts.Chrome})
	if err != nil {
		return rep, err
	}
	defer b.Close()

	for _, fx := range fixtures {
		for _, host := range opts.Hosts {
			for _, theme := range opts.Themes {
				if err := ctx.Err(); err != nil {
					return rep, err
				}
				c := Case{Fixture: fx, Host: host, Theme: theme}
				runCase(ctx, b, insp, base, dir, &opts, &c)
				rep.Cases = append(rep.Cases, c)
				printCase(opts.Stdout, dir, &c)
			}
		}
	}
	return rep, nil
}

// ownFrameRE finds a place in the project's views (ui/NAME.tsx:LINE:COL)
// in a stack trace whose places were mapped to their sources.
var ownFrameRE = regexp.MustCompile(`\b(ui/[^\s():]+):(\d+):(\d+)`)

// DeepLink is the inspector address that shows fixture fx in host and theme.
func DeepLink(base string, fx *fixture.Fixture, host, theme string) string {
	q := url.Values{"tool": {fx.Tool}, "fixture": {fx.Name}, "host": {host}, "theme": {theme}}
	return base + "/?" + q.Encode()
}

func runCase(ctx context.Context, b *browser.Browser, insp *inspector.Server, base, dir string, opts *Options, c *Case) {
	v, err := b.Open(ctx, DeepLink(base, &c.Fixture, c.Host, c.Theme), opts.Timeout)
	if err != nil {
		c.Failures = append(c.Failures, err.Error())
		return
	}
	defer v.Close()
	switch v.Status {
	case browser.StatusTimeout:
		c.Failures = append(c.Failures, fmt.Sprintf("the view never became ready (data-app-status still not \"ready\" after %s)", opts.Timeout))
	case browser.StatusError:
		c.Failures = append(c.Failures, "the view failed to load: "+v.Error)
	}
	stem := c.Fixture.Name + "." + c.Host + "-" + c.Theme
	if v.Status == browser.StatusReady {
		shot, err := v.Screenshot(ctx)
		if err != nil {
			c.Failures = append(c.Failures, "screenshot: "+err.Error())
		} else {
			screenshot(dir, opts, c, stem, shot, func() ([]byte, error) { return v.Screenshot(ctx) })
		}
	}
	for _, p := range v.Problems() {
		// At the place in the view's source, not in the bundle.
		if pos, ok := insp.SourcePlace(p.URL, int(p.Line), int(p.Column)); ok {
			p.URL, p.Line, p.Column = pos.File, int64(pos.Line), int64(pos.Col)
		}
		p.Text = insp.Rewrite(p.Text)
		// An error React logs is reported where React logs it: the first
		// frame of its stack in the project's own views says more.
		if m := ownFrameRE.FindStringSubmatch(p.Text); m != nil && !strings.HasPrefix(p.URL, "ui/") {
			line, _ := strconv.ParseInt(m[2], 10, 64)
			col, _ := strconv.ParseInt(m[3], 10, 64)
			p.URL, p.Line, p.Column = m[1], line, col
		}
		c.Failures = append(c.Failures, p.String())
	}
}

// retakes is how many more screenshots a case takes, retakeAfter apart,
// when one differs from its golden: a frame caught while a busy machine
// was still painting differs once, a changed view every time.
const (
	retakes     = 2
	retakeAfter = 300 * time.Millisecond
)

// screenshot writes this run's screenshot and keeps or compares the
// golden; retake takes the screenshot again.
func screenshot(dir string, opts *Options, c *Case, stem string, shot []byte, retake func() ([]byte, error)) {
	out := filepath.Join(opts.Out, c.Fixture.Tool, stem+".png")
	c.Golden = filepath.Join(dir, fixture.Dir, c.Fixture.Tool, stem+".png")
	diffPath := filepath.Join(opts.Out, c.Fixture.Tool, stem+".diff.png")
	os.Remove(diffPath)
	keep := func() bool {
		if err := writeFile(out, shot); err != nil {
			c.Failures = append(c.Failures, err.Error())
			return false
		}
		c.Screenshot = out
		return true
	}
	if opts.Update {
		if keep() {
			if err := writeFile(c.Golden, shot); err != nil {
				c.Failures = append(c.Failures, err.Error())
			}
			c.Updated = true
		}
		return
	}
	golden, err := os.ReadFile(c.Golden)
	if errors.Is(err, os.ErrNotExist) {
		keep()
		return
	}
	if err != nil {
		keep()
		c.Failures = append(c.Failures, err.Error())
		return
	}
	c.Compared = true
	r, err := imagediff.Compare(golden, shot, imagediff.Options{Tolerance: opts.Tolerance})
	for i := 0; err == nil && r.Differ && i < retakes; i++ {
		time.Sleep(retakeAfter)
		again, rerr := retake()
		if rerr != nil {
			break
		}
		shot = again
		r, err = imagediff.Compare(golden, shot, imagediff.Options{Tolerance: opts.Tolerance})
	}
	if !keep() {
		return
	}
	if err != nil {
		c.Failures = append(c.Failures, err.Error())
		return
	}
	if r.Differ {
		if r.Diff != nil && writeFile(diffPath, r.Diff) == nil {
			c.Diff = diffPath
		}
		c.Failures = append(c.Failures, fmt.Sprintf("the screenshot differs from %s: %s; see %s (run with --update to accept it)",
			rel(dir, c.Golden), r, rel(dir, diffPath)))
	}
}

func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

func rel(dir, path string) string {
	if r, err := filepath.Rel(dir, path); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return path
}

func printCase(w io.Writer, dir string, c *Case) {
	if len(c.Failures) == 0 {
		note := ""
		switch {
		case c.Updated:
			note = " (golden updated)"
		case c.Compared:
			note = " (matches its golden)"
		}
		fmt.Fprintf(w, "ok    %s%s\n", c.Name(), note)
		return
	}
	fmt.Fprintf(w, "FAIL  %s (%s)\n", c.Name(), c.Fixture.File)
	for _, f := range c.Failures {
		fmt.Fprintf(w, "        %s\n", f)
	}
	if c.Screenshot != "" {
		fmt.Fprintf(w, "        screenshot: %s\n", rel(dir, c.Screenshot))
	}
}

var servingRE = regexp.MustCompile(`serving MCP.* at (http://\S+/mcp)`)

// serveConnector starts the built connector on a free port of 127.0.0.1 and
// returns its MCP endpoint and a func that stops it.
func serveConnector(ctx context.Context, bin string) (string, func(), error) {
	cmd := exec.Command(bin, "--addr", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("starting the connector: %w", err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	stop := func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}
	found := make(chan string, 1)
	var lines []string
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := servingRE.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			} else if len(lines) < 50 {
				lines = append(lines, sc.Text())
			}
		}
		close(found)
	}()
	select {
	case u, ok := <-found:
		if ok {
			return u, stop, nil
		}
		stop()
		return "", nil, fmt.Errorf("the connector exited without serving:\n%s", strings.Join(lines, "\n"))
	case <-time.After(30 * time.Second):
	case <-ctx.Done():
	}
	stop()
	return "", nil, fmt.Errorf("the connector did not start serving within 30s")
}
