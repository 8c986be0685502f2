// Package load turns a Go module directory into type-checked packages with
// go/packages: every package of the module (./..., tests excluded), with
// syntax and type information, and every type error in them as a positioned
// diagnostic. The files mcpgen generates (mcpgen_gen.go, mcpgen_views_gen.go)
// are replaced by stubs while loading, because they may be stale or missing
// when mcpgen runs; errors in them never reach the user.
package load

import (
	"context"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/tools/go/packages"

	"github.com/mcpgen/mcpgen/generator/diag"
)

// The files mcpgen writes into the module root package.
const (
	GenFile      = "mcpgen_gen.go"
	ViewsGenFile = "mcpgen_views_gen.go"
	RuntimePath  = "github.com/mcpgen/mcpgen/connector"
)

// Program is a loaded module.
type Program struct {
	Dir    string // absolute module root
	Module string // module path from go.mod
	Fset   *token.FileSet
	// Packages are the module's packages, sorted by import path.
	Packages []*packages.Package
	// Root is the package in Dir (nil when Dir holds no Go files).
	Root *packages.Package
}

// Mode is what Load asks of go/packages.
const Mode = packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes |
	packages.NeedTypesInfo | packages.NeedImports | packages.NeedModule | packages.NeedTypesSizes

// goModErrors adds the errors of parsing go.mod, each at its line.
func goModErrors(gomod string, err error, diags *diag.List) {
	var list modfile.ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		diags.Errorf(diag.Pos{File: gomod, Line: 1, Col: 1}, "bad-go-mod", hintGoModSyntax, msgGoModSyntax, err)
		return
	}
	for _, e := range list {
		pos := diag.Pos{File: gomod, Line: max(e.Pos.Line, 1), Col: max(e.Pos.LineRune, 1)}
		msg := e.Err.Error()
		if e.ModPath != "" {
			msg = e.Verb + " " + e.ModPath + ": " + msg
		} else if e.Verb != "" {
			msg = e.Verb + ": " + msg
		}
		diags.Errorf(pos, "bad-go-mod", hintGoModSyntax, msgGoModSyntax, msg)
	}
}

