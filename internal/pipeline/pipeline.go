// Package pipeline turns a connector's directory into its generated files, its
// bundled views and finally one binary. It is the single sequence that
// `mcpgen generate`, `mcpgen build` and `mcpgen dev` share: discover and bundle
// the views under ui/, generate Go code from the annotated handlers, write the
// TypeScript declarations the views import, write only the files whose bytes
// changed, and run `go build`.
package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"sort"
	"strings"

	"github.com/mcpgen/mcpgen/internal/buildinfo"

	"github.com/mcpgen/mcpgen/bundler"
	"github.com/mcpgen/mcpgen/generator"
	"github.com/mcpgen/mcpgen/generator/diag"
	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/generator/lint"
	"github.com/mcpgen/mcpgen/generator/tstypes"
	"github.com/mcpgen/mcpgen/internal/typecheck"
)

// DeclarationsFile is where the TypeScript declarations of the tools' inputs
// and outputs are written, relative to the module root, when the project has
// a ui/ directory.
const DeclarationsFile = tstypes.File

// Options configure a Project.
type Options struct {
	// Dir is the connector's module root (it holds go.mod). Relative paths
	// are made absolute.
	Dir string
	// Minify minifies the view bundles. The CLI minifies for generate and
	// build alike, so the generated files do not depend on which verb ran
	// last; the dev loop leaves bundles readable.
	Minify bool
	// Views, when set, supplies the bundled views to embed instead of
	// bundling ui/ here: the dev loop passes the views its front already
	// serves, so the connector it builds names the same view URIs. A nil
	// result means the views are only discovered (names, for ui= links).
	Views func() []ir.View
	// Stdout and Stderr receive the output of `go build`. Nil discards it.
	Stdout, Stderr io.Writer
	// TypeCheck makes Build type-check the views with the project's own
	// TypeScript compiler (when it has a tsconfig.json), beside go build;
	// type errors fail the build as diagnostics.
	TypeCheck bool
	// Version is stamped into the binary Build makes (its --version and
	// serverInfo); empty leaves the version the Go toolchain records from
	// version control.
	Version string
	// GOOS and GOARCH select the platform Build compiles for; empty means
	// the GOOS and GOARCH of the environment, else this machine's.
	GOOS, GOARCH string
	// Lint configures the directory-readiness checks (generator/lint).
	// The zero value takes what the environment states
	// (lint.ConfigFromEnv).
	Lint lint.Config
	// AllowLint lists the codes of lint rules whose findings Build lets
	// through although the rule fails the build (lint.Rule.FailsBuild).
	AllowLint []string
}

// Report says what one Generate or Build did.
type Report struct {
	// Dir is the absolute module root; file names below are relative to it.
	Dir string
	// Project is the generated connector model; nil when generation failed
	// before the model was built.
	Project *ir.Project
	// Views are the bundled views (nil when the project has none).
	Views []ir.View
	// Files are every generated file, relative to the module root, sorted.
	Files []string
	// Changed are the files written (or, under Check, the ones that would
	// be), relative to the module root, sorted.
	Changed []string
	// Diagnostics holds every problem found, warnings included, sorted by
	// position. When it holds an error, Generate and Build also return a
	// *diag.ListError carrying it.
	Diagnostics diag.List
	// Lint holds the directory-readiness findings with their own severity;
	// Diagnostics carries them as warnings.
	Lint []lint.Finding
	// Binary is the absolute path of the built binary (Build only).
	Binary string
}

// GenerateOptions change what one Generate call does.
type GenerateOptions struct {
	// Check computes the files without writing them; Report.Changed lists
	// those whose bytes differ from what is on disk.
	Check bool
}

// Project is a connector directory kept open across runs: it holds the
// incremental esbuild context of its views, so repeated Generate calls (as
// the dev loop makes) rebuild only what changed. A Project is not safe for
// concurrent use.
type Project struct {
	opts    Options
	bundler *bundler.Bundler
}

// CheckDir reports, in words that say how to fix it, why dir is not a
// connector's module root: it does not exist, is not a directory, or holds
// no go.mod.
func CheckDir(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	fi, err := os.Stat(abs)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%s does not exist: give the connector's directory (the one holding go.mod), or create one with `mcpgen new DIR`", abs)
	}
	if err != nil {
		return fmt.Errorf("project directory: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory: give the connector's directory (the one holding go.mod)", abs)
	}
	if _, err := os.Stat(filepath.Join(abs, "go.mod")); err != nil {
		return fmt.Errorf("%s has no go.mod: a connector is a Go module (create one with `mcpgen new DIR`)", abs)
	}
	return nil
}

// Open opens the project at opts.Dir. It checks that the directory holds a
// go.mod; it bundles nothing until Generate.
func Open(opts Options) (*Project, error) {
	if opts.Dir == "" {
		opts.Dir = "."
	}
	abs, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, err
	}
	opts.Dir = abs
	if err := CheckDir(abs); err != nil {
		return nil, err
	}
	if opts.Lint == (lint.Config{}) {
		opts.Lint = lint.ConfigFromEnv()
	}
	if opts.Stdout == nil {
		opts.Stdout = io.Discard
	}
	if opts.Stderr == nil {
		opts.Stderr = io.Discard
	}
	return &Project{opts: opts}, nil
}

