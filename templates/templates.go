// Package templates holds what `mcpgen new` writes: a working connector with
// one useful tool, a test that calls it through a real MCP client, the
// tool's React view with a fixture and a test that renders it in headless
// Chromium (package mcpgentest), a README, a .gitignore, and a Dockerfile with its
// .dockerignore. Files named NAME.tmpl are
// text/template documents (so no embedded file is a .go file or a go.mod
// that would change this module); other files are copied as they are. A
// leading "dot-" in a name becomes ".".
package templates

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"text/template"

	"github.com/mcpgen/mcpgen/internal/buildinfo"
)

//go:embed project
var project embed.FS

// Module is the import path of mcpgen itself, which every project requires.
const Module = "github.com/mcpgen/mcpgen"

// Data fills the templates.
type Data struct {
	// Name is the connector's name: the server name announced to hosts and
	// the binary's name.
	Name string
	// Module is the new project's module path.
	Module string
	// GoVersion is the go directive of the new go.mod, e.g. "1.26.0".
	GoVersion string
	// MCPGenVersion is the required version of mcpgen.
	MCPGenVersion string
	// MCPGenReplace, when set, is the directory of an mcpgen source tree
	// that replaces the required version (mcpgen is used from source): a
	// copy inside the project ("./third_party/mcpgen"), so the Dockerfile
	// copies it into the image build too.
	MCPGenReplace string
	// MCPGenSource is the checkout MCPGenReplace was copied from, named in
	// go.mod's comment.
	MCPGenSource string
	// View adds the text_stats tool's React view (ui/stats.tsx) with its
	// package.json and tsconfig.json; without it the project is tools-only.
	View bool
}

// viewOnly reports whether a project file belongs to the view.
func viewOnly(rel string) bool {
	return strings.HasPrefix(rel, "ui/") || strings.HasPrefix(rel, "fixtures/") ||
		rel == "package.json" || rel == "tsconfig.json" || rel == "stats_view_test.go"
}

// Files renders every template into file contents keyed by the path to
// write, relative to the project root.
func Files(d Data) (map[string][]byte, error) {
	out := map[string][]byte{}
	err := fs.WalkDir(project, "project", func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		src, err := project.ReadFile(p)
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(p, "project/")
		rel, isTemplate := strings.CutSuffix(rel, ".tmpl")
		if viewOnly(rel) && !d.View {
			return nil
		}
		dir, base := path.Split(rel)
		if strings.HasPrefix(base, "dot-") {
			base = "." + strings.TrimPrefix(base, "dot-")
		}
		if !isTemplate {
			out[dir+base] = src
			return nil
		}
		t, err := template.New(rel).Funcs(template.FuncMap{"gomodPath": gomodPath, "npmName": npmName, "goMinor": goMinor, "trimDot": trimDot, "versionSymbol": func() string { return buildinfo.Symbol }}).Option("missingkey=error").Parse(string(src))
		if err != nil {
			return fmt.Errorf("template %s: %w", rel, err)
		}
		var b bytes.Buffer
		if err := t.Execute(&b, d); err != nil {
			return fmt.Errorf("template %s: %w", rel, err)
		}
		out[dir+base] = b.Bytes()
		return nil
	})
	return out, err
}

// Write renders the templates into dir, which must not exist or be empty,
// and returns the written paths (relative to dir, sorted).
func Write(dir string, d Data) ([]string, error) {
	if d.Name == "" || d.Module == "" || d.GoVersion == "" || d.MCPGenVersion == "" {
		return nil, errors.New("templates: Name, Module, GoVersion and MCPGenVersion are required")
	}
	files, err := Files(d)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var written []string
	for rel, contents := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, contents, 0o644); err != nil {
			return nil, err
		}
		written = append(written, rel)
	}
	sort.Strings(written)
	return written, nil
}

// gomodPath quotes a filesystem path for a go.mod replace directive when it
// needs quoting.
func gomodPath(p string) string {
	if strings.ContainsAny(p, " \t\"'`\\") {
		return fmt.Sprintf("%q", p)
	}
	return p
}

// npmName turns a connector name into a valid npm package name.
func npmName(name string) string {
	b := []byte(strings.ToLower(name))
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			b[i] = '-'
		}
	}
	return strings.TrimLeft(string(b), "._")
}

// goMinor turns a go directive's version ("1.26.0") into the tag of the
// official Go image for that release ("1.26"), which tracks its patches.
func goMinor(v string) string {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return v
	}
	return parts[0] + "." + parts[1]
}

// trimDot turns "./third_party/mcpgen" into "third_party/mcpgen", the form
// a Dockerfile's COPY takes for a path of the build context.
func trimDot(p string) string {
	return strings.TrimPrefix(p, "./")
}
