package dev

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/generator/diag"
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

// Build runs `go build -o out .` and turns compiler output into diagnostics.
func (b GoBuilder) Build(ctx context.Context, out string) diag.List {
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, ".")
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