// Dir returns the absolute module root.
func (p *Project) Dir() string { return p.opts.Dir }

// Close releases the bundler's resources.
func (p *Project) Close() {
	if p.bundler != nil {
		p.bundler.Close()
		p.bundler = nil
	}
}

// Generate bundles the views, generates the Go code and the view
// declarations, and writes the files whose bytes changed. Diagnostics are
// collected from every stage before anything is written: when any is an
// error, nothing is written and the returned error is a *diag.ListError.
func (p *Project) Generate(ctx context.Context, gopts GenerateOptions) (*Report, error) {
	rep := &Report{Dir: p.opts.Dir}
	views, vdiags, err := p.bundle(ctx)
	if err != nil {
		return rep, err
	}
	rep.Diagnostics.Append(vdiags)
	rep.Views = views

	res, gdiags := generator.Generate(ctx, generator.Config{Dir: p.opts.Dir, Views: views, Lint: p.opts.Lint})
	rep.Diagnostics.Append(gdiags)
	rep.Diagnostics.Sort()
	if err := ctx.Err(); err != nil {
		return rep, err
	}
	if res != nil {
		rep.Project = res.Project
		rep.Lint = res.Lint
	}
	if rep.Diagnostics.HasErrors() || res == nil {
		if !rep.Diagnostics.HasErrors() {
			return rep, errors.New("generation produced no result")
		}
		return rep, rep.Diagnostics.Err(p.opts.Dir)
	}

	files := append([]generator.File(nil), res.Files...)
	if p.hasUI() && res.Project != nil {
		files = append(files, generator.File{Path: DeclarationsFile, Contents: tstypes.Declarations(res.Project)})
	}
	for _, f := range files {
		rep.Files = append(rep.Files, filepath.ToSlash(f.Path))
	}
	sort.Strings(rep.Files)

	if gopts.Check {
		rep.Changed, err = generator.Changed(p.opts.Dir, files)
	} else {
		rep.Changed, err = generator.Write(p.opts.Dir, files)
	}
	for i, c := range rep.Changed {
		rep.Changed[i] = filepath.ToSlash(c)
	}
	sort.Strings(rep.Changed)
	return rep, err
}

// Build runs Generate and then `go build -o output .` in the module root,
// streaming the compiler's output (already file:line:col) to Options.Stderr.
// An empty output names the binary after the directory, inside it.
func (p *Project) Build(ctx context.Context, output string) (*Report, error) {
	rep, err := p.Generate(ctx, GenerateOptions{})
	if err != nil {
		return rep, err
	}
	if p.failBuild(rep) {
		return rep, rep.Diagnostics.Err(p.opts.Dir)
	}
	target := p.opts.GOOS
	if target == "" {
		target = os.Getenv("GOOS")
	}
	if target == "" {
		target = goruntime.GOOS
	}
	out, err := filepath.Abs(binaryPath(p.opts.Dir, output, target))
	if err != nil {
		return rep, err
	}
	rep.Binary = out
	// The type check runs beside the compiler; its errors fail the build
	// after go build has reported its own.
	var typeDiags diag.List
	var typeErr error
	typeDone := make(chan struct{})
	go func() {
		defer close(typeDone)
		if p.opts.TypeCheck && p.hasUI() {
			typeDiags, typeErr = typeCheck(ctx, p.opts.Dir)
		}
	}()
	err = p.goBuild(ctx, out, p.opts.GOOS, p.opts.GOARCH)
	<-typeDone
	if err != nil {
		return rep, err
	}
	if typeErr != nil {
		return rep, typeErr
	}
	rep.Diagnostics.Append(typeDiags)
	rep.Diagnostics.Sort()
	if typeDiags.HasErrors() {
		return rep, rep.Diagnostics.Err(p.opts.Dir)
	}
	return rep, nil
}

// hintAllowLint ends the fix of a lint finding that failed the build.
const hintAllowLint = "; to build anyway (say, for a host that does not go through the Anthropic API), add --allow-lint %s"

// BuildFailingLint lists the codes of the lint rules whose findings fail
// Build (for a caller that builds a binary only to test it).
func BuildFailingLint() []string {
	var codes []string
	for _, r := range lint.Rules() {
		if r.FailsBuild {
			codes = append(codes, r.Code)
		}
	}
	return codes
}

// failBuild turns the lint warnings of rules that fail the build (a tool
// name Claude cannot call) into errors, unless Options.AllowLint lets them
// through, and reports whether it did.
func (p *Project) failBuild(rep *Report) bool {
	failed := false
	for i, d := range rep.Diagnostics {
		r := lint.Lookup(d.Code)
		if r == nil || !r.FailsBuild || slices.Contains(p.opts.AllowLint, r.Code) {
			continue
		}
		rep.Diagnostics[i].Severity = diag.Error
		rep.Diagnostics[i].Hint += fmt.Sprintf(hintAllowLint, r.Code)
		failed = true
	}
	return failed
}