// Load loads every package of the module at dir. Problems (a missing go.mod,
// syntax and type errors) are added to diags; ok is false when any error
// was added. The returned Program holds whatever could be loaded.
func Load(ctx context.Context, dir string, diags *diag.List) (*Program, bool) {
	before := len(*diags)
	abs, err := filepath.Abs(dir)
	if err != nil {
		diags.Errorf(diag.Pos{File: dir}, "load", hintLoad, msgLoad, err)
		return nil, false
	}
	gomod := filepath.Join(abs, "go.mod")
	data, err := os.ReadFile(gomod)
	if err != nil {
		diags.Errorf(diag.Pos{File: abs}, "no-go-mod", hintNoGoMod, msgNoGoMod, abs)
		return nil, false
	}
	// A go.mod the go command cannot parse is reported at its line, not as
	// go list's failure at the module root. (Versions are the go command's
	// business: any is accepted here, as it fixes them.)
	if _, err := modfile.Parse(gomod, data, func(_, v string) (string, error) { return v, nil }); err != nil {
		goModErrors(gomod, err, diags)
		return nil, false
	}
	module := modfile.ModulePath(data)
	if module == "" {
		diags.Errorf(diag.Pos{File: gomod, Line: 1, Col: 1}, "bad-go-mod", hintBadGoMod, msgBadGoMod)
		return nil, false
	}
	// A replace pointing at a directory without a go.mod makes go list fail
	// slowly and obscurely (at "/", it walks the whole disk): say so first.
	if !checkReplaces(abs, gomod, data, diags) {
		return nil, false
	}
	prog := &Program{Dir: abs, Module: module, Fset: token.NewFileSet()}
	// Load as the files are first: with generated files that compile this
	// reuses export data from the build cache and is several times faster
	// than a load with an overlay, which go list type-checks from source.
	// Only when something does not compile — perhaps a stale or missing
	// generated file — load again with the generated files stubbed out, so
	// that only the user's own mistakes are reported.
	var pkgs []*packages.Package
	_, statErr := os.Stat(filepath.Join(abs, "mcpgen_gen.go"))
	if statErr == nil {
		cfg := &packages.Config{Context: ctx, Mode: Mode, Dir: abs, Fset: prog.Fset}
		pkgs, err = packages.Load(cfg, "./...")
	}
	if statErr != nil || err != nil || anyErrors(pkgs) {
		prog.Fset = token.NewFileSet()
		cfg := &packages.Config{Context: ctx, Mode: Mode, Dir: abs, Fset: prog.Fset, Overlay: overlay(abs)}
		pkgs, err = packages.Load(cfg, "./...")
	}
	if err != nil {
		diags.Errorf(diag.Pos{File: abs}, "load", hintLoad, msgLoad, err)
		return prog, false
	}
	seen := map[string]bool{}
	for _, p := range pkgs {
		if p.Module != nil && p.Module.Path != module {
			continue // a nested module's package
		}
		prog.Packages = append(prog.Packages, p)
		if len(p.GoFiles) > 0 && filepath.Dir(p.GoFiles[0]) == abs {
			prog.Root = p
		}
		typeErrors := false
		for _, e := range p.Errors {
			typeErrors = typeErrors || e.Kind == packages.TypeError || e.Kind == packages.ParseError
		}
		for _, e := range expand(p, typeErrors) {
			pos := errorPos(e.Pos)
			if generated(abs, pos.File) {
				continue
			}
			key := pos.String() + "\x00" + e.Msg
			if seen[key] {
				continue
			}
			seen[key] = true
			msg, code, hint := e.Msg, "go", ""
			if m, h, ok := importProblem(p, e); ok {
				msg, code, hint = m, "import", h
			}
			if pos.File == "" || pos.File == "-" {
				pos = diag.Pos{File: abs}
			}
			diags.Errorf(pos, code, hint, msgPackageError, msg)
		}
	}
	sort.Slice(prog.Packages, func(i, j int) bool { return prog.Packages[i].PkgPath < prog.Packages[j].PkgPath })
	if len(prog.Packages) == 0 {
		// go list prints why it listed nothing (an untidy go.mod, say) on
		// stderr, which go/packages does not pass on; ask it again.
		if msg := goListProblem(ctx, abs); msg != "" {
			diags.Errorf(diag.Pos{File: gomod, Line: 1, Col: 1}, "go-list", hintGoList, msgGoList, msg)
		} else {
			diags.Errorf(diag.Pos{File: abs}, "no-packages", hintNoPackages, msgNoPackages, abs)
		}
	}
	if prog.Root != nil && prog.Root.Name == "main" && module != "github.com/mcpgen/mcpgen" {
		if rt := prog.Root.Imports[RuntimePath]; rt == nil || len(rt.Errors) > 0 {
			why, hint := "it is not in the module graph", hintNoRuntime
			if rt != nil {
				why, _, _ = strings.Cut(rt.Errors[0].Msg, "; to add it")
				if !strings.Contains(rt.Errors[0].Msg, "no required module") && !strings.Contains(rt.Errors[0].Msg, "cannot find") {
					hint = hintBadRuntime
				}
			}
			diags.Errorf(diag.Pos{File: gomod, Line: 1, Col: 1}, "no-runtime", hint, msgNoRuntime, RuntimePath, why)
		}
	}
	return prog, !(*diags)[before:].HasErrors()
}

// checkReplaces reports, at its line in go.mod, every replace whose local
// directory holds no go.mod; ok is false when there is one.
func checkReplaces(dir, gomod string, data []byte, diags *diag.List) bool {
	f, err := modfile.Parse(gomod, data, nil)
	if err != nil {
		return true // go list will say what is wrong with go.mod
	}
	ok := true
	for _, r := range f.Replace {
		if r.New.Version != "" || !modfile.IsDirectoryPath(r.New.Path) {
			continue
		}
		target := r.New.Path
		if !filepath.IsAbs(target) {
			target = filepath.Join(dir, target)
		}
		if _, err := os.Stat(filepath.Join(target, "go.mod")); err == nil {
			continue
		}
		pos := diag.Pos{File: gomod, Line: 1, Col: 1}
		if r.Syntax != nil {
			pos.Line, pos.Col = r.Syntax.Start.Line, r.Syntax.Start.LineRune
		}
		diags.Errorf(pos, "bad-replace", hintBadReplace, msgBadReplace, r.Old.Path, r.New.Path)
		ok = false
	}
	return ok
}

// anyErrors reports whether any loaded package has an error.
func anyErrors(pkgs []*packages.Package) bool {
	bad := false
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		bad = bad || len(p.Errors) > 0
	})
	return bad
}

