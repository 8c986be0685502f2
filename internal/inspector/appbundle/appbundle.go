// Package appbundle turns the inspector's TypeScript/React source
// (internal/inspector/app) into the one self-contained HTML document the
// inspector embeds: esbuild's Go API bundles app/src/main.tsx with the
// npm packages of app/node_modules (installed by scripts/setup.sh), and
// bundler.Document inlines the script and style. Its output is committed,
// so building or running mcpgen never needs Node.
package appbundle

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/evanw/esbuild/pkg/api"

	"github.com/mcpgen/mcpgen/bundler"
	"github.com/mcpgen/mcpgen/internal/browserbundle"
)

// AppDir is internal/inspector/app in this source tree.
func AppDir() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		panic("appbundle: no caller information")
	}
	return filepath.Join(filepath.Dir(file), "..", "app")
}

// ErrNoModules is returned when app/node_modules is missing.
type ErrNoModules struct{ Dir string }

func (e *ErrNoModules) Error() string {
	return fmt.Sprintf("%s is missing: run scripts/setup.sh (or npm ci in %s)", filepath.Join(e.Dir, "node_modules"), e.Dir)
}

// Build bundles dir/src/main.tsx into the inspector's index.html.
func Build(dir string) ([]byte, error) {
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "react", "package.json")); err != nil {
		return nil, &ErrNoModules{Dir: dir}
	}
	o := browserbundle.Options()
	o.EntryPoints = []string{filepath.Join(dir, "src", "main.tsx")}
	o.AbsWorkingDir = dir
	o.Outdir = filepath.Join(dir, "out")
	o.Format = api.FormatIIFE
	o.Target = api.ES2022
	o.MinifyWhitespace, o.MinifyIdentifiers, o.MinifySyntax = true, true, true
	o.LegalComments = api.LegalCommentsEndOfFile
	o.Charset = api.CharsetUTF8
	res := api.Build(o)
	if err := browserbundle.Error("bundling the inspector", res.Errors); err != nil {
		return nil, err
	}
	var js, css []byte
	for _, f := range res.OutputFiles {
		switch filepath.Ext(f.Path) {
		case ".js":
			js = f.Contents
		case ".css":
			css = f.Contents
		}
	}
	if js == nil {
		return nil, fmt.Errorf("bundling the inspector: esbuild wrote no script")
	}
	return []byte(bundler.Document("inspector", "mcpgen inspector", js, css)), nil
}
