package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/testenv"
	"github.com/mcpgen/mcpgen/templates"
)

// lintModule writes a connector module with the given files into a fresh
// directory: mcpgen is required from this checkout, and the go.sum is the
// checkout's.
func lintModule(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	root := testenv.Root()
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(mod), "\n")
	lines[0] = "module example.com/acme"
	files["go.mod"] = strings.Join(lines, "\n") + "\nrequire github.com/mcpgen/mcpgen v0.0.0\n\nreplace github.com/mcpgen/mcpgen => " + root + "\n"
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	files["go.sum"] = string(sum)
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const lintMain = "package main\n\nimport (\n\t\"os\"\n\n\t\"github.com/mcpgen/mcpgen\"\n)\n\nfunc main() { os.Exit(mcpgen.Main(mcpgenApp())) }\n"

// TestLintExitCodes checks the exit status with and without --strict: a
// warning fails only under --strict, an error always.
func TestLintExitCodes(t *testing.T) {
	t.Parallel()
	warnOnly := lintModule(t, map[string]string{"main.go": lintMain, "tools.go": `package main

// Ping answers pong.
//
//mcpgen:tool readonly title="Ping"
func Ping() (string, error) { return "pong", nil }
`})
	out, errOut, code := runCLI(t, "lint", warnOnly)
	if code != ExitOK || !strings.Contains(out, "tools.go:3:4: warning: the description of tool ping opens with the Go name Ping") ||
		!strings.Contains(out, "[DESC005 description-go-identifier]\n\tstart with what it does, e.g. \"Answers pong.\"") || !strings.HasSuffix(out, "1 warning\n") {
		t.Errorf("lint with a warning: exit %d\n%s%s", code, out, errOut)
	}
	if out, errOut, code := runCLI(t, "lint", warnOnly, "--strict"); code != ExitFailed || !strings.Contains(out, "[DESC005 description-go-identifier]") {
		t.Errorf("lint --strict with a warning: exit %d; want 1\n%s%s", code, out, errOut)
	}
	// --ignore leaves a rule's findings out, by code or name; an unknown
	// rule is a usage error.
	if out, errOut, code := runCLI(t, "lint", warnOnly, "--strict", "--ignore", "description-go-identifier"); code != ExitOK || out != "no findings\n" {
		t.Errorf("lint --strict --ignore description-go-identifier: exit %d\n%s%s", code, out, errOut)
	}
	if _, errOut, code := runCLI(t, "lint", warnOnly, "--ignore", "DESC05"); code != ExitUsage || !strings.Contains(errOut, `--ignore DESC05: no such rule; did you mean "DESC005"?`) {
		t.Errorf("--ignore DESC05: exit %d, %s", code, errOut)
	}
	// lint writes nothing.
	if _, err := os.Stat(filepath.Join(warnOnly, "mcpgen_gen.go")); err == nil {
		t.Error("lint wrote mcpgen_gen.go")
	}

	withError := lintModule(t, map[string]string{"main.go": lintMain, "tools.go": `package main

// Answers pong.
//
//mcpgen:tool name=net.ping title="Ping"
func Ping() (string, error) { return "pong", nil }
`})
	out, errOut, code = runCLI(t, "lint", withError)
	if code != ExitFailed || !strings.Contains(out, "tools.go:5:1: tool net.ping does not say whether it changes anything") ||
		!strings.Contains(out, `tools.go:5:20: the Anthropic API cannot call tool "net.ping"`) || !strings.HasSuffix(out, "2 errors\n") {
		t.Errorf("lint with errors: exit %d; want 1\n%s%s", code, out, errOut)
	}
	// generate shows the same findings as warnings and succeeds.
	_, errOut, code = runCLI(t, "generate", withError, "--check")
	if code != ExitFailed || !strings.Contains(errOut, "tools.go:5:1: warning: tool net.ping does not say whether it changes anything") ||
		!strings.Contains(errOut, "[ANN001 tool-annotations]") || !strings.Contains(errOut, "2 warnings") {
		t.Errorf("generate --check: exit %d (want 1: files are out of date)\n%s", code, errOut)
	}

	// A project that does not generate: its errors are printed, exit 1.
	broken := lintModule(t, map[string]string{"main.go": lintMain, "tools.go": `package main

// Answers pong.
//
//mcpgen:tool readonyl
func Ping() (string, error) { return "pong", nil }
`})
	out, errOut, code = runCLI(t, "lint", broken, "--format", "json")
	var items []map[string]any
	if err := json.Unmarshal([]byte(out), &items); err != nil || code != ExitFailed || len(items) == 0 || items[0]["rule"] != "unknown-option" || items[0]["severity"] != "error" {
		t.Errorf("lint --format json on a broken project: exit %d, %v\n%s%s", code, err, out, errOut)
	}

	if _, errOut, code := runCLI(t, "lint", warnOnly, "--format", "yaml"); code != ExitUsage || !strings.Contains(errOut, "want text or json") {
		t.Errorf("--format yaml: exit %d, %s", code, errOut)
	}
}

