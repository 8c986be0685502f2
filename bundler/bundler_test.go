package bundler

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generator/diag"
	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/internal/testenv"
)

// newBundler returns a Bundler for dir whose bare imports (react) resolve
// from the test environment's node_modules.
func newBundler(t testing.TB, dir string, minify bool) *Bundler {
	t.Helper()
	nm := testenv.NodeModules(t, "react", "react-dom")
	b, err := New(Options{Dir: dir, Minify: minify, NodePaths: []string{nm}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b
}

func build(t testing.TB, b *Bundler) []ir.View {
	t.Helper()
	views, diags := b.Rebuild(context.Background())
	if diags.HasErrors() {
		t.Fatalf("Rebuild:\n%s", diags.Render(b.opts.Dir))
	}
	return views
}

func TestCard(t *testing.T) {
	for _, minify := range []bool{false, true} {
		b := newBundler(t, "testdata/card", minify)
		views := build(t, b)
		if len(views) != 1 {
			t.Fatalf("got %d views, want 1", len(views))
		}
		v := views[0]
		if v.Name != "card" || v.File != "ui/card.tsx" {
			t.Errorf("view = %s %s, want card ui/card.tsx", v.Name, v.File)
		}
		if !regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(v.Hash) || v.URI != "ui://card/"+v.Hash {
			t.Errorf("hash %q, uri %q", v.Hash, v.URI)
		}
		for _, want := range []string{"<!doctype html>", `<div id="root"></div>`, "<style>", "--color-text-secondary", "Waiting for the greeting", "ui/initialize", "<title>Greeting card</title>"} {
			if !strings.Contains(v.HTML, want) {
				t.Errorf("minify=%v: HTML lacks %q", minify, want)
			}
		}
		if n := strings.Count(strings.ToLower(v.HTML), "</script"); n != 1 {
			t.Errorf("HTML has %d </script, want 1", n)
		}
		if strings.Contains(v.HTML, "zod") {
			t.Errorf("bundle contains zod")
		}
		if v.Meta.PrefersBorder == nil || !*v.Meta.PrefersBorder || v.Meta.Title != "Greeting card" {
			t.Errorf("meta = %+v", v.Meta)
		}
		t.Logf("minify=%v: %d bytes", minify, len(v.HTML))
		if minify && len(v.HTML) > 400<<10 {
			t.Errorf("minified card is %d bytes; React alone is ~190 KiB", len(v.HTML))
		}
	}
}

// project writes files (relative path → contents) into a new module root.
func project(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		write(t, filepath.Join(dir, name), src)
	}
	return dir
}

func write(t testing.TB, path, src string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}

const hello = `import { useToolData } from "mcpgen/ui";
export default function Hello() {
  const d = useToolData<{ text: string }>();
  return <p>{d?.text ?? "MARKER"}</p>;
}
`

func TestIncremental(t *testing.T) {
	dir := project(t, map[string]string{"ui/hello.tsx": hello})
	b := newBundler(t, dir, false)
	v1 := build(t, b)
	if len(v1) != 1 || v1[0].Name != "hello" {
		t.Fatalf("views = %v", names(v1))
	}

	// Unchanged sources give the same URI.
	if again := build(t, b); again[0].URI != v1[0].URI {
		t.Errorf("URI changed without a change: %s → %s", v1[0].URI, again[0].URI)
	}

	// A new view in its own directory is picked up.
	write(t, filepath.Join(dir, "ui/board/index.tsx"), strings.ReplaceAll(hello, "MARKER", "BOARD"))
	write(t, filepath.Join(dir, "ui/board/Row.tsx"), "export const x = 1;\n") // not a view
	write(t, filepath.Join(dir, "ui/_shared.tsx"), "export const y = 1;\n")   // not a view
	v2 := build(t, b)
	if got := names(v2); got != "board,hello" {
		t.Fatalf("views = %s, want board,hello", got)
	}
	if v2[0].File != "ui/board/index.tsx" || !strings.Contains(v2[0].HTML, "BOARD") {
		t.Errorf("board view: %s, marker present %v", v2[0].File, strings.Contains(v2[0].HTML, "BOARD"))
	}

	// An edit changes the HTML, hence the hash and the URI.
	write(t, filepath.Join(dir, "ui/hello.tsx"), strings.ReplaceAll(hello, "MARKER", "EDITED"))
	v3 := build(t, b)
	if !strings.Contains(v3[1].HTML, "EDITED") || v3[1].URI == v1[0].URI {
		t.Errorf("edit not picked up: URI %s → %s", v1[0].URI, v3[1].URI)
	}

	// Only the edited view was rebuilt: the other one's inputs are unchanged.
	if vb := b.views["board"]; vb == nil || !b.fresh(vb) || vb.view.URI != v2[0].URI {
		t.Errorf("board was rebuilt or changed by an edit of hello")
	}
	if len(b.views["hello"].inputs) < 3 {
		t.Errorf("hello's inputs: %v", b.views["hello"].inputs)
	}

	// A removed view disappears.
	if err := os.Remove(filepath.Join(dir, "ui/hello.tsx")); err != nil {
		t.Fatal(err)
	}
	if got := names(build(t, b)); got != "board" {
		t.Errorf("views = %s, want board", got)
	}
}

func names(vs []ir.View) string {
	var s []string
	for _, v := range vs {
		s = append(s, v.Name)
	}
	return strings.Join(s, ",")
}

func TestNoViews(t *testing.T) {
	b := newBundler(t, t.TempDir(), false)
	views, diags := b.Rebuild(context.Background())
	if len(views) != 0 || len(diags) != 0 {
		t.Fatalf("views %v, diags %v", views, diags)
	}
}

func TestInlineEscapes(t *testing.T) {
	dir := project(t, map[string]string{
		"ui/x.tsx": `import "./x.css";
const evil = "</script><script>alert(1)</script>";
const re = /<\/SCRIPT>/i;
export default function X() { return <p title={String(re)}>{evil}</p>; }
`,
		"ui/x.css": `p::after { content: "</style><script>alert(2)</script>"; }
`,
	})
	for _, minify := range []bool{false, true} {
		b := newBundler(t, dir, minify)
		v := build(t, b)[0]
		lower := strings.ToLower(v.HTML)
		head, body, _ := strings.Cut(lower, "<body>")
		// Raw text elements end at the first matching close tag: the style
		// may hold "</script" (harmless there), the script must not.
		if n := strings.Count(head, "</style"); n != 1 {
			t.Errorf("minify=%v: %d </style in head, want 1:\n%s", minify, n, head)
		}
		if n := strings.Count(body, "</script"); n != 1 {
			t.Errorf("minify=%v: %d </script in body, want 1", minify, n)
		}
		if !strings.Contains(body, "alert(1)") {
			t.Errorf("minify=%v: the string is gone from the script", minify)
		}
	}
}

func TestEscapeClose(t *testing.T) {
	got := string(escapeClose([]byte(`a</script>b</SCRIPT >c<\/script>`), "</script"))
	want := `a<\/script>b<\/SCRIPT >c<\/script>`
	if got != want {
		t.Errorf("escapeClose = %s, want %s", got, want)
	}
}

func TestDiagnostics(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  []string // rendered diagnostics (relative to the project), each a substring of the output
	}{
		{
			name:  "syntax error",
			files: map[string]string{"ui/a.tsx": "export default function A() {\n  return <p>hi</p>\n  const = 1;\n}\n"},
			want:  []string{"ui/a.tsx:3:9: Expected identifier but found \"=\""},
		},
		{
			name:  "no default export",
			files: map[string]string{"ui/a.tsx": "export function A() { return null; }\n"},
			want:  []string{"ui/a.tsx:1:1: ui/a.tsx has no default export", "export default function"},
		},
		{
			name:  "unknown module",
			files: map[string]string{"ui/a.tsx": "import { x } from \"mcpgen/uii\";\nexport default function A() { return x; }\n"},
			want:  []string{"ui/a.tsx:1:19: Could not resolve \"mcpgen/uii\"", "import the hooks from \"mcpgen/ui\""},
		},
		{
			name:  "missing export of mcpgen/ui",
			files: map[string]string{"ui/a.tsx": "import { useToolDta } from \"mcpgen/ui\";\nexport default function A() { return useToolDta(); }\n"},
			want:  []string{"ui/a.tsx:1:10: No matching export in \"mcpgen-ui:index.ts\" for import \"useToolDta\""},
		},
		{
			name: "directive options",
			files: map[string]string{"ui/a.tsx": "// A view.\n//mcpgen:view bordr connect=https://api.example.com permissions=clipboardwrite\n" +
				"//mcpgen:view resource=cdn.example.com title=\"unterminated\n" + hello},
			want: []string{
				`ui/a.tsx:2:15: unknown //mcpgen:view option "bordr"`, `did you mean "border"?`,
				`ui/a.tsx:2:53: unknown permission "clipboardwrite"`, `did you mean "clipboardWrite"?`,
				`ui/a.tsx:3:15: resource: "cdn.example.com" is not an origin`,
				`ui/a.tsx:3:46: unterminated quoted value`,
			},
		},
		{
			name:  "late directive",
			files: map[string]string{"ui/a.tsx": hello + "//mcpgen:view border\n"},
			want:  []string{"ui/a.tsx:6:1: //mcpgen:view must be in the comments at the top of the file"},
		},
		{
			name:  "duplicate view",
			files: map[string]string{"ui/a.tsx": hello, "ui/a/index.tsx": hello},
			want:  []string{`ui/a.tsx:1:1: view "a" is defined twice: ui/a/index.tsx and ui/a.tsx`},
		},
		{
			name:  "bad view name",
			files: map[string]string{"ui/my card.tsx": hello},
			want:  []string{`ui/my card.tsx:1:1: ui/my card.tsx: "my card" is not a valid view name`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := project(t, tt.files)
			b := newBundler(t, dir, false)
			views, diags := b.Rebuild(context.Background())
			if !diags.HasErrors() {
				t.Fatalf("no error; views %s", names(views))
			}
			if views != nil {
				t.Errorf("views returned despite errors")
			}
			out := diags.Render(dir)
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("diagnostics lack %q:\n%s", w, out)
				}
			}
		})
	}
}

