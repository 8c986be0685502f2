// Package check lets a connector's own tests fail when its generated files
// no longer match its sources: a tool added, a directive or signature
// changed, or a view edited without running `go generate` (mcpgen
// generate). Without it a plain `go build` or `go test` silently uses the
// stale registrations, and the new tool is missing. It runs mcpgen's
// generator in-process in check mode (nothing is written), offline.
package check

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpgen/mcpgen/generator/diag"
	"github.com/mcpgen/mcpgen/internal/pipeline"
)

// Stale returns the generated files (relative to dir, the module root) that
// mcpgen generate would change. An error means generation itself failed:
// its diagnostics are in the message, at file:line:col.
func Stale(ctx context.Context, dir string) ([]string, error) {
	rep, err := pipeline.Generate(ctx, pipeline.Options{Dir: dir, Minify: true}, pipeline.GenerateOptions{Check: true})
	if err != nil {
		var le *diag.ListError
		if errors.As(err, &le) {
			return nil, fmt.Errorf("mcpgen generate would fail:\n%v", le)
		}
		return nil, err
	}
	return rep.Changed, nil
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
