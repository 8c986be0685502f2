// Package typecheck runs the TypeScript compiler a connector project
// installed (node_modules/typescript) over its views, as `tsc --noEmit`
// does, and turns the compiler's errors into diagnostics at file:line:col.
// mcpgen's bundler strips types without checking them; this is the check.
package typecheck

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/generator/diag"
)

// Checker runs one project's TypeScript compiler.
type Checker struct {
	Dir  string // absolute module root, holding tsconfig.json
	Node string // the node binary
	TSC  string // node_modules/typescript/bin/tsc
}

// Find returns the Checker of the project at dir, or nil when the project
// does not use TypeScript (it has no tsconfig.json). A project with a
// tsconfig.json whose compiler or Node cannot be found gets an error that
// says how to install it. Node is $MCPGEN_NODE when set, else node on PATH.
func Find(dir string) (*Checker, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(abs, "tsconfig.json")); err != nil {
		return nil, nil
	}
	tsc := filepath.Join(abs, "node_modules", "typescript", "bin", "tsc")
	if _, err := os.Stat(tsc); err != nil {
		return nil, fmt.Errorf(msgNoTypeScript, abs)
	}
	node := os.Getenv("MCPGEN_NODE")
	if node == "" {
		if node, err = exec.LookPath("node"); err != nil {
			return nil, errors.New(msgNoNode)
		}
	}
	return &Checker{Dir: abs, Node: node, TSC: tsc}, nil
}

// Check type-checks the project (tsc -p . --noEmit --pretty false in its
// root) and returns the compiler's errors as diagnostics with absolute
// paths. The error is for a compiler that could not run or crashed, not for
// type errors.
func (c *Checker) Check(ctx context.Context) (diag.List, error) {
	cmd := exec.CommandContext(ctx, c.Node, c.TSC, "-p", ".", "--noEmit", "--pretty", "false")
	cmd.Dir = c.Dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	diags := Parse(c.Dir, out.Bytes())
	var ee *exec.ExitError
	switch {
	case err == nil:
		return diags, nil
	case errors.As(err, &ee) && len(diags) > 0:
		return diags, nil
	case errors.As(err, &ee):
		return nil, fmt.Errorf("tsc exited with status %d without a diagnostic:\n%s", ee.ExitCode(), strings.TrimSpace(out.String()))
	}
	return nil, fmt.Errorf("running tsc: %w", err)
}

// tsc --pretty false: "ui/card.tsx(7,20): error TS2551: Property ..." and,
// for problems without a place, "error TS5058: The specified path ...";
// explanations follow on lines indented by two spaces.
var (
	posLine  = regexp.MustCompile(`^(.+)\((\d+),(\d+)\): (error|warning) (TS\d+): (.*)$`)
	bareLine = regexp.MustCompile(`^(error|warning) (TS\d+): (.*)$`)
)

// Parse turns tsc's output (--pretty false), run in dir, into diagnostics.
// File names become absolute; the explanation lines of a message become its
// hint; the TypeScript code (TS2551) is the diagnostic's code.
func Parse(dir string, out []byte) diag.List {
	var diags diag.List
	var cur *diag.Diagnostic
	flush := func() {
		if cur != nil {
			diags.Add(*cur)
			cur = nil
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if m := posLine.FindStringSubmatch(line); m != nil {
			flush()
			l, _ := strconv.Atoi(m[2])
			col, _ := strconv.Atoi(m[3])
			file := m[1]
			if !filepath.IsAbs(file) {
				file = filepath.Join(dir, filepath.FromSlash(file))
			}
			cur = &diag.Diagnostic{Pos: diag.Pos{File: file, Line: l, Col: col}, Severity: severity(m[4]),
				Code: m[5], Message: m[6] + " (" + m[5] + ")"}
			continue
		}
		if m := bareLine.FindStringSubmatch(line); m != nil {
			flush()
			cur = &diag.Diagnostic{Pos: diag.Pos{File: filepath.Join(dir, "tsconfig.json")}, Severity: severity(m[1]),
				Code: m[2], Message: m[3] + " (" + m[2] + ")"}
			continue
		}
		if cur != nil && strings.HasPrefix(line, "  ") {
			h := strings.TrimSpace(line)
			if cur.Hint != "" {
				cur.Hint += "\n\t"
			}
			cur.Hint += h
		}
	}
	flush()
	diags.Sort()
	return diags
}

func severity(s string) diag.Severity {
	if s == "warning" {
		return diag.Warning
	}
	return diag.Error
}