// TestLintJSON checks the --format json contract: an array of objects with
// exactly the documented keys, positions relative to the project.
func TestLintJSON(t *testing.T) {
	t.Parallel()
	dir := lintModule(t, map[string]string{"main.go": lintMain, "tools.go": `package main

// Ping answers pong.
//
//mcpgen:tool name=net.ping title="Ping"
func Ping() (string, error) { return "pong", nil }
`})
	out, errOut, code := runCLI(t, "lint", dir, "--format", "json")
	if code != ExitFailed {
		t.Errorf("exit %d; want 1 (errors)\n%s", code, errOut)
	}
	var items []map[string]any
	if err := json.Unmarshal([]byte(out), &items); err != nil {
		t.Fatalf("not a JSON array: %v\n%s", err, out)
	}
	want := []map[string]any{
		{"rule": "DESC005", "severity": "warning", "file": "tools.go", "line": 3.0, "column": 4.0, "tool": "net.ping"},
		{"rule": "ANN001", "severity": "error", "file": "tools.go", "line": 5.0, "column": 1.0, "tool": "net.ping"},
		{"rule": "NAME001", "severity": "error", "file": "tools.go", "line": 5.0, "column": 20.0, "tool": "net.ping"},
	}
	if len(items) != len(want) {
		t.Fatalf("%d findings, want %d:\n%s", len(items), len(want), out)
	}
	keys := []string{"column", "file", "fix", "line", "message", "rule", "severity", "tool"}
	for i, it := range items {
		if got := keysOf(it); strings.Join(got, ",") != strings.Join(keys, ",") {
			t.Errorf("finding %d has keys %v, want %v", i, got, keys)
		}
		for k, v := range want[i] {
			if it[k] != v {
				t.Errorf("finding %d: %s = %v, want %v", i, k, it[k], v)
			}
		}
		if it["message"] == "" || it["fix"] == "" {
			t.Errorf("finding %d has no message or fix: %v", i, it)
		}
	}
	// A clean project prints an empty array, not null.
	clean := lintModule(t, map[string]string{"main.go": lintMain, "tools.go": "package main\n\n// Answers pong.\n//\n//mcpgen:tool readonly title=\"Ping\"\nfunc Ping() (string, error) { return \"pong\", nil }\n"})
	if out, _, code := runCLI(t, "lint", clean, "--format", "json", "--strict"); code != ExitOK || out != "[]\n" {
		t.Errorf("clean project: exit %d, %q", code, out)
	}
}

func keysOf(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sortStrings(ks)
	return ks
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// TestLintExamplesAndScaffoldClean keeps every example and the scaffold
// free of findings, warnings included: they are what users copy.
func TestLintExamplesAndScaffoldClean(t *testing.T) {
	t.Parallel()
	examples, _ := filepath.Glob(filepath.Join(testenv.Root(), "examples", "*", "go.mod"))
	if len(examples) == 0 {
		t.Fatal("no examples")
	}
	var dirs []string
	for _, m := range examples {
		// A copy, so linting leaves the tree alone; React comes from the
		// example's node_modules or, when that is not installed, from the
		// test packages'.
		dir := filepath.Join(t.TempDir(), filepath.Base(filepath.Dir(m)))
		if err := testenv.CopyExample(filepath.Dir(m), dir); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, "package.json")); err == nil {
			if _, err := os.Stat(filepath.Join(dir, "node_modules", "react", "package.json")); err != nil {
				os.Remove(filepath.Join(dir, "node_modules"))
				if err := os.Symlink(testenv.NodeModules(t, "react", "react-dom"), filepath.Join(dir, "node_modules")); err != nil {
					t.Fatal(err)
				}
			}
		}
		dirs = append(dirs, dir)
	}
	for _, view := range []bool{true, false} {
		dir := filepath.Join(t.TempDir(), "acme")
		if _, err := templates.Write(dir, templates.Data{Name: "acme", Module: "example.com/acme", GoVersion: "1.26.0",
			MCPGenVersion: "v0.0.0", MCPGenReplace: testenv.Root(), View: view}); err != nil {
			t.Fatal(err)
		}
		// The scaffold's go.mod is completed by go mod tidy; stand in with
		// this checkout's requirements.
		mod, _ := os.ReadFile(filepath.Join(testenv.Root(), "go.mod"))
		lines := strings.Split(string(mod), "\n")
		lines[0] = "module example.com/acme"
		gomod := strings.Join(lines, "\n") + "\nrequire github.com/mcpgen/mcpgen v0.0.0\n\nreplace github.com/mcpgen/mcpgen => " + testenv.Root() + "\n"
		sum, _ := os.ReadFile(filepath.Join(testenv.Root(), "go.sum"))
		os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644)
		os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644)
		if view {
			if err := os.Symlink(testenv.NodeModules(t, "react", "react-dom"), filepath.Join(dir, "node_modules")); err != nil {
				t.Fatal(err)
			}
		}
		dirs = append(dirs, dir)
	}
	for _, dir := range dirs {
		out, errOut, code := runCLI(t, "lint", dir, "--strict")
		if code != ExitOK || out != "no findings\n" {
			t.Errorf("mcpgen lint --strict %s: exit %d\n%s%s", dir, code, out, errOut)
		}
	}
}
