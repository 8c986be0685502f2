package generator

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/mcpgen/mcpgen/generator/diag"
	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/generator/lint"
	"github.com/mcpgen/mcpgen/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite the want/ sections of testdata/*.txtar")

// TestGolden runs every testdata/*.txtar case: the sources are written to a
// fresh module, generated, and compared with want/mcpgen_gen.go,
// want/mcpgen_views_gen.go and want/diagnostics. Successful cases are then
// compiled with go build. Cases named lint_*.txtar test one lint rule each
// (generator/lint): only their diagnostics are compared, and nothing is
// built.
func TestGolden(t *testing.T) {
	cases, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(cases) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, file := range cases {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if bin := runCase(t, file); name == "e2e_connector" && bin != "" {
				questionConnector(t, bin)
			}
		})
	}
}

// TestLintCases checks that every lint rule has its golden case.
func TestLintCases(t *testing.T) {
	for _, r := range lint.Rules() {
		file := filepath.Join("testdata", "lint_"+strings.ReplaceAll(r.Name, "-", "_")+".txtar")
		if _, err := os.Stat(file); err != nil {
			t.Errorf("rule %s %s has no golden case %s", r.Code, r.Name, file)
		}
	}
}

// runCase runs one case and returns the built binary, if it built one.
func runCase(t *testing.T, file string) string {
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	want := map[string][]byte{}
	for _, f := range ar.Files {
		if rest, ok := strings.CutPrefix(f.Name, "want/"); ok {
			want[rest] = f.Data
			continue
		}
		data := f.Data
		if f.Name == "go.mod" {
			data = []byte(goMod(t, string(data)))
		}
		writeTestFile(t, filepath.Join(dir, f.Name), data)
	}
	writeTestFile(t, filepath.Join(dir, "go.sum"), readFile(t, filepath.Join(testenv.Root(), "go.sum")))

	cfg := Config{Dir: dir}
	if data, ok := caseFile(ar, "views.json"); ok {
		cfg.Views = bundledViews(t, data)
	}
	if data, ok := caseFile(ar, "lint.json"); ok {
		if err := json.Unmarshal(data, &cfg.Lint); err != nil {
			t.Fatalf("lint.json: %v", err)
		}
	}
	res, diags := Generate(context.Background(), cfg)
	lintOnly := strings.HasPrefix(filepath.Base(file), "lint_")
	if lintOnly {
		// A lint case shows the findings of its own rule (and any problem
		// that is not a lint finding), so a new rule does not change it.
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(file), "lint_"), ".txtar")
		rule := lint.Lookup(strings.ReplaceAll(name, "_", "-"))
		if rule == nil {
			t.Fatalf("%s names no lint rule (lint_NAME.txtar, NAME the rule's name with _ for -)", file)
		}
		var mine diag.List
		for _, d := range diags {
			if lint.Lookup(d.Code) == nil || d.Code == rule.Code {
				mine = append(mine, d)
			}
		}
		diags = mine
	}
	got := map[string][]byte{}
	if len(diags) > 0 {
		got["diagnostics"] = []byte(diags.Render(dir))
	}
	if res != nil && !lintOnly {
		for _, f := range res.Files {
			got[f.Path] = f.Contents
		}
		// The IR of successful cases is checked too when the case asks for it.
		if _, ok := want["ir.json"]; ok {
			got["ir.json"] = bytes.ReplaceAll(res.IR(), []byte(dir), []byte("$DIR"))
		}
	}
	if *update {
		rewrite(t, file, ar, got)
	} else {
		for _, name := range sortedNames(want, got) {
			if !bytes.Equal(want[name], got[name]) {
				t.Errorf("want/%s differs (run go test ./generator -run TestGolden -update to accept):\n--- want\n%s\n--- got\n%s", name, want[name], got[name])
			}
		}
	}
	if res == nil {
		if !diags.HasErrors() {
			t.Errorf("no result and no errors")
		}
		return ""
	}
	if lintOnly {
		return ""
	}
	if _, err := Write(dir, res.Files); err != nil {
		t.Fatal(err)
	}
	// The generated code must compile with the user's code and the runtime.
	bin := filepath.Join(dir, "connector")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// Running generate again on the written files changes nothing.
	res2, diags2 := Generate(context.Background(), cfg)
	if res2 == nil {
		t.Fatalf("second run failed:\n%s", diags2.Render(dir))
	}
	if changed, err := Write(dir, res2.Files); err != nil || len(changed) != 0 {
		t.Errorf("second run wrote %v (err %v); want nothing", changed, err)
	}
	return bin
}

func sortedNames(a, b map[string][]byte) []string {
	seen := map[string]bool{}
	var names []string
	for _, m := range []map[string][]byte{a, b} {
		for n := range m {
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	sortStrings(names)
	return names
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// rewrite replaces the want/ sections of the archive with got.
func rewrite(t *testing.T, file string, ar *txtar.Archive, got map[string][]byte) {
	var files []txtar.File
	for _, f := range ar.Files {
		if !strings.HasPrefix(f.Name, "want/") {
			files = append(files, f)
		}
	}
	for _, name := range sortedNames(got, nil) {
		if name == "ir.json" {
			if _, had := wantHas(ar, name); !had {
				continue
			}
		}
		files = append(files, txtar.File{Name: "want/" + name, Data: got[name]})
	}
	ar.Files = files
	if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
		t.Fatal(err)
	}
}

// caseFile returns the named source file of a case.
func caseFile(ar *txtar.Archive, name string) ([]byte, bool) {
	for _, f := range ar.Files {
		if f.Name == name {
			return f.Data, true
		}
	}
	return nil, false
}

// bundledViews reads a case's views.json, standing for what the bundler
// hands the generator (ir.View leaves HTML out of JSON).
func bundledViews(t *testing.T, data []byte) []ir.View {
	t.Helper()
	var vs []struct {
		ir.View
		HTML string `json:"html"`
	}
	if err := json.Unmarshal(data, &vs); err != nil {
		t.Fatalf("views.json: %v", err)
	}
	var out []ir.View
	for _, v := range vs {
		v.View.HTML = v.HTML
		out = append(out, v.View)
	}
	return out
}

func wantHas(ar *txtar.Archive, name string) ([]byte, bool) {
	for _, f := range ar.Files {
		if f.Name == "want/"+name {
			return f.Data, true
		}
	}
	return nil, false
}

func writeTestFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// goMod turns a case's go.mod (a module line) into one that requires mcpgen
// from this checkout, with mcpgen's own requirements, as a tidy module would.
func goMod(t testing.TB, caseMod string) string {
	t.Helper()
	module := "example.com/acme"
	for _, line := range strings.Split(caseMod, "\n") {
		if m, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			module = strings.TrimSpace(m)
		}
	}
	lines := strings.Split(string(readFile(t, filepath.Join(testenv.Root(), "go.mod"))), "\n")
	lines[0] = "module " + module
	return strings.Join(lines, "\n") + "\nrequire github.com/mcpgen/mcpgen v0.0.0\n\nreplace github.com/mcpgen/mcpgen => " + testenv.Root() + "\n"
}