// overlay replaces the generated files of the root package by stubs that
// declare what user code refers to (mcpgenApp, mcpgenViews), so a stale or
// missing generated file does not stop the load.
func overlay(dir string) map[string][]byte {
	name := rootPackageName(dir)
	stub := fmt.Sprintf("package %s\n", name)
	gen := stub
	if name == "main" {
		gen = fmt.Sprintf("package main\n\nimport mcpgenruntime %q\n\nfunc mcpgenApp() *mcpgenruntime.App { return nil }\n\nvar mcpgenViews []mcpgenruntime.View\n", RuntimePath)
	}
	return map[string][]byte{
		filepath.Join(dir, GenFile):      []byte(gen),
		filepath.Join(dir, ViewsGenFile): []byte(stub),
	}
}

// rootPackageName reads the package clause of the first user file in dir.
func rootPackageName(dir string) string {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") || n == GenFile || n == ViewsGenFile {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, n), nil, parser.PackageClauseOnly)
		if err == nil && f.Name != nil {
			return f.Name.Name
		}
	}
	return "main"
}

// goListProblem returns what go list prints on stderr for the module's
// packages and the runtime the generated code imports, or "".
func goListProblem(ctx context.Context, dir string) string {
	cmd := exec.CommandContext(ctx, "go", "list", "-e", "-f", "{{.ImportPath}}", "./...", RuntimePath)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	_ = cmd.Run()
	return strings.TrimSpace(stderr.String())
}

// generated reports whether file is one of the files mcpgen writes.
func generated(dir, file string) bool {
	return file == filepath.Join(dir, GenFile) || file == filepath.Join(dir, ViewsGenFile)
}

// expand splits the compiler output that go list reports for a package
// ("# pkg\n./file.go:3:4: msg\n...") into one error per line, and drops it
// when the type checker reported the same problems itself.
func expand(p *packages.Package, typeErrors bool) []packages.Error {
	var out []packages.Error
	for _, e := range p.Errors {
		if e.Kind != packages.ListError || !strings.HasPrefix(e.Msg, "# ") {
			out = append(out, e)
			continue
		}
		if typeErrors {
			continue
		}
		dir := ""
		if len(p.GoFiles) > 0 {
			dir = filepath.Dir(p.GoFiles[0])
		}
		for _, line := range strings.Split(e.Msg, "\n")[1:] {
			line = strings.TrimSpace(line)
			if line == "" {
				continue
			}
			file, rest, ok := strings.Cut(line, ": ")
			if !ok {
				out = append(out, packages.Error{Pos: e.Pos, Msg: line, Kind: e.Kind})
				continue
			}
			if !filepath.IsAbs(file) && dir != "" {
				file = filepath.Join(dir, file)
			}
			out = append(out, packages.Error{Pos: file, Msg: rest, Kind: e.Kind})
		}
	}
	return out
}

// importProblem returns the go command's own words for a type error
// "could not import PATH (invalid package name: \"\")": the type checker
// only knows the import failed, while go list said why and how to fix it
// ("no required module provides package PATH; to add it: go get PATH").
func importProblem(p *packages.Package, e packages.Error) (msg, hint string, ok bool) {
	if e.Kind != packages.TypeError {
		return "", "", false
	}
	rest, found := strings.CutPrefix(e.Msg, "could not import ")
	if !found {
		return "", "", false
	}
	path, _, _ := strings.Cut(rest, " ")
	imp := p.Imports[path]
	if imp == nil || len(imp.Errors) == 0 {
		return "", "", false
	}
	// The go command writes its fix on an indented line of its own.
	why := strings.Join(strings.Fields(imp.Errors[0].Msg), " ")
	msg, fix, found := strings.Cut(why, "; ")
	if !found {
		return why, fmt.Sprintf(hintImport, path), true
	}
	return msg, fix + " (in the module root)", true
}

// errorPos parses go/packages' "file:line:col" error positions.
func errorPos(s string) diag.Pos {
	if s == "" || s == "-" {
		return diag.Pos{}
	}
	parts := strings.Split(s, ":")
	var nums []int
	for len(parts) > 1 && len(nums) < 2 {
		n, err := strconv.Atoi(parts[len(parts)-1])
		if err != nil {
			break
		}
		nums = append([]int{n}, nums...)
		parts = parts[:len(parts)-1]
	}
	p := diag.Pos{File: strings.Join(parts, ":")}
	if len(nums) > 0 {
		p.Line = nums[0]
	}
	if len(nums) > 1 {
		p.Col = nums[1]
	}
	return p
}
