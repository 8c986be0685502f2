// Package bundler turns a project's views (ui/NAME.tsx, ui/NAME/index.tsx)
// into one self-contained HTML document each, with React, the view's code and
// its CSS inline, using esbuild's Go API with one incremental context per
// project. Views import the virtual module "mcpgen/ui" (runtime/ui), which the
// bundler provides itself; React resolves from the project's node_modules.
package bundler

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/evanw/esbuild/pkg/api"

	"github.com/mcpgen/mcpgen/generator/diag"
	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/runtime/ui"
)

// Options configure a Bundler.
type Options struct {
	// Dir is the module root: it holds ui/ and the package.json whose
	// node_modules provides react and react-dom.
	Dir string
	// Minify produces the production bundle (minified, React's production
	// build). Without it, bundles are readable and use React's development
	// build, which reports mistakes in the browser console.
	Minify bool
	// NodePaths are extra directories searched for bare imports (react, ...)
	// after the project's own node_modules.
	NodePaths []string
}

// Bundler bundles the views of one project. Its methods may be called from
// several goroutines; builds run one at a time.
type Bundler struct {
	opts Options

	mu      sync.Mutex
	entries []Entry
	ctx     api.BuildContext
	closed  bool
}

// New returns a Bundler for the project at opts.Dir. Nothing is built until
// Rebuild.
func New(opts Options) (*Bundler, error) {
	if opts.Dir == "" {
		return nil, fmt.Errorf("bundler: Options.Dir is empty")
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("bundler: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("bundler: %s is not a directory", dir)
	}
	opts.Dir = dir
	return &Bundler{opts: opts}, nil
}

// Close releases the esbuild context.
func (b *Bundler) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.dispose()
	b.closed = true
}

func (b *Bundler) dispose() {
	if b.ctx != nil {
		b.ctx.Dispose()
		b.ctx = nil
	}
}

// Rebuild bundles every view of the project and returns them sorted by name.
// It rediscovers ui/ first, so views added or removed since the last call are
// picked up; otherwise esbuild only re-reads the files that changed. When any
// error is reported no views are returned: callers keep their last good ones.
func (b *Bundler) Rebuild(ctx context.Context) ([]ir.View, diag.List) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var diags diag.List
	if b.closed {
		diags.Errorf(diag.Pos{}, "bundler-closed", "", "bundler: Rebuild after Close")
		return nil, diags
	}
	if err := ctx.Err(); err != nil {
		diags.Errorf(diag.Pos{}, "canceled", "", "bundler: %v", err)
		return nil, diags
	}
	entries, err := Discover(b.opts.Dir)
	if err != nil {
		if le, ok := err.(*diag.ListError); ok {
			return nil, le.List
		}
		diags.Errorf(diag.Pos{File: filepath.Join(b.opts.Dir, "ui")}, "read-ui", "", "cannot list views: %v", err)
		return nil, diags
	}
	if len(entries) == 0 {
		b.dispose()
		b.entries = nil
		return nil, nil
	}
	if b.ctx == nil || !slices.Equal(entries, b.entries) {
		b.dispose()
		c, cerr := api.Context(b.buildOptions(entries))
		if cerr != nil {
			for _, m := range cerr.Errors {
				diags.Add(b.message(m, diag.Error))
			}
			if len(diags) == 0 {
				diags.Errorf(diag.Pos{}, "esbuild", "", "esbuild: cannot create a build context")
			}
			return nil, diags
		}
		b.ctx = c
		b.entries = entries
	}

	stop := context.AfterFunc(ctx, b.ctx.Cancel)
	res := b.ctx.Rebuild()
	stop()

	for _, m := range res.Errors {
		diags.Add(b.message(m, diag.Error))
	}
	for _, m := range res.Warnings {
		diags.Add(b.message(m, diag.Warning))
	}
	diags = b.dedupeMissingReact(diags)
	views := make([]ir.View, 0, len(entries))
	for _, e := range entries {
		abs := filepath.Join(b.opts.Dir, filepath.FromSlash(e.File))
		src, err := os.ReadFile(abs)
		if err != nil {
			diags.Errorf(diag.Pos{File: abs}, "read-view", "", "cannot read view: %v", err)
			continue
		}
		meta := ParseMeta(abs, src, &diags)
		views = append(views, ir.View{Name: e.Name, File: e.File, Meta: meta})
	}
	if ctx.Err() != nil && !diags.HasErrors() {
		diags.Errorf(diag.Pos{}, "canceled", "", "bundler: %v", ctx.Err())
	}
	diags.Sort()
	if diags.HasErrors() {
		return nil, diags
	}

	outs := map[string]map[string][]byte{} // view name → extension → contents
	for _, f := range res.OutputFiles {
		rel, err := filepath.Rel(b.outdir(), f.Path)
		if err != nil {
			continue
		}
		ext := filepath.Ext(rel)
		name := strings.TrimSuffix(filepath.ToSlash(rel), ext)
		if outs[name] == nil {
			outs[name] = map[string][]byte{}
		}
		outs[name][ext] = f.Contents
	}
	for i := range views {
		v := &views[i]
		o := outs[v.Name]
		if o == nil || o[".js"] == nil {
			diags.Errorf(diag.Pos{File: filepath.Join(b.opts.Dir, v.File)}, "no-output", "", "esbuild produced no output for view %s", v.Name)
			continue
		}
		v.HTML = Document(v.Name, v.Meta.Title, o[".js"], o[".css"])
		sum := sha256.Sum256([]byte(v.HTML))
		v.Hash = hex.EncodeToString(sum[:])[:16]
		v.URI = "ui://" + v.Name + "/" + v.Hash
	}
	if diags.HasErrors() {
		return nil, diags
	}
	return views, diags
}

