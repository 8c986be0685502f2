package pipeline

import (
	"bytes"
	"context"
	"debug/buildinfo"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generator/diag"
	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/internal/testenv"
)

const mainGo = `package main

import (
	"os"

	"github.com/mcpgen/mcpgen"
)

func main() { os.Exit(mcpgen.Main(mcpgenApp())) }
`

const toolGo = `package main

import "context"

// ShoutInput is what to shout.
type ShoutInput struct {
	// Text is the text to shout.
	Text string ` + "`json:\"text\"`" + `
}

// Shout DOC.
//
//mcpgen:tool readonly
func Shout(ctx context.Context, in ShoutInput) (string, error) { return in.Text + "!", nil }
`

// module writes a connector module requiring this checkout and resolves
// its dependencies.
func module(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs go mod tidy; skipped with -short")
	}
	dir := t.TempDir()
	write(t, dir, "go.mod", "module example.com/shout\n\ngo 1.26.0\n\nrequire github.com/mcpgen/mcpgen v0.0.0-00010101000000-000000000000\n\nreplace github.com/mcpgen/mcpgen => "+testenv.Root()+"\n")
	write(t, dir, "main.go", mainGo)
	write(t, dir, "shout.go", strings.Replace(toolGo, "DOC", "shouts", 1))
	cmd := exec.Command("go", "mod", "tidy")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go mod tidy: %v\n%s", err, out)
	}
	return dir
}

