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
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/evanw/esbuild/pkg/api"

	"github.com/mcpgen/mcpgen/connector/ui"
	"github.com/mcpgen/mcpgen/generator/diag"
	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/internal/browserbundle"
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

// Bundler bundles the views of one project. Each view has its own esbuild
// context, so an edit rebuilds only the views whose inputs changed (the
// others are reused as they are) and an edit costs the same however many
// views the project has. Its methods may be called from several goroutines;
// builds run one Rebuild at a time.
type Bundler struct {
	opts Options

	mu     sync.Mutex
	views  map[string]*viewBuild // by view name
	closed bool
}

// viewBuild is one view's esbuild context and its last good bundle.
type viewBuild struct {
	entry Entry
	ctx   api.BuildContext
	// inputs are the files the last good bundle was made of, with their size
	// and modification time then; nil means the view must be built again.
	inputs   map[string]stamp
	view     ir.View
	warnings diag.List
	// resolve is esbuild's resolver as the view's build sees it (tsconfig
	// paths, node_modules, NodePaths, mcpgen/ui).
	resolve func(string, api.ResolveOptions) api.ResolveResult
}

type stamp struct {
	size int64
	mod  time.Time
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
	return &Bundler{opts: opts, views: map[string]*viewBuild{}}, nil
}

// Close releases the esbuild contexts.
func (b *Bundler) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for name, vb := range b.views {
		vb.ctx.Dispose()
		delete(b.views, name)
	}
	b.closed = true
}

// Rebuild bundles every view of the project and returns them sorted by name.
// It rediscovers ui/ first, so views added or removed since the last call are
// picked up; a view none of whose files changed is returned as last built,
// and esbuild re-reads only the changed files of the others. When any error
// is reported no views are returned: callers keep their last good ones.
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
	current := map[string]Entry{}
	for _, e := range entries {
		current[e.Name] = e
	}
	for name, vb := range b.views {
		if e, ok := current[name]; !ok || e != vb.entry {
			vb.ctx.Dispose()
			delete(b.views, name)
		}
	}

	var dirty []*viewBuild
	for _, e := range entries {
		vb := b.views[e.Name]
		if vb == nil {
			vb = &viewBuild{entry: e}
			c, cerr := api.Context(b.buildOptions(e, &vb.resolve))
			if cerr != nil {
				for _, m := range cerr.Errors {
					diags.Add(b.message(m, diag.Error, e))
				}
				if len(cerr.Errors) == 0 {
					diags.Errorf(diag.Pos{}, "esbuild", "", "esbuild: cannot create a build context for view %s", e.Name)
				}
				continue
			}
			vb.ctx = c
			b.views[e.Name] = vb
		}
		if !b.fresh(vb) {
			dirty = append(dirty, vb)
		}
	}
	results := make([]diag.List, len(dirty))
	var wg sync.WaitGroup
	for i, vb := range dirty {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = b.build(ctx, vb)
		}()
	}
	wg.Wait()
	for _, r := range results {
		diags.Append(r)
	}

	views := make([]ir.View, 0, len(entries))
	for _, e := range entries {
		if vb := b.views[e.Name]; vb != nil && vb.inputs != nil {
			views = append(views, vb.view)
			if !slices.Contains(dirty, vb) {
				diags.Append(vb.warnings)
			}
		}
	}
	diags = dedupe(diags)
	diags.Sort()
	if ctx.Err() != nil && !diags.HasErrors() {
		diags.Errorf(diag.Pos{}, "canceled", "", "bundler: %v", ctx.Err())
	}
	if diags.HasErrors() || len(views) != len(entries) {
		if !diags.HasErrors() {
			diags.Errorf(diag.Pos{}, "no-output", "", "bundler: some views were not built")
		}
		return nil, diags
	}
	return views, diags
}

// fresh reports whether none of the files vb's last good bundle was made of
// has changed since.
func (b *Bundler) fresh(vb *viewBuild) bool {
	if vb.inputs == nil {
		return false
	}
	for path, st := range vb.inputs {
		fi, err := os.Stat(path)
		if err != nil || fi.Size() != st.size || !fi.ModTime().Equal(st.mod) {
			return false
		}
	}
	return true
}