// typeCheck runs the project's TypeScript compiler over its views. A
// project whose compiler cannot run gets a warning: the check is skipped,
// not the build.
func typeCheck(ctx context.Context, dir string) (diag.List, error) {
	c, err := typecheck.Find(dir)
	if err != nil {
		var l diag.List
		l.Warnf(diag.Pos{File: filepath.Join(dir, "tsconfig.json")}, "typecheck-unavailable", "", "the views were not type-checked: %v", err)
		return l, nil
	}
	if c == nil {
		return nil, nil
	}
	return c.Check(ctx)
}

func (p *Project) goBuild(ctx context.Context, out, goos, goarch string) error {
	args, env, err := BuildCommand(p.opts.Version, goos, goarch)
	if err != nil {
		return err
	}
	args = append(args, "-o", out, ".")
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Dir = p.opts.Dir
	cmd.Stdout = p.opts.Stdout
	cmd.Stderr = p.opts.Stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return &BuildError{Dir: p.opts.Dir, ExitCode: ee.ExitCode()}
		}
		return fmt.Errorf("go build: %w", err)
	}
	return nil
}

// versionSymbol is the linker name of the variable in which a connector
// keeps a stamped version (internal/buildinfo).
const versionSymbol = buildinfo.Symbol

// BuildCommand returns the `go build` arguments (without -o and the
// package) and the environment additions that make a connector binary:
// static (no cgo, so it runs on any Linux and in a scratch or distroless
// image), without file-system paths or symbol tables (-trimpath, -s -w),
// with version stamped when it is not empty, for goos/goarch when given.
// The Dockerfile that `mcpgen new` writes runs the same command.
func BuildCommand(version, goos, goarch string) (args, env []string, err error) {
	ldflags := "-s -w"
	if version != "" {
		if strings.ContainsAny(version, " \t\n'\"`\\") {
			return nil, nil, fmt.Errorf("invalid --version %q: a version has no spaces or quotes (such as v1.2.3)", version)
		}
		ldflags += " -X " + versionSymbol + "=" + version
	}
	env = []string{"CGO_ENABLED=0"}
	if goos != "" {
		env = append(env, "GOOS="+goos)
	}
	if goarch != "" {
		env = append(env, "GOARCH="+goarch)
	}
	return []string{"build", "-trimpath", "-ldflags", ldflags}, env, nil
}

// BuildError reports that `go build` failed; its output went to Stderr.
type BuildError struct {
	Dir      string
	ExitCode int
}

func (e *BuildError) Error() string {
	return fmt.Sprintf("go build failed in %s (exit status %d)", e.Dir, e.ExitCode)
}

// Generate opens the project at opts.Dir, generates it once and closes it.
func Generate(ctx context.Context, opts Options, gopts GenerateOptions) (*Report, error) {
	p, err := Open(opts)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	return p.Generate(ctx, gopts)
}

// binaryPath is where Build writes the binary of the project in dir for
// GOOS target: output, or DIR/<name of DIR> (.exe for Windows) when output
// is empty, or that name inside output when output is a directory (it
// exists as one, or ends with a slash), as go build -o does, so that what
// mcpgen prints is the binary's own path.
func binaryPath(dir, output, target string) string {
	name := filepath.Base(dir)
	if target == "windows" {
		name += ".exe"
	}
	if output == "" {
		return filepath.Join(dir, name)
	}
	if strings.HasSuffix(output, "/") || strings.HasSuffix(output, string(filepath.Separator)) {
		return filepath.Join(output, name)
	}
	if fi, err := os.Stat(output); err == nil && fi.IsDir() {
		return filepath.Join(output, name)
	}
	return output
}

// Build opens the project at opts.Dir, builds it once into output and
// closes it.
func Build(ctx context.Context, opts Options, output string) (*Report, error) {
	p, err := Open(opts)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	return p.Build(ctx, output)
}

func (p *Project) hasUI() bool {
	fi, err := os.Stat(filepath.Join(p.opts.Dir, "ui"))
	return err == nil && fi.IsDir()
}

// bundle rebuilds the views, keeping one incremental bundler for the
// project's lifetime (the bundler rediscovers ui/ on every rebuild).
func (p *Project) bundle(ctx context.Context) ([]ir.View, diag.List, error) {
	if p.opts.Views != nil {
		return p.opts.Views(), nil, nil
	}
	entries, err := bundler.Discover(p.opts.Dir)
	if err != nil {
		var le *diag.ListError
		if errors.As(err, &le) {
			return nil, le.List, nil
		}
		return nil, nil, fmt.Errorf("discovering views: %w", err)
	}
	if len(entries) == 0 {
		p.Close()
		return nil, nil, nil
	}
	if p.bundler == nil {
		b, err := bundler.New(bundler.Options{Dir: p.opts.Dir, Minify: p.opts.Minify})
		if err != nil {
			return nil, nil, fmt.Errorf("starting the view bundler: %w", err)
		}
		p.bundler = b
	}
	views, diags := p.bundler.Rebuild(ctx)
	return views, diags, nil
}
