package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generator/diag"
	ucli "github.com/urfave/cli/v2"
)

func runCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := Run(context.Background(), append([]string{"mcpgen"}, args...), &stdout, &stderr)
	return stdout.String(), stderr.String(), code
}

func TestVersion(t *testing.T) {
	out, _, code := runCLI(t, "--version")
	if code != 0 || !strings.HasPrefix(out, "mcpgen version ") || !strings.Contains(out, "go1.") {
		t.Errorf("--version: exit %d, %q", code, out)
	}
}

func TestHelp(t *testing.T) {
	out, _, code := runCLI(t, "help")
	if code != 0 {
		t.Fatalf("help: exit %d", code)
	}
	for _, verb := range []string{"new", "generate", "build", "dev", "lint"} {
		if !strings.Contains(out, "   "+verb) {
			t.Errorf("help does not list %s:\n%s", verb, out)
		}
	}
	for _, verb := range []string{"new", "generate", "build", "dev", "lint"} {
		out, _, code := runCLI(t, verb, "--help")
		if code != 0 || !strings.Contains(out, "Examples:") || !strings.Contains(out, "mcpgen "+verb) {
			t.Errorf("%s --help: exit %d, no examples:\n%s", verb, code, out)
		}
	}
}

// The examples in the help can be pasted into any shell: a jq filter with
// brackets is quoted (zsh, macOS's shell, refuses an unmatched glob).
func TestHelpExamplesQuoted(t *testing.T) {
	app := newApp(nil, nil)
	for _, cmd := range app.Commands {
		out, _, _ := runCLI(t, cmd.Name, "--help")
		for _, line := range strings.Split(out, "\n") {
			if _, filter, ok := strings.Cut(line, "| jq "); ok && strings.ContainsAny(filter, "[]*?") && !strings.HasPrefix(filter, "'") {
				t.Errorf("%s --help: unquoted jq filter: %s", cmd.Name, strings.TrimSpace(line))
			}
		}
	}
}

func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "no command"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"generate", "--chek"}, "unknown flag --chek; did you mean --check?"},
		{[]string{"build", "--ouptut", "x"}, "unknown flag --ouptut; did you mean --output?"},
		{[]string{"build", "--zzz"}, "unknown flag --zzz\n"},
		{[]string{"buidl"}, `unknown command "buidl"; did you mean "build"?`},
		{[]string{"help", "buidl"}, `no help for "buidl": there is no such command; did you mean "build"?`},
		{[]string{"help", "nosuch"}, `no help for "nosuch"`},
		{[]string{"--verison"}, "unknown flag --verison; did you mean --version?"},
		{[]string{"generate", "a", "b"}, "at most one directory"},
		{[]string{"generate", "--check", "--ir"}, "cannot be combined"},
		{[]string{"new"}, "new takes one directory"},
		{[]string{"new", "a", "b"}, "new takes one directory"},
		{[]string{"new", "x", "--module", "bad path"}, "not a valid module path"},
		{[]string{"new", "x", "--mcpgen", "not-a-version"}, "neither a directory nor a version"},
		{[]string{"dev", "--addr", "8080"}, "want HOST:PORT"},
		{[]string{"dev", "--auth-scopes", "notes:read"}, "--auth-scopes needs --auth-issuer"},
		{[]string{"dev", "--rate-limit", "ten/1m"}, "--rate-limit"},
		{[]string{"dev", "--auth-upstream", "gitlab"}, "want github, google, entra:TENANT"},
		{[]string{"dev", "--auth-upstream", "github"}, "--auth-upstream needs --auth-client-id and --auth-client-secret"},
		{[]string{"dev", "--auth-upstream", "github", "--auth-issuer", "https://as.example.com"}, "exclude each other"},
		{[]string{"dev", "--auth-upstream", "github", "--auth-client-id", "x", "--auth-client-secret", "@/nonexistent/secret"}, "--auth-client-secret: open /nonexistent/secret"},
		{[]string{"dev", "--auth-upstream-scopes", "repo"}, "--auth-upstream-scopes needs --auth-upstream"},
		{[]string{"dev", "--auth-introspection-limit", "5/1h"}, "--auth-introspection-limit needs --auth-issuer"},
		{[]string{"dev", "--auth-issuer", "https://as.example.com", "--auth-introspection-caller-limit", "5/1h"}, "--auth-introspection-caller-limit bounds calls to the introspection endpoint: it needs --auth-introspection"},
		{[]string{"dev", "--auth-issuer", "https://as.example.com", "--auth-introspection", "https://as.example.com/introspect", "--auth-introspection-limit", "many"}, "invalid --auth-introspection-limit"},
	} {
		_, errOut, code := runCLI(t, tc.args...)
		if code != ExitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 mentioning %q", tc.args, code, errOut, tc.want)
		}
	}
}

