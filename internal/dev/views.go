package dev

import (
	"context"
	"errors"

	"github.com/mcpgen/mcpgen/bundler"
	"github.com/mcpgen/mcpgen/generator/diag"
	"github.com/mcpgen/mcpgen/generator/ir"
)

// Views bundles a project's views. Rebuild is incremental (it is called
// after every view edit and must be fast) and rediscovers ui/ itself, so
// views added or removed later are picked up.
type Views interface {
	Rebuild(ctx context.Context) ([]ir.View, diag.List)
	Close()
}

// ViewsFunc makes the Views of a project directory. It returns nil, nil
// when the project has no views.
type ViewsFunc func(dir string) (Views, error)

// bundlerViews makes the project's view bundler (package bundler), or
// nil when it has no views yet.
func bundlerViews(dir string) (Views, error) {
	entries, err := bundler.Discover(dir)
	if err != nil {
		var le *diag.ListError
		if errors.As(err, &le) {
			// Let Rebuild report the problems with their positions.
			entries = append(entries, bundler.Entry{})
		} else {
			return nil, err
		}
	}
	if len(entries) == 0 {
		return nil, nil
	}
	// Minified like mcpgen generate's bundles: the dev loop writes them into
	// mcpgen_views_gen.go when it regenerates, and a dev session must leave
	// the same generated files as mcpgen generate (or --check fails after
	// it). esbuild minifies in a few milliseconds.
	b, err := bundler.New(bundler.Options{Dir: dir, Minify: true})
	if err != nil {
		return nil, err
	}
	return b, nil
}
