package dev

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/generator"
	"github.com/mcpgen/mcpgen/generator/diag"
	"github.com/mcpgen/mcpgen/generator/emit"
	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/internal/pipeline"
)

// Builder turns the project's Go sources into a connector binary at out.
// A build that fails returns error diagnostics and leaves out untouched.
type Builder interface {
	Build(ctx context.Context, out string) diag.List
}

// GoBuilder builds with `go build` in Dir. It is the default until a project
// pipeline (generate, then build) is plugged in through Options.Builder.
type GoBuilder struct {
	Dir string
	Env []string // extra environment, e.g. GOFLAGS=-mod=mod
}

// devBuildFlags make a development build link faster: no DWARF and no
// symbol table (-s -w; panics still print file:line, which pclntab keeps),
// and no VCS stamping (which runs git on every build).
var devBuildFlags = []string{"-ldflags=-s -w", "-buildvcs=false"}

// Build runs `go build -o out .` and turns compiler output into diagnostics.
func (b GoBuilder) Build(ctx context.Context, out string) diag.List {
	args := append(append([]string{"build"}, devBuildFlags...), "-o", out, ".")
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = b.Dir
	cmd.Env = append(os.Environ(), b.Env...)
	var stderr bytes.Buffer
	cmd.Stdout = &stderr
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		var l diag.List
		l.Append(parseGoErrors(b.Dir, stderr.String()))
		if !l.HasErrors() {
			msg := strings.TrimSpace(stderr.String())
			if msg == "" {
				msg = err.Error()
			}
			l.Errorf(diag.Pos{}, "go-build", "", "go build: %s", msg)
		}
		return l
	}
	return nil
}

// goErrorLine matches the toolchain's "file.go:12:5: message" lines.
var goErrorLine = regexp.MustCompile(`^(\S+?\.(?:go|s|c|mod)):(\d+)(?::(\d+))?: (.*)$`)

// parseGoErrors turns `go build` / `go vet` output into diagnostics with
// absolute paths, so they render relative to the project like every other
// diagnostic. Lines that are not positioned (package headers, "too many
// errors") are dropped; a continuation line (indented) joins the hint.
func parseGoErrors(dir, out string) diag.List {
	var l diag.List
	for _, line := range strings.Split(out, "\n") {
		if m := goErrorLine.FindStringSubmatch(line); m != nil {
			file := m[1]
			if !filepath.IsAbs(file) {
				file = filepath.Join(dir, file)
			}
			ln, _ := strconv.Atoi(m[2])
			col, _ := strconv.Atoi(m[3])
			l.Errorf(diag.Pos{File: file, Line: ln, Col: col}, "compile", "", "%s", m[4])
			continue
		}
		if len(l) > 0 && strings.HasPrefix(line, "\t") {
			d := &l[len(l)-1]
			if d.Hint != "" {
				d.Hint += "\n\t"
			}
			d.Hint += strings.TrimSpace(line)
		}
	}
	return l
}

// PipelineBuilder builds an mcpgen connector with the shared pipeline
// (package pipeline): bundle, generate, write only changed bytes (which
// keeps the Go build cache warm), `go build`. The project stays open, so
// its view bundler stays incremental. When only function bodies changed
// since the last successful generation, generation is skipped (see
// skeletons).
type PipelineBuilder struct {
	dir  string
	proj *pipeline.Project

	skel      skeletons
	generated string // fingerprint of the last successful generation

	mu     sync.Mutex
	phases string      // the timing of the last build, for the terminal
	model  *ir.Project // of the last successful generation, for WriteViews
}

// WriteViews rewrites the generated views file (mcpgen_views_gen.go) with
// views, from the model of the last successful generation, without
// generating again: the dev loop swaps view edits in the front without a
// build, and the file on disk must still match what mcpgen generate writes.
// It writes nothing before the first generation or when the bytes are the
// same.
func (b *PipelineBuilder) WriteViews(views []ir.View) error {
	b.mu.Lock()
	model := b.model
	b.mu.Unlock()
	if model == nil {
		return nil
	}
	p := *model
	p.Views = append([]ir.View(nil), views...)
	sort.Slice(p.Views, func(i, j int) bool { return p.Views[i].Name < p.Views[j].Name })
	src, err := emit.Views(&p)
	if err != nil {
		return err
	}
	_, err = generator.Write(b.dir, []generator.File{{Path: generator.ViewsGenFile, Contents: src}})
	return err
}

// Phases describes where the last build's time went.
func (b *PipelineBuilder) Phases() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.phases
}

func (b *PipelineBuilder) setPhases(format string, args ...any) {
	b.mu.Lock()
	b.phases = fmt.Sprintf(format, args...)
	b.mu.Unlock()
}

// NewPipelineBuilder opens the project at dir.
func NewPipelineBuilder(dir string) (*PipelineBuilder, error) {
	// Minified, as mcpgen generate writes them: see bundlerViews.
	p, err := pipeline.Open(pipeline.Options{Dir: dir, Minify: true})
	if err != nil {
		return nil, err
	}
	return &PipelineBuilder{dir: p.Dir(), proj: p}, nil
}

// Close releases the project's bundler.
func (b *PipelineBuilder) Close() error {
	b.proj.Close()
	return nil
}

// Build generates (unless only function bodies changed) and builds into out.
func (b *PipelineBuilder) Build(ctx context.Context, out string) diag.List {
	start := time.Now()
	fp, fpErr := b.skel.fingerprint(b.dir)
	if fpErr == nil && fp == b.generated {
		d := GoBuilder{Dir: b.dir}.Build(ctx, out)
		b.setPhases("go build %s; only function bodies changed, generation skipped", round(time.Since(start)))
		return d
	}
	rep, err := b.proj.Generate(ctx, pipeline.GenerateOptions{})
	gen := time.Since(start)
	b.setPhases("generate %s", round(gen))
	var diags diag.List
	if rep != nil {
		diags = rep.Diagnostics
	}
	if err != nil {
		if !diags.HasErrors() {
			diags.Errorf(diag.Pos{File: b.dir}, "generate", "", "%v", err)
		}
		return diags
	}
	if fpErr == nil {
		b.generated = fp
	}
	b.mu.Lock()
	b.model = rep.Project
	b.mu.Unlock()
	bstart := time.Now()
	diags.Append(GoBuilder{Dir: b.dir}.Build(ctx, out))
	b.setPhases("generate %s, go build %s", round(gen), round(time.Since(bstart)))
	return diags
}

// defaultBuilder picks PipelineBuilder for a project that requires mcpgen,
// and a plain `go build` for any other Go MCP server.
func defaultBuilder(dir string) (Builder, error) {
	if mod, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && requires(string(mod), mcpgenModule) {
		return NewPipelineBuilder(dir)
	}
	return GoBuilder{Dir: dir}, nil
}

const mcpgenModule = "github.com/mcpgen/mcpgen"

// requires reports whether go.mod text requires module path (in a
// one-line require or inside a require block).
func requires(gomod, path string) bool {
	block := false
	for _, line := range strings.Split(gomod, "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 0 || strings.HasPrefix(f[0], "//"):
		case block && f[0] == ")":
			block = false
		case block:
			if f[0] == path {
				return true
			}
		case f[0] == "require" && len(f) >= 2 && f[1] == "(":
			block = true
		case f[0] == "require" && len(f) >= 2 && f[1] == path:
			return true
		}
	}
	return false
}