func TestGenerateNotAModule(t *testing.T) {
	dir := t.TempDir()
	_, errOut, code := runCLI(t, "generate", dir)
	if code != ExitFailed || !strings.Contains(errOut, "no go.mod") {
		t.Errorf("exit %d, %q", code, errOut)
	}
	_, errOut, code = runCLI(t, "build", filepath.Join(dir, "missing"))
	if code != ExitFailed || !strings.Contains(errOut, "missing") {
		t.Errorf("exit %d, %q", code, errOut)
	}
}

// A directory argument that does not exist, or is a file, is named as
// such by every verb that takes one, never reported as a bare stat error or
// as a missing go.mod.
func TestMissingProjectDir(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nosuch")
	file := filepath.Join(dir, "main.go")
	if err := os.WriteFile(file, []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, verb := range []string{"generate", "build", "lint", "test", "dev"} {
		_, errOut, code := runCLI(t, verb, missing)
		if code != ExitFailed || !strings.Contains(errOut, missing+" does not exist") || strings.Contains(errOut, "stat ") {
			t.Errorf("%s %s: exit %d, %q; want exit 1 saying it does not exist", verb, missing, code, errOut)
		}
		_, errOut, code = runCLI(t, verb, file)
		if code != ExitFailed || !strings.Contains(errOut, file+" is not a directory") {
			t.Errorf("%s %s: exit %d, %q; want exit 1 saying it is not a directory", verb, file, code, errOut)
		}
	}
	_, errOut, code := runCLI(t, "new", file)
	if code != ExitUsage || !strings.Contains(errOut, "is a file, not a directory") {
		t.Errorf("new %s: exit %d, %q", file, code, errOut)
	}
}

func TestNewRefusesNonEmptyDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "keep.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runCLI(t, "new", dir)
	if code != ExitUsage || !strings.Contains(errOut, "not empty") {
		t.Errorf("exit %d, %q", code, errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "keep.txt")); string(b) != "mine" {
		t.Error("new touched an existing file")
	}
}

func TestResolveMCPGen(t *testing.T) {
	v, dir, err := resolveMCPGen("")
	if err != nil {
		t.Fatal(err)
	}
	if v != replacedVersion || !isCheckout(dir) {
		t.Errorf("resolveMCPGen() = %q, %q; want the checkout this test runs in", v, dir)
	}
	if v, dir, err := resolveMCPGen("v1.2.3"); err != nil || v != "v1.2.3" || dir != "" {
		t.Errorf("resolveMCPGen(v1.2.3) = %q, %q, %v", v, dir, err)
	}
	if _, _, err := resolveMCPGen(t.TempDir()); err == nil {
		t.Error("resolveMCPGen(a directory without mcpgen's go.mod): want an error")
	}
}