// outdir is where esbuild would write; with Write false it only names the
// output files.
func (b *Bundler) outdir() string { return filepath.Join(b.opts.Dir, ".mcpgen", "views") }

const (
	nsEntry = "mcpgen-entry"
	nsUI    = "mcpgen-ui"
)

func (b *Bundler) buildOptions(entries []Entry) api.BuildOptions {
	eps := make([]api.EntryPoint, len(entries))
	for i, e := range entries {
		eps[i] = api.EntryPoint{InputPath: "mcpgen-entry:" + e.Name, OutputPath: e.Name}
	}
	mode := "development"
	if b.opts.Minify {
		mode = "production"
	}
	o := api.BuildOptions{
		EntryPointsAdvanced: eps,
		AbsWorkingDir:       b.opts.Dir,
		Outdir:              b.outdir(),
		Write:               false,
		Bundle:              true,
		Format:              api.FormatIIFE,
		Platform:            api.PlatformBrowser,
		Target:              api.ES2020,
		JSX:                 api.JSXAutomatic,
		Define:              map[string]string{"process.env.NODE_ENV": `"` + mode + `"`},
		NodePaths:           b.opts.NodePaths,
		LogLevel:            api.LogLevelSilent,
		Charset:             api.CharsetASCII,
		// Both are esbuild's defaults; they are stated because the bundle is
		// inlined into <script> and <style>: esbuild then escapes any
		// "</script" and "</style" in the code.
		Supported: map[string]bool{"inline-script": true, "inline-style": true},
		Loader: map[string]api.Loader{
			".png": api.LoaderDataURL, ".jpg": api.LoaderDataURL, ".jpeg": api.LoaderDataURL,
			".gif": api.LoaderDataURL, ".svg": api.LoaderDataURL, ".webp": api.LoaderDataURL,
			".woff": api.LoaderDataURL, ".woff2": api.LoaderDataURL,
		},
		Plugins: []api.Plugin{b.plugin()},
	}
	if b.opts.Minify {
		o.MinifyWhitespace, o.MinifyIdentifiers, o.MinifySyntax = true, true, true
		o.LegalComments = api.LegalCommentsNone
	}
	return o
}

