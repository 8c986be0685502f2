// Package generator turns a connector's module directory into the Go files
// mcpgen generates (mcpgen_gen.go and mcpgen_views_gen.go) plus every
// diagnostic found on the way. It ties together load, directive, parse,
// schema and emit; Write commits the files, touching only those whose bytes
// changed, so the Go build cache stays warm.
package generator

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/mcpgen/mcpgen/generator/diag"
	"github.com/mcpgen/mcpgen/generator/emit"
	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/generator/lint"
	"github.com/mcpgen/mcpgen/generator/load"
	"github.com/mcpgen/mcpgen/generator/meta"
	"github.com/mcpgen/mcpgen/generator/parse"
)

// The generated files, relative to the module root.
const (
	GenFile      = load.GenFile
	ViewsGenFile = load.ViewsGenFile
)

// Config says what to generate.
type Config struct {
	// Dir is the module root (it holds go.mod); its package is package main.
	Dir string
	// Views are the bundled views. When nil, the views under ui/ are only
	// discovered: ui= options are checked against their names and
	// mcpgen_views_gen.go lists them with URI ui://NAME and no HTML.
	Views []ir.View
	// Lint is what the directory-readiness checks know beyond the source
	// (generator/lint). Their findings are added to the diagnostics as
	// warnings: they never stop generation.
	Lint lint.Config
}

// File is one generated file.
type File struct {
	Path     string // relative to Config.Dir
	Contents []byte
}

// Result is what Generate produces.
type Result struct {
	Project *ir.Project
	Files   []File
	// Lint holds the directory-readiness findings with their own severity
	// (the diagnostics Generate returns carry them as warnings).
	Lint []lint.Finding
}

// IR returns the project as indented JSON, for debugging and golden tests.
func (r *Result) IR() []byte {
	b, err := json.MarshalIndent(r.Project, "", "  ")
	if err != nil {
		// The IR is plain data; failing to marshal it is a bug in mcpgen.
		panic("generator: marshalling the IR: " + err.Error())
	}
	return append(b, '\n')
}

// Generate loads the module at cfg.Dir and generates its files. The result
// is nil when any error was found; the diagnostics (errors and warnings,
// lint findings among them) are sorted by position.
func Generate(ctx context.Context, cfg Config) (*Result, diag.List) {
	var diags diag.List
	prog, ok := load.Load(ctx, cfg.Dir, &diags)
	if !ok || prog == nil {
		if prog != nil {
			parse.CheckDirectives(prog, &diags)
		}
		diags.Sort()
		return nil, diags
	}
	views := cfg.Views
	if views == nil {
		views = parse.DiscoverViews(prog.Dir)
		for i := range views {
			views[i].URI = "ui://" + views[i].Name
		}
	}
	proj, ok := parse.Parse(prog, parse.Options{Views: views}, &diags)
	before := len(diags)
	if proj != nil {
		proj.Meta = meta.Load(prog.Dir, prog.Module, &diags)
		if proj.Meta != nil && proj.Version == "" {
			proj.Version = proj.Meta.Version
		}
	}
	if !ok || diags[before:].HasErrors() {
		diags.Sort()
		return nil, diags
	}
	app, err := emit.App(proj)
	if err != nil {
		diags.Errorf(diag.Pos{File: prog.Dir}, "emit", hintEmit, msgEmit, GenFile, err)
		return nil, diags
	}
	vs, err := emit.Views(proj)
	if err != nil {
		diags.Errorf(diag.Pos{File: prog.Dir}, "emit", hintEmit, msgEmit, ViewsGenFile, err)
		return nil, diags
	}
	findings := lint.Check(proj, cfg.Lint)
	diags.Append(lint.Diagnostics(findings, true))
	diags.Sort()
	return &Result{Project: proj, Files: []File{{Path: GenFile, Contents: app}, {Path: ViewsGenFile, Contents: vs}}, Lint: findings}, diags
}

// Changed lists the files whose contents differ from what is in dir (or
// that do not exist there), without writing anything.
func Changed(dir string, files []File) ([]string, error) {
	var changed []string
	for _, f := range files {
		old, err := os.ReadFile(filepath.Join(dir, f.Path))
		if err != nil && !os.IsNotExist(err) {
			return changed, err
		}
		if err != nil || !bytes.Equal(old, f.Contents) {
			changed = append(changed, f.Path)
		}
	}
	return changed, nil
}

// Write writes files into dir, skipping those whose bytes are already
// there, and reports which it wrote. It removes nothing.
func Write(dir string, files []File) (changed []string, err error) {
	todo, err := Changed(dir, files)
	if err != nil {
		return nil, err
	}
	byPath := map[string][]byte{}
	for _, f := range files {
		byPath[f.Path] = f.Contents
	}
	for _, p := range todo {
		if err := writeFile(filepath.Join(dir, p), byPath[p]); err != nil {
			return changed, err
		}
		changed = append(changed, p)
	}
	return changed, nil
}

// writeFile replaces path atomically, so a concurrent go build never sees a
// half-written file.
func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".mcpgen-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