func TestIntersperse(t *testing.T) {
	app := newApp(nil, nil)
	for _, tc := range []struct{ in, want []string }{
		{[]string{"mcpgen", "build", "dir", "-o", "bin/x"}, []string{"mcpgen", "build", "-o", "bin/x", "--", "dir"}},
		{[]string{"mcpgen", "build", "-o=bin/x", "dir"}, []string{"mcpgen", "build", "-o=bin/x", "--", "dir"}},
		{[]string{"mcpgen", "generate", "dir", "--check"}, []string{"mcpgen", "generate", "--check", "--", "dir"}},
		{[]string{"mcpgen", "--version"}, []string{"mcpgen", "--version"}},
		{[]string{"mcpgen", "nope", "x", "-o"}, []string{"mcpgen", "nope", "x", "-o"}},
	} {
		if got := intersperse(app, tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("intersperse(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestDiagnosticsSummary(t *testing.T) {
	var l diag.List
	l.Errorf(diag.Pos{File: "/p/a.go", Line: 3, Col: 5}, "x", "", "bad thing")
	l.Errorf(diag.Pos{File: "/p/b.go", Line: 1, Col: 1}, "x", "", "worse thing")
	l.Warnf(diag.Pos{File: "/p/c.go", Line: 2, Col: 1}, "x", "", "odd thing")
	var b bytes.Buffer
	printDiagnostics(&b, "/p", l)
	want := "a.go:3:5: bad thing\nb.go:1:1: worse thing\nc.go:2:1: warning: odd thing\n2 errors, 1 warning\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	if code := exitCode(l.Err("/p"), &b); code != ExitFailed {
		t.Errorf("exit code of diagnostics = %d", code)
	}
}

func TestNewNoView(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go mod tidy; skipped with -short")
	}
	dir := filepath.Join(t.TempDir(), "tally")
	out, errOut, code := runCLI(t, "new", dir, "--no-view", "--module", "example.com/tally")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	for _, f := range []string{"ui", "package.json", "node_modules"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("--no-view wrote %s", f)
		}
	}
	mod, _ := os.ReadFile(filepath.Join(dir, "go.mod"))
	if !strings.HasPrefix(string(mod), "module example.com/tally\n") || !strings.Contains(string(mod), "replace github.com/mcpgen/mcpgen => ") {
		t.Errorf("go.mod:\n%s", mod)
	}
	gen, err := os.ReadFile(filepath.Join(dir, "mcpgen_gen.go"))
	if err != nil || !strings.Contains(string(gen), `"text_stats"`) {
		t.Errorf("mcpgen_gen.go does not register text_stats: %v", err)
	}
	// Generating again changes nothing.
	if out, errOut, code := runCLI(t, "generate", dir, "--check"); code != ExitOK {
		t.Errorf("generate --check right after new: exit %d\n%s%s", code, out, errOut)
	}

	// --ir prints the model and writes nothing.
	out, errOut, code = runCLI(t, "generate", dir, "--ir")
	var ir struct {
		Module string `json:"module"`
		Tools  []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(out), &ir); code != ExitOK || err != nil {
		t.Fatalf("generate --ir: exit %d, %v\n%s", code, err, errOut)
	}
	if ir.Module != "example.com/tally" || len(ir.Tools) != 1 || ir.Tools[0].Name != "text_stats" || !strings.Contains(string(ir.Tools[0].InputSchema), `"enum"`) {
		t.Errorf("IR: %s", out)
	}

	// An edited doc comment makes the generated file stale: --check lists it
	// and exits 1, and writes nothing; generate then writes it.
	src := filepath.Join(dir, "textstats.go")
	b, _ := os.ReadFile(src)
	edited := strings.Replace(string(b), "// Counts the characters", "// Tallies the characters", 1)
	if edited == string(b) {
		t.Fatal("textstats.go no longer starts its doc comment with \"Counts the characters\"")
	}
	os.WriteFile(src, []byte(edited), 0o644)
	gen, _ = os.ReadFile(filepath.Join(dir, "mcpgen_gen.go"))
	_, errOut, code = runCLI(t, "generate", dir, "--check")
	if code != ExitFailed || !strings.Contains(errOut, "mcpgen_gen.go: out of date") || !strings.Contains(errOut, "1 generated file is out of date") {
		t.Errorf("generate --check after an edit: exit %d\n%s", code, errOut)
	}
	if now, _ := os.ReadFile(filepath.Join(dir, "mcpgen_gen.go")); !bytes.Equal(now, gen) {
		t.Error("--check wrote mcpgen_gen.go")
	}
	out, _, code = runCLI(t, "generate", dir)
	if code != ExitOK || out != "wrote mcpgen_gen.go\n" {
		t.Errorf("generate after an edit: exit %d, %q", code, out)
	}
}

// TestNewFailureLeavesNothing runs `mcpgen new` with an mcpgen version that
// cannot be fetched: it fails in go mod tidy, after writing the files, and
// must leave neither the project nor its temporary directory behind.
func TestNewFailureLeavesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go mod tidy")
	}
	t.Setenv("GOPROXY", "off") // the version cannot be fetched, at once and offline
	t.Setenv("GOFLAGS", "-mod=mod")
	work := t.TempDir()
	for _, target := range []string{"acme", "empty"} {
		dir := filepath.Join(work, target)
		if target == "empty" {
			if err := os.Mkdir(dir, 0o755); err != nil { // an empty DIR is allowed, and stays
				t.Fatal(err)
			}
		}
		_, errOut, code := runCLI(t, "new", dir, "--no-view", "--mcpgen", "v0.3.0")
		if code != ExitFailed || !strings.Contains(errOut, "go mod tidy failed") || !strings.Contains(errOut, "nothing was written") {
			t.Errorf("new %s: exit %d, stderr:\n%s", target, code, errOut)
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) > 0 {
			t.Errorf("new %s left %s behind", target, entries[0].Name())
		}
	}
	entries, _ := os.ReadDir(work)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"empty"}) {
		t.Errorf("the working directory holds %v, want only the empty DIR given", names)
	}
	// And the help shows no example that cannot work.
	out, _, _ := runCLI(t, "new", "--help")
	if strings.Contains(out, "--mcpgen v") {
		t.Errorf("new --help shows a version example that is not published:\n%s", out)
	}
}

// TestBoolFlagsHaveNoPlaceholder: urfave/cli turns a `quoted` word in a
// flag's usage into its value placeholder, which a boolean flag has none of
// ("--dev mcpgen dev --stdio DIR" in install's help, once).
func TestBoolFlagsHaveNoPlaceholder(t *testing.T) {
	app := newApp(&bytes.Buffer{}, &bytes.Buffer{})
	for _, cmd := range app.Commands {
		for _, f := range cmd.Flags {
			if b, ok := f.(*ucli.BoolFlag); ok && strings.Contains(b.Usage, "`") {
				t.Errorf("mcpgen %s --%s: a boolean flag's usage has a `placeholder`: %q", cmd.Name, b.Name, b.Usage)
			}
		}
	}
}
