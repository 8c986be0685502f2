package dev

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/evanw/esbuild/pkg/api"

	"github.com/mcpgen/mcpgen/generator/diag"
	"github.com/mcpgen/mcpgen/generator/ir"
)

// Views bundles a project's views. Rebuild is incremental: it is called
// after every view edit and must be fast. A Views value is recreated when a
// view file is added or removed.
type Views interface {
	Rebuild(ctx context.Context) ([]ir.View, diag.List)
	Close()
}

// ViewsFunc makes the Views of a project directory. It returns nil, nil
// when the project has no views.
type ViewsFunc func(dir string) (Views, error)

// viewMIME is the MIME type of an MCP Apps view resource.
const viewMIME = "text/html;profile=mcp-app"

// viewEntry is one ui/NAME.tsx or ui/NAME/index.tsx.
type viewEntry struct{ Name, File string }

// discoverViews lists the views of dir, sorted by name.
func discoverViews(dir string) []viewEntry {
	ents, err := os.ReadDir(filepath.Join(dir, "ui"))
	if err != nil {
		return nil
	}
	var out []viewEntry
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() {
			for _, idx := range []string{"index.tsx", "index.ts", "index.jsx"} {
				if _, err := os.Stat(filepath.Join(dir, "ui", n, idx)); err == nil {
					out = append(out, viewEntry{n, "ui/" + n + "/" + idx})
					break
				}
			}
			continue
		}
		ext := filepath.Ext(n)
		if (ext == ".tsx" || ext == ".jsx") || (ext == ".ts" && !strings.HasSuffix(n, ".d.ts")) {
			out = append(out, viewEntry{strings.TrimSuffix(n, ext), "ui/" + n})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// esbuildViews is a minimal incremental bundler used when no bundler is
// configured: each view becomes one HTML document with its script and
// styles inline. mcpgen's own bundler (package bundler) adds React and the
// mcpgen/ui bridge; this one bundles what the sources import and nothing more.
type esbuildViews struct {
	dir     string
	entries []viewEntry
	ctx     api.BuildContext
}

func newESBuildViews(dir string) (Views, error) {
	entries := discoverViews(dir)
	if len(entries) == 0 {
		return nil, nil
	}
	var eps []api.EntryPoint
	for _, e := range entries {
		eps = append(eps, api.EntryPoint{InputPath: e.File, OutputPath: e.Name})
	}
	ctx, cerr := api.Context(api.BuildOptions{
		AbsWorkingDir:       dir,
		EntryPointsAdvanced: eps,
		Bundle:              true,
		Write:               false,
		Outdir:              filepath.Join(dir, ".mcpgen", "views"),
		Format:              api.FormatIIFE,
		Target:              api.ES2020,
		LogLevel:            api.LogLevelSilent,
		JSX:                 api.JSXAutomatic,
		Define:              map[string]string{"process.env.NODE_ENV": `"development"`},
	})
	if cerr != nil {
		return nil, fmt.Errorf("esbuild: %v", cerr.Errors)
	}
	return &esbuildViews{dir: dir, entries: entries, ctx: ctx}, nil
}

func (v *esbuildViews) Close() { v.ctx.Dispose() }

func (v *esbuildViews) Rebuild(ctx context.Context) ([]ir.View, diag.List) {
	res := v.ctx.Rebuild()
	var diags diag.List
	for _, m := range res.Errors {
		diags.Add(esbuildDiag(v.dir, m, diag.Error))
	}
	if diags.HasErrors() {
		return nil, diags
	}
	js := map[string]string{}
	css := map[string]string{}
	for _, f := range res.OutputFiles {
		base := filepath.Base(f.Path)
		switch filepath.Ext(base) {
		case ".js":
			js[strings.TrimSuffix(base, ".js")] = string(f.Contents)
		case ".css":
			css[strings.TrimSuffix(base, ".css")] = string(f.Contents)
		}
	}
	var views []ir.View
	for _, e := range v.entries {
		html := viewHTML(e.Name, js[e.Name], css[e.Name])
		views = append(views, newView(e.Name, e.File, html))
	}
	return views, diags
}

// newView fills in a view's content hash and URI.
func newView(name, file, html string) ir.View {
	sum := sha256.Sum256([]byte(html))
	hash := hex.EncodeToString(sum[:])[:16]
	return ir.View{Name: name, File: file, HTML: html, Hash: hash, URI: "ui://" + name + "/" + hash}
}

func viewHTML(name, js, css string) string {
	var b strings.Builder
	b.WriteString("<!doctype html>\n<html><head><meta charset=\"utf-8\">")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">")
	fmt.Fprintf(&b, "<title>%s</title>", name)
	if css != "" {
		b.WriteString("<style>")
		b.WriteString(css)
		b.WriteString("</style>")
	}
	b.WriteString("</head><body><div id=\"root\"></div><script>")
	b.WriteString(strings.ReplaceAll(js, "</script", "<\\/script"))
	b.WriteString("</script></body></html>\n")
	return b.String()
}

// esbuildDiag maps an esbuild message (0-based column) to a diagnostic.
func esbuildDiag(dir string, m api.Message, sev diag.Severity) diag.Diagnostic {
	d := diag.Diagnostic{Severity: sev, Code: "bundle", Message: m.Text}
	if l := m.Location; l != nil {
		f := l.File
		if f != "" && !filepath.IsAbs(f) {
			f = filepath.Join(dir, f)
		}
		d.Pos = diag.Pos{File: f, Line: l.Line, Col: l.Column + 1}
		if l.Suggestion != "" {
			d.Hint = "did you mean " + l.Suggestion + "?"
		}
	}
	for _, n := range m.Notes {
		if n.Text != "" {
			if d.Hint != "" {
				d.Hint += "\n\t"
			}
			d.Hint += n.Text
		}
	}
	return d
}
