package bundler

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/evanw/esbuild/pkg/api"

	"github.com/mcpgen/mcpgen/generator/diag"
)

// unresolved returns the import path of esbuild's "Could not resolve"
// message.
func unresolved(text string) (string, bool) {
	rest, ok := strings.CutPrefix(text, `Could not resolve "`)
	if !ok {
		return "", false
	}
	spec, _, ok := strings.Cut(rest, `"`)
	return spec, ok
}

// resolveHint is the fix for an import that does not resolve: npm install
// for a package, the path for a file; never esbuild's advice to mark it
// external, an option mcpgen does not have.
func (b *Bundler) resolveHint(spec string, notes []api.Note) string {
	switch {
	case spec == "react" || strings.HasPrefix(spec, "react/") || spec == "react-dom" || strings.HasPrefix(spec, "react-dom/"):
		return hintNoReact
	case spec == "mcpgen" || strings.HasPrefix(spec, "mcpgen/"):
		return hintMcpgenUI
	case strings.HasPrefix(spec, ".") || strings.HasPrefix(spec, "/"):
		return hintNoFile
	}
	for _, n := range notes {
		if strings.Contains(n.Text, "built into node") {
			return fmt.Sprintf(hintNodeBuiltin, spec)
		}
	}
	return fmt.Sprintf(hintNpmInstall, packageName(spec), b.opts.Dir)
}

// packageName is the npm package an import path names: "chart.js" for
// "chart.js/auto", "@scope/pkg" for "@scope/pkg/sub".
func packageName(spec string) string {
	parts := strings.SplitN(spec, "/", 3)
	if strings.HasPrefix(spec, "@") && len(parts) > 1 {
		return parts[0] + "/" + parts[1]
	}
	return parts[0]
}

// importFrom matches `import ... from "x"` and `export ... from "x"`: the
// imports esbuild may drop unresolved when nothing uses them as a value.
// Side-effect imports (import "x") are always resolved by esbuild itself.
var importFrom = regexp.MustCompile(`(?:^|[\s;}])(?:import|export)\s[^;"'()` + "`" + `]*?\bfrom\s*(["'])([^"'\r\n]+)["']`)

// resolvedImports lists, per input file of a build's metafile (a path
// relative to the module root, slash-separated), the import paths esbuild
// resolved as they were written.
func resolvedImports(metafile string) map[string]map[string]bool {
	var meta struct {
		Inputs map[string]struct {
			Imports []struct {
				Original string `json:"original"`
			} `json:"imports"`
		} `json:"inputs"`
	}
	if json.Unmarshal([]byte(metafile), &meta) != nil {
		return nil
	}
	out := map[string]map[string]bool{}
	for file, in := range meta.Inputs {
		seen := map[string]bool{}
		for _, imp := range in.Imports {
			seen[imp.Original] = true
		}
		out[file] = seen
	}
	return out
}

// unresolvedImports reports the imports of the view's own source files
// (relative to the module root) that esbuild cannot resolve. Those the
// build resolved (resolved, from its metafile) are not asked again.
func (b *Bundler) unresolvedImports(vb *viewBuild, sources []string, resolved map[string]map[string]bool) diag.List {
	var diags diag.List
	if vb.resolve == nil {
		return nil
	}
	for _, rel := range sources {
		switch filepath.Ext(rel) {
		case ".ts", ".tsx", ".mts", ".cts":
		default:
			continue // esbuild keeps every import of JavaScript files
		}
		file := filepath.Join(b.opts.Dir, filepath.FromSlash(rel))
		src, err := os.ReadFile(file)
		if err != nil {
			continue // the bundle read it; a file gone since is the next build's
		}
		code := blankComments(src)
		for _, m := range importFrom.FindAllSubmatchIndex(code, -1) {
			spec := string(code[m[4]:m[5]])
			if resolved[rel][spec] {
				continue
			}
			r := vb.resolve(spec, api.ResolveOptions{Importer: file, ResolveDir: filepath.Dir(file), Kind: api.ResolveJSImportStatement})
			if len(r.Errors) == 0 || b.typesOnly(vb, spec, file) {
				continue
			}
			line, col := lineCol(code, m[2])
			diags.Add(diag.Diagnostic{
				Pos: diag.Pos{File: file, Line: line, Col: col}, End: diag.Pos{File: file, Line: line, Col: col + m[5] + 1 - m[2]},
				Severity: diag.Error, Code: "esbuild-unresolved-import",
				Message: fmt.Sprintf("Could not resolve %q", spec), Hint: b.resolveHint(spec, r.Errors[0].Notes),
			})
		}
	}
	return diags
}

// typesOnly reports whether a bare import resolves to a package of type
// declarations only (@types/NAME), which TypeScript accepts and esbuild
// never needs.
func (b *Bundler) typesOnly(vb *viewBuild, spec, file string) bool {
	if strings.HasPrefix(spec, ".") || strings.HasPrefix(spec, "/") {
		return false
	}
	name := packageName(spec)
	if scope, pkg, ok := strings.Cut(strings.TrimPrefix(name, "@"), "/"); ok && strings.HasPrefix(name, "@") {
		name = scope + "__" + pkg // @types/scope__pkg
	}
	r := vb.resolve("@types/"+name+"/package.json", api.ResolveOptions{Importer: file, ResolveDir: filepath.Dir(file), Kind: api.ResolveJSImportStatement})
	return len(r.Errors) == 0
}

// blankComments returns src with its // and /* */ comments replaced by
// spaces (newlines kept), so positions stay the same. Strings are skipped,
// so "https://..." is not taken for a comment.
func blankComments(src []byte) []byte {
	out := append([]byte(nil), src...)
	for i := 0; i < len(out); i++ {
		switch c := out[i]; {
		case c == '"' || c == '\'' || c == '`':
			for i++; i < len(out) && out[i] != c && out[i] != '\n'; i++ {
				if out[i] == '\\' {
					i++
				}
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			for ; i < len(out) && !(out[i] == '*' && i+1 < len(out) && out[i+1] == '/'); i++ {
				if out[i] != '\n' {
					out[i] = ' '
				}
			}
			if i+1 < len(out) {
				out[i], out[i+1] = ' ', ' '
				i++
			}
		}
	}
	return out
}

// lineCol converts a byte offset into a 1-based line and column.
func lineCol(src []byte, off int) (int, int) {
	line := 1 + strings.Count(string(src[:off]), "\n")
	return line, off - strings.LastIndexByte(string(src[:off]), '\n')
}