func write(t testing.TB, dir, name, src string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestGenerateWritesOnlyChanges(t *testing.T) {
	dir := module(t)
	ctx := context.Background()
	p, err := Open(Options{Dir: dir, Minify: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()

	rep, err := p.Generate(ctx, GenerateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(rep.Changed, "mcpgen_gen.go") || !slices.Equal(rep.Changed, rep.Files) {
		t.Errorf("first run: changed %v, files %v", rep.Changed, rep.Files)
	}
	if slices.Contains(rep.Files, DeclarationsFile) {
		t.Error("a project without ui/ got TypeScript declarations")
	}
	if rep.Project == nil || len(rep.Project.Tools) != 1 || rep.Project.Tools[0].Description != "Shout shouts." {
		t.Errorf("project = %+v", rep.Project)
	}
	gen := filepath.Join(dir, "mcpgen_gen.go")
	before, _ := os.Stat(gen)

	time.Sleep(10 * time.Millisecond)
	if rep, err = p.Generate(ctx, GenerateOptions{}); err != nil || len(rep.Changed) != 0 {
		t.Errorf("second run: changed %v, err %v; want nothing", rep.Changed, err)
	}
	if after, _ := os.Stat(gen); !after.ModTime().Equal(before.ModTime()) {
		t.Error("an unchanged file was rewritten")
	}

	// --check sees a change without writing it.
	write(t, dir, "shout.go", strings.Replace(toolGo, "DOC", "shouts louder", 1))
	old, _ := os.ReadFile(gen)
	if rep, err = p.Generate(ctx, GenerateOptions{Check: true}); err != nil || !slices.Equal(rep.Changed, []string{"mcpgen_gen.go"}) {
		t.Errorf("check: changed %v, err %v", rep.Changed, err)
	}
	if now, _ := os.ReadFile(gen); !bytes.Equal(now, old) {
		t.Error("Check wrote a file")
	}

	// An error writes nothing and comes back as positioned diagnostics.
	write(t, dir, "shout.go", strings.Replace(strings.Replace(toolGo, "DOC", "fails", 1), "readonly", "readonyl", 1))
	rep, err = p.Generate(ctx, GenerateOptions{})
	var le *diag.ListError
	if !errors.As(err, &le) || !rep.Diagnostics.HasErrors() {
		t.Fatalf("err = %v; want diagnostics", err)
	}
	if got := le.List.Render(dir); !strings.Contains(got, "shout.go:") || !strings.Contains(got, "readonyl") {
		t.Errorf("diagnostics:\n%s", got)
	}
	if now, _ := os.ReadFile(gen); !bytes.Equal(now, old) {
		t.Error("a failed generation wrote a file")
	}
}

func TestBuild(t *testing.T) {
	dir := module(t)
	var stderr bytes.Buffer
	bin := filepath.Join(t.TempDir(), "shout")
	rep, err := Build(context.Background(), Options{Dir: dir, Stderr: &stderr}, bin)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if rep.Binary != bin {
		t.Errorf("Binary = %q", rep.Binary)
	}
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "shout ") {
		t.Errorf("%s --version: %v %q", bin, err, out)
	}
	// Static and trimmed: no cgo, no paths of this machine, no symbols.
	bi, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	if settings["CGO_ENABLED"] != "0" || settings["-trimpath"] != "true" {
		t.Errorf("build settings: %v", settings)
	}
	if f, err := elf.Open(bin); err != nil {
		t.Error(err)
	} else {
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				t.Errorf("%s is dynamically linked (it has an ELF interpreter)", bin)
			}
		}
		if s := f.Section(".symtab"); s != nil {
			t.Errorf("%s keeps its symbol table", bin)
		}
		f.Close()
	}
	// A stamped version.
	if _, err := Build(context.Background(), Options{Dir: dir, Stderr: &stderr, Version: "v1.4.2-rc.1"}, bin); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if out, err := exec.Command(bin, "--version").CombinedOutput(); err != nil || string(out) != "shout v1.4.2-rc.1\n" {
		t.Errorf("--version of a stamped build: %v %q", err, out)
	}
	if _, _, err := BuildCommand("v1 beta", "", ""); err == nil || !strings.Contains(err.Error(), "no spaces or quotes") {
		t.Errorf("a version with a space: %v", err)
	}

	// Compile errors are the generator's diagnostics already (its loader
	// compiles); what only the linker sees fails the build, on Stderr.
	write(t, dir, "broken.go", "package main\n\nimport _ \"unsafe\"\n\n//go:linkname nowhere example.com/nowhere.nowhere\nfunc nowhere()\n\nfunc init() { nowhere() }\n")
	stderr.Reset()
	_, err = Build(context.Background(), Options{Dir: dir, Stderr: &stderr}, bin)
	var be *BuildError
	if !errors.As(err, &be) || !strings.Contains(stderr.String(), "nowhere") {
		t.Errorf("err = %v, stderr %q; want a BuildError and the linker's message", err, stderr.String())
	}
}

// TestBuildCrossCompiles builds for a Mac with Apple silicon and for
// Windows on x86-64 and checks each binary's format.
func TestBuildCrossCompiles(t *testing.T) {
	dir := module(t)
	var stderr bytes.Buffer
	mac := filepath.Join(t.TempDir(), "shout-mac")
	if _, err := Build(context.Background(), Options{Dir: dir, Stderr: &stderr, GOOS: "darwin", GOARCH: "arm64"}, mac); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if f, err := macho.Open(mac); err != nil {
		t.Errorf("darwin/arm64: not a Mach-O file: %v", err)
	} else {
		if f.Cpu != macho.CpuArm64 {
			t.Errorf("darwin/arm64: CPU %v", f.Cpu)
		}
		f.Close()
	}
	// GOOS/GOARCH from the environment, and the default output name.
	t.Setenv("GOOS", "windows")
	t.Setenv("GOARCH", "amd64")
	rep, err := Build(context.Background(), Options{Dir: dir, Stderr: &stderr}, "")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if want := filepath.Join(dir, filepath.Base(dir)+".exe"); rep.Binary != want {
		t.Errorf("windows binary %q, want %q", rep.Binary, want)
	}
	if f, err := pe.Open(rep.Binary); err != nil {
		t.Errorf("windows/amd64: not a PE file: %v", err)
	} else {
		if f.Machine != pe.IMAGE_FILE_MACHINE_AMD64 {
			t.Errorf("windows/amd64: machine %#x", f.Machine)
		}
		f.Close()
	}
}

func TestOpenRejectsNonModule(t *testing.T) {
	if _, err := Open(Options{Dir: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "no go.mod") {
		t.Errorf("Open(empty dir) = %v", err)
	}
	if _, err := Open(Options{Dir: filepath.Join(t.TempDir(), "nope")}); err == nil {
		t.Error("Open(missing dir): want an error")
	}
}

// BenchmarkGenerate measures a warm Project.Generate in one process, as the
// dev loop runs it: packages loaded again, nothing to write.
func BenchmarkGenerate(b *testing.B) {
	dir := module(b)
	p, err := Open(Options{Dir: dir})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	ctx := context.Background()
	if _, err := p.Generate(ctx, GenerateOptions{}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		rep, err := p.Generate(ctx, GenerateOptions{})
		if err != nil || len(rep.Changed) != 0 {
			b.Fatalf("changed %v, err %v", rep.Changed, err)
		}
	}
}

// TestViewsOption checks that supplied views are embedded as given, and
// that a project with ui/ gets its TypeScript declarations.
func TestViewsOption(t *testing.T) {
	dir := module(t)
	if err := os.Mkdir(filepath.Join(dir, "ui"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "ui/board.tsx", "export default function Board() { return null; }\n")
	view := ir.View{Name: "board", File: "ui/board.tsx", URI: "ui://board/0123456789abcdef", Hash: "0123456789abcdef", HTML: "<!doctype html><title>board</title>"}
	rep, err := Generate(context.Background(), Options{Dir: dir, Views: func() []ir.View { return []ir.View{view} }}, GenerateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(rep.Changed, DeclarationsFile) {
		t.Errorf("changed %v; want %s", rep.Changed, DeclarationsFile)
	}
	d, _ := os.ReadFile(filepath.Join(dir, DeclarationsFile))
	if !strings.Contains(string(d), "interface ShoutInput") {
		t.Errorf("%s lacks the tool's input type:\n%s", DeclarationsFile, d)
	}
	gen, _ := os.ReadFile(filepath.Join(dir, "mcpgen_views_gen.go"))
	if !strings.Contains(string(gen), view.URI) || !strings.Contains(string(gen), "<title>board</title>") {
		t.Errorf("mcpgen_views_gen.go does not embed the supplied view:\n%s", gen)
	}
}

// TestBuildTypeChecks builds a connector whose view misuses its tool's
// output: the build fails with the compiler's error at file:line:col, builds
// without TypeCheck, and builds once the view is fixed.
func TestBuildTypeChecks(t *testing.T) {
	dir := module(t)
	nm := testenv.NodeModules(t, "typescript", "react", "react-dom", "@types/react", "@types/react-dom")
	t.Setenv("MCPGEN_NODE", testenv.Node(t))
	write(t, dir, "shout.go", strings.Replace(strings.Replace(toolGo, "DOC", "shouts", 1), "readonly", "readonly ui=shout", 1))
	if err := os.Symlink(nm, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "tsconfig.json", `{"compilerOptions":{"target":"ES2020","lib":["ES2020","DOM"],"module":"ESNext",
		"moduleResolution":"Bundler","jsx":"react-jsx","strict":true,"noEmit":true,"skipLibCheck":true},"include":["ui"]}`)
	if err := os.Mkdir(filepath.Join(dir, "ui"), 0o755); err != nil {
		t.Fatal(err)
	}
	bad := "import { useToolInput } from \"mcpgen/ui\";\n\nexport default function Shout() {\n  const input = useToolInput<ShoutInput>();\n  return <p>{input?.txt}</p>;\n}\n"
	write(t, dir, "ui/shout.tsx", bad)
	bin := filepath.Join(t.TempDir(), "shout")
	ctx := context.Background()

	rep, err := Build(ctx, Options{Dir: dir, TypeCheck: true}, bin)
	var le *diag.ListError
	if !errors.As(err, &le) {
		t.Fatalf("Build with a type error = %v; want diagnostics", err)
	}
	want := "ui/shout.tsx:5:21: Property 'txt' does not exist on type 'ShoutInput'. Did you mean 'text'? (TS2551)"
	if got := rep.Diagnostics.Render(dir); !strings.Contains(got, want) {
		t.Errorf("diagnostics:\n%s\nwant %q", got, want)
	}

	if _, err := Build(ctx, Options{Dir: dir}, bin); err != nil {
		t.Errorf("Build without TypeCheck: %v", err)
	}
	write(t, dir, "ui/shout.tsx", strings.Replace(bad, "txt", "text", 1))
	if rep, err := Build(ctx, Options{Dir: dir, TypeCheck: true}, bin); err != nil {
		t.Errorf("Build of the fixed view: %v\n%s", err, rep.Diagnostics.Render(dir))
	}
}

// -o naming a directory puts the binary in it under the project's name, as
// go build -o does, and the reported path is the binary's, not the
// directory's.
func TestBinaryPath(t *testing.T) {
	proj := filepath.Join(t.TempDir(), "acme")
	existing := t.TempDir()
	for _, tc := range []struct{ output, target, want string }{
		{"", "linux", filepath.Join(proj, "acme")},
		{"", "windows", filepath.Join(proj, "acme.exe")},
		{"/srv/bin/acme-1", "linux", "/srv/bin/acme-1"},
		{existing, "linux", filepath.Join(existing, "acme")},
		{existing, "windows", filepath.Join(existing, "acme.exe")},
		{"/srv/dist/", "linux", "/srv/dist/acme"},
	} {
		if got := binaryPath(proj, tc.output, tc.target); got != tc.want {
			t.Errorf("binaryPath(%q, %q) = %q, want %q", tc.output, tc.target, got, tc.want)
		}
	}
}