// build rebuilds one view with its context and records its inputs.
func (b *Bundler) build(ctx context.Context, vb *viewBuild) diag.List {
	var diags diag.List
	e := vb.entry
	abs := filepath.Join(b.opts.Dir, filepath.FromSlash(e.File))
	// The files the last build read, and the view's own, as they are
	// before esbuild reads them: one an editor writes while esbuild reads
	// it (a truncating save is two steps) keeps this stamp, not the one
	// after, so the next Rebuild sees it changed and builds it again
	// rather than keep a bundle of half a file.
	before := stamps(append(slices.Collect(maps.Keys(vb.inputs)), abs))
	vb.inputs = nil
	stop := context.AfterFunc(ctx, vb.ctx.Cancel)
	res := vb.ctx.Rebuild()
	stop()
	if afterRebuild != nil {
		afterRebuild()
	}
	for _, m := range res.Errors {
		diags.Add(b.message(m, diag.Error, e))
	}
	var warnings diag.List
	for _, m := range res.Warnings {
		warnings.Add(b.message(m, diag.Warning, e))
	}
	diags = b.dedupeMissingReact(diags, e)
	src, err := os.ReadFile(abs)
	if err != nil {
		diags.Errorf(diag.Pos{File: abs}, "read-view", "", "cannot read view: %v", err)
		return diags
	}
	meta := ParseMeta(abs, src, &diags)
	if diags.HasErrors() || ctx.Err() != nil {
		return append(diags, warnings...)
	}
	var js, css, jsMap []byte
	for _, f := range res.OutputFiles {
		switch {
		case strings.HasSuffix(f.Path, ".js.map"):
			jsMap = f.Contents
		case filepath.Ext(f.Path) == ".js":
			js = f.Contents
		case filepath.Ext(f.Path) == ".css":
			css = f.Contents
		}
	}
	if js == nil {
		diags.Errorf(diag.Pos{File: abs}, "no-output", "", "esbuild produced no output for view %s", e.Name)
		return diags
	}
	v := ir.View{Name: e.Name, File: e.File, Meta: meta}
	v.HTML = Document(v.Name, v.Meta.Title, js, css)
	v.SourceMap, v.ScriptLine = b.sourceMap(jsMap), scriptLine(v.HTML)
	sum := sha256.Sum256([]byte(v.HTML))
	v.Hash = hex.EncodeToString(sum[:])[:16]
	v.URI = "ui://" + v.Name + "/" + v.Hash
	inputs := b.inputs(res.Metafile, abs)
	for p, st := range inputs {
		if pre, ok := before[p]; ok && (pre.size != st.size || !pre.mod.Equal(st.mod)) {
			inputs[p] = pre // changed during the build
		}
	}
	v.Inputs = b.sources(inputs)
	// esbuild drops imports a TypeScript file never uses as a value without
	// resolving them, so a missing package imported that way bundles fine
	// but fails the type check of mcpgen build: report it here, so that
	// generate, dev and build agree.
	if missing := b.unresolvedImports(vb, v.Inputs, resolvedImports(res.Metafile)); len(missing) > 0 {
		return append(append(diags, missing...), warnings...)
	}
	vb.inputs = inputs
	vb.view = v
	vb.warnings = warnings
	return append(diags, warnings...)
}

// inputs stamps the files a build read, from esbuild's metafile; the
// modules mcpgen provides itself are not files.
// afterRebuild, when set (by tests), runs right after esbuild's build of
// a view, before its inputs are stamped.
var afterRebuild func()

// stamps returns the size and modification time of each of paths (size
// -1 for one that cannot be read).
func stamps(paths []string) map[string]stamp {
	out := make(map[string]stamp, len(paths))
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil {
			out[p] = stamp{fi.Size(), fi.ModTime()}
		} else {
			out[p] = stamp{size: -1}
		}
	}
	return out
}

func (b *Bundler) inputs(metafile, viewFile string) map[string]stamp {
	var meta struct {
		Inputs map[string]json.RawMessage `json:"inputs"`
	}
	paths := []string{viewFile}
	if json.Unmarshal([]byte(metafile), &meta) == nil {
		for p := range meta.Inputs {
			if strings.HasPrefix(p, nsEntry+":") || strings.HasPrefix(p, nsUI+":") {
				continue
			}
			if !filepath.IsAbs(p) {
				p = filepath.Join(b.opts.Dir, filepath.FromSlash(p))
			}
			paths = append(paths, p)
		}
	}
	return stamps(paths)
}

// sources lists the project's own files among a build's inputs, relative
// to the module root and sorted; installed packages (node_modules) and files
// outside the project are left out.
func (b *Bundler) sources(inputs map[string]stamp) []string {
	var out []string
	for p := range inputs {
		rel, err := filepath.Rel(b.opts.Dir, p)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		rel = filepath.ToSlash(rel)
		if strings.HasPrefix(rel, "node_modules/") || strings.Contains(rel, "/node_modules/") {
			continue
		}
		out = append(out, rel)
	}
	slices.Sort(out)
	return out
}

// dedupe drops repeated diagnostics: a file shared by several views is
// reported once.
func dedupe(in diag.List) diag.List {
	var out diag.List
	seen := map[string]bool{}
	for _, d := range in {
		k := d.Pos.String() + "\x00" + d.Message
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, d)
	}
	return out
}

// outdir is where esbuild would write; with Write false it only names the
// output files.
func (b *Bundler) outdir() string { return filepath.Join(b.opts.Dir, ".mcpgen", "views") }

const (
	nsEntry = "mcpgen-entry"
	nsUI    = "mcpgen-ui"
)