func TestMissingReact(t *testing.T) {
	dir := project(t, map[string]string{"ui/a.tsx": "import { useState } from \"react\";\nexport const s = useState;\n" + hello})
	b, err := New(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	_, diags := b.Rebuild(context.Background())
	out := diags.Render(dir)
	for _, w := range []string{`ui/a.tsx:1:26: Could not resolve "react"`, "add a package.json at the module root"} {
		if !strings.Contains(out, w) {
			t.Errorf("diagnostics lack %q:\n%s", w, out)
		}
	}
}

// A package that is not installed is reported with npm install as the fix
// (never esbuild's advice to mark it external, which mcpgen has no option
// for), whether the view uses what it imports or not: esbuild drops an
// unused import without resolving it, but the TypeScript check of mcpgen
// build would fail on it. Imports in comments, of type-only packages and
// of files that exist are fine.
func TestMissingPackage(t *testing.T) {
	dir := project(t, map[string]string{
		"ui/a.tsx": "import { Chart } from \"chart.js/auto\";\n" + hello + "export const c = Chart;\n",
		"ui/b.tsx": "// import x from \"commented-out\";\nimport type { Foo } from \"types-only\";\nimport {\n  Bar,\n} from \"@acme/widgets\";\nimport { helper } from \"./lib/helper\";\n" +
			"import { gone } from \"./lib/gone\";\nexport const h: Foo | undefined = helper;\n" + hello,
		"ui/lib/helper.ts": "export const helper = undefined;\n",
		"node_modules/@types/types-only/package.json": `{"name":"@types/types-only","types":"index.d.ts"}`,
		"node_modules/@types/types-only/index.d.ts":   "export interface Foo { x: number }\n",
	})
	b := newBundler(t, dir, false)
	views, diags := b.Rebuild(context.Background())
	want := `ui/a.tsx:1:23: Could not resolve "chart.js/auto"
	install the package: npm install chart.js (in ` + dir + `, the module root)
ui/b.tsx:5:8: Could not resolve "@acme/widgets"
	install the package: npm install @acme/widgets (in ` + dir + `, the module root)
ui/b.tsx:7:22: Could not resolve "./lib/gone"
	no such file: check the path, relative to the importing file
`
	if got := diags.Render(dir); got != want || views != nil {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	// Installing them fixes it.
	write(t, filepath.Join(dir, "node_modules/chart.js/package.json"), `{"name":"chart.js","exports":{"./auto":"./auto.js"}}`)
	write(t, filepath.Join(dir, "node_modules/chart.js/auto.js"), "export const Chart = 1;\n")
	write(t, filepath.Join(dir, "node_modules/@acme/widgets/package.json"), `{"name":"@acme/widgets","main":"index.js"}`)
	write(t, filepath.Join(dir, "node_modules/@acme/widgets/index.js"), "export const Bar = 1;\n")
	write(t, filepath.Join(dir, "ui/lib/gone.ts"), "export const gone = 1;\n")
	if views := build(t, b); len(views) != 2 {
		t.Fatalf("views: %s", names(views))
	}
}

func TestParseMeta(t *testing.T) {
	src := `/* Orders board.
   //mcpgen:view is only a directive outside block comments */
//mcpgen:view connect=https://api.example.com,https://*.example.org:8443 resource=https://cdn.example.com
//mcpgen:view frame=https://www.youtube.com baseuri=https://example.com/ domain=orders.example.com
//mcpgen:view noborder permissions=clipboardWrite,camera title="Orders \"board\"" description="All orders"
import x from "y";
`
	var diags diag.List
	m := ParseMeta("ui/board.tsx", []byte(src), &diags)
	if len(diags) != 0 {
		t.Fatalf("diags:\n%s", diags.Render(""))
	}
	check := func(what string, got, want any) {
		t.Helper()
		if g, w := strings.Join(strings.Fields(strings.Trim(strings.ReplaceAll(toString(got), ",", " "), "[]")), " "), want; g != w {
			t.Errorf("%s = %q, want %q", what, g, w)
		}
	}
	check("connect", m.ConnectDomains, "https://api.example.com https://*.example.org:8443")
	check("resource", m.ResourceDomains, "https://cdn.example.com")
	check("frame", m.FrameDomains, "https://www.youtube.com")
	check("baseuri", m.BaseURIDomains, "https://example.com/")
	check("permissions", m.Permissions, "clipboardWrite camera")
	if m.Domain != "orders.example.com" || m.Title != `Orders "board"` || m.Description != "All orders" {
		t.Errorf("domain %q title %q description %q", m.Domain, m.Title, m.Description)
	}
	if m.PrefersBorder == nil || *m.PrefersBorder {
		t.Errorf("prefersBorder = %v, want false", m.PrefersBorder)
	}
}

// A //mcpgen:view line after code is an error at its line whose fix does
// not repeat the file's (absolute) path: the position already names it.
func TestParseMetaLateDirective(t *testing.T) {
	var diags diag.List
	ParseMeta("/home/me/acme/ui/board.tsx", []byte("import x from \"y\";\n//mcpgen:view noborder\n"), &diags)
	if len(diags) != 1 || diags[0].Pos.Line != 2 || diags[0].Severity != diag.Error {
		t.Fatalf("diags:\n%s", diags.Render(""))
	}
	if h := diags[0].Hint; strings.Contains(h, "/home/me") || !strings.Contains(h, "above the imports") {
		t.Errorf("hint %q", h)
	}
}

func toString(v any) string {
	if s, ok := v.([]string); ok {
		return strings.Join(s, " ")
	}
	return ""
}

func FuzzParseMeta(f *testing.F) {
	f.Add("//mcpgen:view border connect=https://a.example.com title=\"x\\\"y\"\n")
	f.Add("/*\n//mcpgen:view\n*/ x\n//mcpgen:view a=\"\n")
	f.Fuzz(func(t *testing.T, src string) {
		var diags diag.List
		ParseMeta("ui/f.tsx", []byte(src), &diags)
		for _, d := range diags {
			if d.Pos.Line < 1 || d.Pos.Col < 1 {
				t.Fatalf("diagnostic without a position: %+v", d)
			}
		}
	})
}

// TestEditDuringBuild saves a view while esbuild is building it, as an
// editor's truncating save can land between esbuild's read and the end
// of the build: the next Rebuild builds the view again from what is on
// disk, rather than keep the bundle of what esbuild read.
func TestEditDuringBuild(t *testing.T) {
	dir := project(t, map[string]string{"ui/hello.tsx": hello})
	b := newBundler(t, dir, false)
	build(t, b)
	file := filepath.Join(dir, "ui/hello.tsx")
	write(t, file, strings.ReplaceAll(hello, "MARKER", "READ"))
	afterRebuild = func() {
		afterRebuild = nil
		write(t, file, strings.ReplaceAll(hello, "MARKER", "SAVED LATER"))
	}
	t.Cleanup(func() { afterRebuild = nil })
	if v := build(t, b); !strings.Contains(v[0].HTML, "READ") {
		t.Fatalf("the build did not read the file as it was when it began")
	}
	if v := build(t, b); !strings.Contains(v[0].HTML, "SAVED LATER") {
		t.Errorf("the save made during the build is not in the next bundle: the view was taken as unchanged")
	}
}
