package schema

import (
	"bytes"
	"encoding/json"
	"flag"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcpgen/mcpgen/generator/diag"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the want sections of testdata/*.txtar")

// loaded is a small module written to a temporary directory and loaded with
// go/packages, as the generator loads a user's project.
type loaded struct {
	dir  string
	b    *Builder
	pkgs []*packages.Package
}

func load(t *testing.T, files []txtar.File) *loaded {
	t.Helper()
	dir := t.TempDir()
	hasMod := false
	for _, f := range files {
		if f.Name == "go.mod" {
			hasMod = true
		}
		if strings.HasPrefix(f.Name, "want/") || strings.HasPrefix(f.Name, "valid/") || strings.HasPrefix(f.Name, "invalid/") || strings.HasPrefix(f.Name, "defaults/") {
			continue
		}
		p := filepath.Join(dir, f.Name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if !hasMod {
		if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/t\n\ngo 1.26\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes |
			packages.NeedTypesInfo | packages.NeedImports,
		Dir:  dir,
		Fset: token.NewFileSet(),
		Env:  append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off"),
	}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pkgs {
		for _, e := range p.Errors {
			t.Fatalf("loading test package: %v", e)
		}
	}
	return &loaded{dir: dir, b: NewBuilder(cfg.Fset, pkgs), pkgs: pkgs}
}

// lookup finds a type by name in the root package (example.com/t), or by
// "path.Name" in another package of the module.
func (l *loaded) lookup(t *testing.T, name string) *types.TypeName {
	t.Helper()
	pkgPath := "example.com/t"
	if i := strings.LastIndex(name, "."); i >= 0 {
		pkgPath, name = name[:i], name[i+1:]
	}
	for _, p := range l.pkgs {
		if p.PkgPath == pkgPath {
			if tn, ok := p.Types.Scope().Lookup(name).(*types.TypeName); ok {
				return tn
			}
		}
	}
	t.Fatalf("type %s.%s not found", pkgPath, name)
	return nil
}

func indent(raw []byte) string {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return string(raw)
	}
	return b.String() + "\n"
}

// TestGolden builds the schemas a case's comment asks for ("Input" for an
// input, "output Result" for an output schema, one per line) and compares
// them, and the rendered diagnostics, with the case's want/ sections. Every
// schema is also resolved as JSON Schema 2020-12 with its defaults checked,
// and validated against the case's valid/ and invalid/ instances.
func TestGolden(t *testing.T) {
	paths, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no test cases: %v", err)
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(path)
			if err != nil {
				t.Fatal(err)
			}
			l := load(t, ar.Files)
			got := map[string]string{}
			var diags diag.List
			for _, line := range strings.Split(strings.TrimSpace(string(ar.Comment)), "\n") {
				line = strings.TrimSpace(line)
				if line == "" || strings.HasPrefix(line, "#") {
					continue
				}
				output := false
				if rest, ok := strings.CutPrefix(line, "output "); ok {
					output, line = true, rest
				}
				tn := l.lookup(t, line)
				build := l.b.Object
				if output {
					build = l.b.Output
				}
				var these diag.List
				raw, ok := build(tn.Type(), tn.Pos(), &these)
				diags.Append(these)
				if ok != !these.HasErrors() {
					t.Errorf("%s: ok=%v but errors=%v", line, ok, diags.HasErrors())
				}
				if !ok {
					continue
				}
				if !json.Valid(raw) || bytes.ContainsAny(raw, "\n\t") {
					t.Errorf("%s: schema is not compact JSON: %s", line, raw)
				}
				again, _ := build(tn.Type(), tn.Pos(), new(diag.List))
				if !bytes.Equal(raw, again) {
					t.Errorf("%s: schema is not deterministic:\n%s\n%s", line, raw, again)
				}
				name := line
				if output {
					name = "output." + line
				}
				got["want/"+name+".json"] = indent(raw)
				checkInstances(t, ar, name, raw)
			}
			if len(diags) > 0 {
				got["want/diagnostics"] = diags.Render(l.dir)
			}
			compare(t, path, ar, got)
		})
	}
}

func compare(t *testing.T, path string, ar *txtar.Archive, got map[string]string) {
	t.Helper()
	want := map[string]string{}
	for _, f := range ar.Files {
		if strings.HasPrefix(f.Name, "want/") {
			want[f.Name] = string(f.Data)
		}
	}
	if *update {
		var files []txtar.File
		for _, f := range ar.Files {
			if !strings.HasPrefix(f.Name, "want/") {
				files = append(files, f)
			}
		}
		var names []string
		for n := range got {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			files = append(files, txtar.File{Name: n, Data: []byte(got[n])})
		}
		ar.Files = files
		if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for n, g := range got {
		if w, ok := want[n]; !ok {
			t.Errorf("unexpected %s:\n%s", n, g)
		} else if w != g {
			t.Errorf("%s differs\n--- got\n%s--- want\n%s", n, g, w)
		}
	}
	for n := range want {
		if _, ok := got[n]; !ok {
			t.Errorf("missing %s", n)
		}
	}
}

// checkInstances resolves a schema with jsonschema-go (the validator the
// runtime uses) and checks the case's sample instances: every line of
// valid/NAME.json must pass, every line of invalid/NAME.json must fail, and
// each "in => out" line of defaults/NAME.json must become out once defaults
// are applied.
func checkInstances(t *testing.T, ar *txtar.Archive, name string, raw []byte) {
	t.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	rs, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		t.Fatalf("%s: not a valid schema: %v\n%s", name, err, raw)
	}
	for _, f := range ar.Files {
		kind, file, _ := strings.Cut(f.Name, "/")
		if file != name+".json" || (kind != "valid" && kind != "invalid" && kind != "defaults") {
			continue
		}
		for _, line := range strings.Split(strings.TrimSpace(string(f.Data)), "\n") {
			in, out, _ := strings.Cut(line, " => ")
			var inst any
			if err := json.Unmarshal([]byte(in), &inst); err != nil {
				t.Fatalf("%s: bad instance %s: %v", f.Name, in, err)
			}
			switch kind {
			case "valid":
				if err := rs.Validate(inst); err != nil {
					t.Errorf("%s: %s should be valid: %v", name, in, err)
				}
			case "invalid":
				if err := rs.Validate(inst); err == nil {
					t.Errorf("%s: %s should be invalid", name, in)
				}
			case "defaults":
				if err := rs.ApplyDefaults(&inst); err != nil {
					t.Fatalf("%s: applying defaults to %s: %v", name, in, err)
				}
				if err := rs.Validate(inst); err != nil {
					t.Errorf("%s: %s with defaults should be valid: %v", name, in, err)
				}
				b, _ := json.Marshal(inst)
				var w any
				_ = json.Unmarshal([]byte(out), &w)
				wb, _ := json.Marshal(w)
				if string(b) != string(wb) {
					t.Errorf("%s: defaults applied to %s gave %s, want %s", name, in, b, wb)
				}
			}
		}
	}
}