// buildOptions are the esbuild options of view e; the plugin's setup
// stores esbuild's resolver in *resolve.
func (b *Bundler) buildOptions(e Entry, resolve *func(string, api.ResolveOptions) api.ResolveResult) api.BuildOptions {
	// React's production build, minified or not: its development build
	// triples the time of a rebuild, which the dev loop pays on every save.
	o := browserbundle.Options()
	o.EntryPointsAdvanced = []api.EntryPoint{{InputPath: "mcpgen-entry:" + e.Name, OutputPath: e.Name}}
	o.AbsWorkingDir = b.opts.Dir
	o.Outdir = b.outdir()
	o.Metafile = true
	o.Format = api.FormatIIFE
	o.Target = api.ES2020
	o.NodePaths = b.opts.NodePaths
	o.Charset = api.CharsetASCII
	// Both are esbuild's defaults; they are stated because the bundle is
	// inlined into <script> and <style>: esbuild then escapes any
	// "</script" and "</style" in the code.
	o.Supported = map[string]bool{"inline-script": true, "inline-style": true}
	o.Loader = map[string]api.Loader{
		".png": api.LoaderDataURL, ".jpg": api.LoaderDataURL, ".jpeg": api.LoaderDataURL,
		".gif": api.LoaderDataURL, ".svg": api.LoaderDataURL, ".webp": api.LoaderDataURL,
		".woff": api.LoaderDataURL, ".woff2": api.LoaderDataURL,
	}
	o.Plugins = []api.Plugin{b.plugin(e, resolve)}
	// A source map beside the bundle, never inside it (the document
	// stays as small as it was): mcpgen test and the inspector turn a
	// view's error back into its place in ui/ with it.
	o.Sourcemap = api.SourceMapExternal
	o.SourcesContent = api.SourcesContentExclude
	if b.opts.Minify {
		o.MinifyWhitespace, o.MinifyIdentifiers, o.MinifySyntax = true, true, true
		o.LegalComments = api.LegalCommentsNone
	}
	return o
}

// plugin provides the generated entries and the virtual module "mcpgen/ui".
func (b *Bundler) plugin(e Entry, resolve *func(string, api.ResolveOptions) api.ResolveResult) api.Plugin {
	dir := b.opts.Dir
	return api.Plugin{Name: "mcpgen", Setup: func(pb api.PluginBuild) {
		if resolve != nil {
			*resolve = pb.Resolve
		}
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
			q, _ := json.Marshal(filepath.Join(dir, filepath.FromSlash(e.File)))
			n, _ := json.Marshal(e.Name)
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

// message converts an esbuild message into a diagnostic at the user's file.
func (b *Bundler) message(m api.Message, sev diag.Severity, e Entry) diag.Diagnostic {
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
			d.Pos = diag.Pos{File: filepath.Join(b.opts.Dir, filepath.FromSlash(e.File)), Line: 1, Col: 1}
			if strings.Contains(m.Text, `import "default"`) {
				d.Message = fmt.Sprintf(msgNoDefaultExport, e.File)
				d.Hint = hintNoDefaultExport
			}
		case l.Namespace == nsUI || strings.HasPrefix(l.File, nsUI+":"):
			d.Pos = diag.Pos{File: "mcpgen/ui"}
		default:
			p, _ := browserbundle.Position(l)
			if !filepath.IsAbs(p.File) {
				p.File = filepath.Join(b.opts.Dir, p.File)
			}
			d.Pos = diag.Pos{File: p.File, Line: p.Line, Col: p.Col}
			if p.EndCol > 0 {
				d.End = diag.Pos{File: p.File, Line: p.Line, Col: p.EndCol}
			}
		}
	}
	if spec, ok := unresolved(m.Text); ok {
		// esbuild's own advice (mark the path as external, change the
		// platform) names options mcpgen does not have.
		d.Hint = b.resolveHint(spec, m.Notes)
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
func (b *Bundler) dedupeMissingReact(in diag.List, e Entry) diag.List {
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
	if internal != nil && len(seen) == 0 {
		d := *internal
		d.Pos = diag.Pos{File: filepath.Join(b.opts.Dir, filepath.FromSlash(e.File)), Line: 1, Col: 1}
		d.Message = "cannot find React for mcpgen/ui: " + d.Message
		out = append(out, d)
	}
	return out
}

// sourceMap returns esbuild's source map with its sources made relative to
// the module root ("ui/summary.tsx"; esbuild names them relative to the
// output directory), or "" when there is none.
func (b *Bundler) sourceMap(data []byte) string {
	if len(data) == 0 {
		return ""
	}
	var m map[string]any
	if json.Unmarshal(data, &m) != nil {
		return ""
	}
	if srcs, ok := m["sources"].([]any); ok {
		for i, s := range srcs {
			str, _ := s.(string)
			if str == "" || strings.Contains(str, ":") {
				continue // a virtual module (mcpgen-entry:NAME, mcpgen-ui:...)
			}
			if rel, err := filepath.Rel(b.opts.Dir, filepath.Join(b.outdir(), filepath.FromSlash(str))); err == nil {
				srcs[i] = filepath.ToSlash(rel)
			}
		}
	}
	out, err := json.Marshal(m)
	if err != nil {
		return ""
	}
	return string(out)
}
