// Package check lets a connector's own tests fail when its generated files
// no longer match its sources: a tool added, a directive or signature
// changed, or a view edited without running `go generate` (mcpgen
// generate). Without it a plain `go build` or `go test` silently uses the
// stale registrations, and the new tool is missing.
//
// It runs the mcpgen the connector's go.mod pins (`go run
// github.com/mcpgen/mcpgen/cmd/mcpgen generate --check`, the build cached by
// the go command) in check mode: nothing is written, and nothing is fetched
// beyond what the module already needs. It runs the generator in a child
// process on purpose: linking it into the connector's test binary would link
// go/packages, the whole generator and esbuild into every `go test`.
package check

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// command is the mcpgen the connector's go.mod pins, run by the go command.
var command = []string{"go", "run", "github.com/mcpgen/mcpgen/cmd/mcpgen"}

// outOfDate ends each line `mcpgen generate --check` writes for a stale file.
const outOfDate = ": out of date"

// Stale returns the generated files (relative to dir, the module root) that
// mcpgen generate would change. An error means generation itself failed:
// its diagnostics are in the message, at file:line:col.
func Stale(ctx context.Context, dir string) ([]string, error) {
	args := append(command[1:len(command):len(command)], "generate", "--check")
	cmd := exec.CommandContext(ctx, command[0], args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err == nil {
		return nil, nil
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return nil, fmt.Errorf("running %s generate --check in %s: %w", strings.Join(command, " "), dir, err)
	}
	var stale []string
	sc := bufio.NewScanner(bytes.NewReader(stderr.Bytes()))
	for sc.Scan() {
		if f, ok := strings.CutSuffix(sc.Text(), outOfDate); ok && !strings.ContainsAny(f, " \t") {
			stale = append(stale, f)
		}
	}
	if ee.ExitCode() == 1 && len(stale) > 0 {
		return stale, nil
	}
	// go run adds its own "exit status N" line to mcpgen's diagnostics.
	msg := strings.TrimRight(stdout.String()+stderr.String(), "\n")
	if i := strings.LastIndexByte(msg, '\n'); i >= 0 && strings.HasPrefix(msg[i+1:], "exit status ") {
		msg = msg[:i]
	}
	return nil, fmt.Errorf("mcpgen generate would fail:\n%s", msg)
}

// T is the part of *testing.T that Generated uses.
type T interface {
	Helper()
	Fatalf(format string, args ...any)
}

// Generated fails t when the generated files in dir (the module root,
// usually ".") are stale or cannot be generated, naming them and the fix.
func Generated(t T, dir string) {
	t.Helper()
	stale, err := Stale(context.Background(), dir)
	if err != nil {
		t.Fatalf("%v", err)
	}
	if len(stale) > 0 {
		t.Fatalf("generated files are out of date with the sources: %s\n"+
			"run `go generate` (or `mcpgen generate`) in the module root and commit the result",
			strings.Join(stale, ", "))
	}
}