// plugin provides the generated entries and the virtual module "mcpgen/ui".
func (b *Bundler) plugin() api.Plugin {
	dir := b.opts.Dir
	return api.Plugin{Name: "mcpgen", Setup: func(pb api.PluginBuild) {
		pb.OnResolve(api.OnResolveOptions{Filter: `^mcpgen-entry:`}, func(a api.OnResolveArgs) (api.OnResolveResult, error) {
			return api.OnResolveResult{Path: strings.TrimPrefix(a.Path, "mcpgen-entry:"), Namespace: nsEntry}, nil
		})
		pb.OnResolve(api.OnResolveOptions{Filter: `^mcpgen/ui$`}, func(api.OnResolveArgs) (api.OnResolveResult, error) {
			return api.OnResolveResult{Path: "index.ts", Namespace: nsUI}, nil
		})
		pb.OnResolve(api.OnResolveOptions{Filter: `^mcpgen:mount$`}, func(api.OnResolveArgs) (api.OnResolveResult, error) {
			return api.OnResolveResult{Path: "mount.ts", Namespace: nsUI}, nil
		})
		pb.OnLoad(api.OnLoadOptions{Filter: `.*`, Namespace: nsEntry}, func(a api.OnLoadArgs) (api.OnLoadResult, error) {
			name := a.Path
			file := ""
			for _, e := range b.entries {
				if e.Name == name {
					file = filepath.Join(dir, filepath.FromSlash(e.File))
				}
			}
			q, _ := json.Marshal(file)
			n, _ := json.Marshal(name)
			src := fmt.Sprintf("import { mount } from \"mcpgen:mount\";\nimport View from %s;\nmount(%s, View);\n", q, n)
			return api.OnLoadResult{Contents: &src, ResolveDir: dir, Loader: api.LoaderJS}, nil
		})
		pb.OnLoad(api.OnLoadOptions{Filter: `.*`, Namespace: nsUI}, func(a api.OnLoadArgs) (api.OnLoadResult, error) {
			src := ui.Source
			if a.Path == "mount.ts" {
				src = ui.Mount
			}
			return api.OnLoadResult{Contents: &src, ResolveDir: dir, Loader: api.LoaderTS}, nil
		})
	}}
}

// message converts an esbuild message into a diagnostic at the user's file
// (esbuild columns are 0-based).
func (b *Bundler) message(m api.Message, sev diag.Severity) diag.Diagnostic {
	d := diag.Diagnostic{Severity: sev, Code: "esbuild", Message: m.Text}
	if m.ID != "" {
		d.Code = "esbuild-" + m.ID
	}
	if l := m.Location; l != nil {
		// esbuild names files of a plugin namespace "namespace:path".
		switch {
		case l.Namespace == nsEntry || strings.HasPrefix(l.File, nsEntry+":"):
			// The generated entry imports the view's default export: a
			// problem there is the view file's.
			name := strings.TrimPrefix(l.File, nsEntry+":")
			for _, e := range b.entries {
				if e.Name == name {
					d.Pos = diag.Pos{File: filepath.Join(b.opts.Dir, filepath.FromSlash(e.File)), Line: 1, Col: 1}
					if strings.Contains(m.Text, `import "default"`) {
						d.Message = fmt.Sprintf(msgNoDefaultExport, e.File)
						d.Hint = hintNoDefaultExport
					}
				}
			}
		case l.Namespace == nsUI || strings.HasPrefix(l.File, nsUI+":"):
			d.Pos = diag.Pos{File: "mcpgen/ui"}
		default:
			file := l.File
			if !filepath.IsAbs(file) {
				file = filepath.Join(b.opts.Dir, file)
			}
			d.Pos = diag.Pos{File: file, Line: l.Line, Col: l.Column + 1}
			if l.Length > 0 {
				d.End = diag.Pos{File: file, Line: l.Line, Col: l.Column + 1 + l.Length}
			}
		}
	}
	if strings.HasPrefix(m.Text, "Could not resolve") {
		switch {
		case strings.Contains(m.Text, `"react`):
			d.Hint = hintNoReact
		case strings.Contains(m.Text, `"mcpgen/`) || strings.Contains(m.Text, `"mcpgen"`):
			d.Hint = hintMcpgenUI
		}
	}
	if d.Hint == "" {
		for _, n := range m.Notes {
			if n.Text != "" {
				d.Hint = n.Text
				break
			}
		}
	}
	return d
}

// dedupeMissingReact keeps one "react is missing" diagnostic per user file:
// without React, mcpgen/ui's own imports fail too, which says nothing more.
func (b *Bundler) dedupeMissingReact(in diag.List) diag.List {
	var out diag.List
	seen := map[string]bool{}
	var internal *diag.Diagnostic
	for _, d := range in {
		switch {
		case d.Hint != hintNoReact:
			out = append(out, d)
		case d.Pos.File == "mcpgen/ui":
			if internal == nil {
				internal = &d
			}
		case !seen[d.Pos.File]:
			seen[d.Pos.File] = true
			out = append(out, d)
		}
	}
	if internal != nil && len(seen) == 0 && len(b.entries) > 0 {
		d := *internal
		d.Pos = diag.Pos{File: filepath.Join(b.opts.Dir, filepath.FromSlash(b.entries[0].File)), Line: 1, Col: 1}
		d.Message = "cannot find React for mcpgen/ui: " + d.Message
		out = append(out, d)
	}
	return out
}
