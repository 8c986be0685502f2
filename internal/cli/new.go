package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	goruntime "runtime"
	"runtime/debug"
	"strings"

	ucli "github.com/urfave/cli/v2"
	"golang.org/x/mod/module"

	"github.com/mcpgen/mcpgen/internal/pipeline"
	"github.com/mcpgen/mcpgen/templates"
)

// goVersion is the go directive of new projects: the version mcpgen itself
// requires.
const goVersion = "1.26.0"

// replacedVersion is the version required of a module that a replace
// directive points at a directory (the one `go mod` itself writes).
const replacedVersion = "v0.0.0-00010101000000-000000000000"

func newCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "new",
		Usage:     "scaffold a working connector in a new directory",
		ArgsUsage: "DIR [--module PATH] [--mcpgen DIR|VERSION]",
		Description: "Writes a connector into DIR (which must not exist, or be empty): go.mod, main.go, a\n" +
			"text statistics tool (textstats.go) with its test, the tool's React view (ui/stats.tsx,\n" +
			"package.json), a README and a .gitignore. Then runs `go mod tidy` (the Go MCP SDK comes\n" +
			"from the module proxy), `npm install` (React, for the view) and `mcpgen generate`, so\n" +
			"`go test ./...` and `mcpgen build` work at once. --no-view leaves out the view and npm.\n\n" +
			"mcpgen is required from the source checkout this mcpgen was built from, or the released\n" +
			"version this binary is; --mcpgen overrides either (with a checkout directory, or a\n" +
			"version published on the module proxy). A checkout is copied into third_party/mcpgen\n" +
			"and go.mod replaces mcpgen with the copy, so the project builds anywhere, in a\n" +
			"container image too. A failure part-way leaves nothing behind.\n\n" +
			"Examples:\n" +
			"  mcpgen new acme                                module path \"acme\"\n" +
			"  mcpgen new ./acme --module example.com/acme\n" +
			"  mcpgen new acme --no-view                      tools only; no Node.js needed\n" +
			"  mcpgen new acme --mcpgen ~/src/mcpgen           use that mcpgen checkout",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "module", Usage: "module `PATH` of the new project (default: DIR's base name)"},
			&ucli.StringFlag{Name: "mcpgen", Usage: "mcpgen to require: a source checkout `DIR` (replace) or a VERSION"},
			&ucli.BoolFlag{Name: "no-view", Usage: "tools only: no React view, no package.json, no npm install"},
		},
		Action: runNew,
	}
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

func runNew(c *ucli.Context) error {
	if c.NArg() != 1 {
		return usagef("new takes one directory, e.g. `mcpgen new acme`")
	}
	dir, err := filepath.Abs(c.Args().First())
	if err != nil {
		return err
	}
	name := filepath.Base(dir)
	if !nameRE.MatchString(name) {
		return usagef("%q is not a usable connector name: use letters, digits, '-', '_' or '.'", name)
	}
	mod := c.String("module")
	if mod == "" {
		mod = name
	}
	if err := module.CheckImportPath(mod); err != nil {
		return usagef("--module %q is not a valid module path (e.g. example.com/acme): %v", mod, err)
	}
	if err := checkEmpty(dir); err != nil {
		return err
	}
	version, replace, err := resolveMCPGen(c.String("mcpgen"))
	if err != nil {
		return err
	}
	view := !c.Bool("no-view")
	npm := ""
	if view {
		if npm, err = exec.LookPath("npm"); err != nil {
			return errors.New("npm is not installed: the scaffold's view takes React from npm. " +
				"Install Node.js (https://nodejs.org), or pass --no-view for a tools-only connector")
		}
	}
	stdout, stderr := c.App.Writer, c.App.ErrWriter

	// Scaffold into a hidden directory beside DIR and rename it at the end,
	// so a failure part-way (or Ctrl-C) leaves nothing behind.
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+name+".mcpgen-new-")
	if err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o755); err != nil { // MkdirTemp's 0700 would stay
		os.RemoveAll(tmp)
		return err
	}
	done := false
	defer func() {
		if !done {
			os.RemoveAll(tmp)
		}
	}()
	data := templates.Data{Name: name, Module: mod, GoVersion: goVersion, MCPGenVersion: version, View: view}
	if replace != "" {
		// The checkout is copied into the project, so that the project
		// builds wherever it goes: in a container image build (which sees
		// only its context), on a teammate's machine, in CI.
		if err := copyModule(c.Context, replace, filepath.Join(tmp, filepath.FromSlash(mcpgenCopyDir))); err != nil {
			return fmt.Errorf("copying mcpgen from %s: %w; nothing was written to %s", replace, err, dir)
		}
		data.MCPGenReplace, data.MCPGenSource = "./"+mcpgenCopyDir, replace
	}
	written, err := templates.Write(tmp, data)
	if err != nil {
		return err
	}

	fmt.Fprintln(stdout, "running go mod tidy (fetches the Go MCP SDK and mcpgen's dependencies) ...")
	tidy := exec.CommandContext(c.Context, "go", "mod", "tidy")
	tidy.Dir = tmp
	tidy.Stdout = stderr
	tidy.Stderr = stderr
	if err := tidy.Run(); err != nil {
		hint := ""
		if replace == "" {
			hint = fmt.Sprintf(" (is mcpgen %s published? --mcpgen DIR uses a source checkout instead)", version)
		}
		return fmt.Errorf("go mod tidy failed (%v)%s; nothing was written to %s", err, hint, dir)
	}

	if view {
		fmt.Fprintln(stdout, "running npm install (React, for the view in ui/) ...")
		inst := exec.CommandContext(c.Context, npm, "install", "--no-audit", "--no-fund", "--loglevel=error")
		inst.Dir = tmp
		inst.Stdout = stderr
		inst.Stderr = stderr
		if err := inst.Run(); err != nil {
			return fmt.Errorf("npm install failed (%v); nothing was written to %s: fix the problem above (or pass --no-view) and run mcpgen new again", err, dir)
		}
	}

	rep, err := pipeline.Generate(c.Context, pipeline.Options{Dir: tmp, Minify: true}, pipeline.GenerateOptions{})
	if err != nil {
		return err
	}
	printDiagnostics(stderr, rep.Dir, rep.Diagnostics)

	// DIR may exist, empty (checkEmpty allowed it): the rename needs it gone.
	if err := os.Remove(dir); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%s: %w", dir, err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return err
	}
	done = true
	for _, f := range written {
		fmt.Fprintf(stdout, "created %s\n", filepath.Join(c.Args().First(), f))
	}
	if replace != "" {
		fmt.Fprintf(stdout, "copied mcpgen from %s to %s\n", replace, filepath.Join(c.Args().First(), mcpgenCopyDir))
	}
	for _, f := range rep.Changed {
		fmt.Fprintf(stdout, "generated %s\n", filepath.Join(c.Args().First(), f))
	}

	rel := c.Args().First()
	fmt.Fprintf(stdout, `
%[1]s is ready. Next:

  cd %[2]s
  go test ./...             calls the text_stats tool through a real MCP client
  mcpgen dev                serves http://127.0.0.1:8080/mcp and rebuilds on every change
  mcpgen build -o bin/%[1]s  builds one self-contained binary; run it, or bin/%[1]s --stdio

Add a tool: write a function with a //mcpgen:tool line above it (see textstats.go),
then run mcpgen generate (or go generate).%[3]s
`, name, rel, viewHint(view))
	return nil
}

// checkEmpty refuses to scaffold over existing files.
func checkEmpty(dir string) error {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return usagef("%s is a file, not a directory; choose a new directory", dir)
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(entries) > 0 {
		return usagef("%s is not empty (it holds %s); choose a new directory", dir, entries[0].Name())
	}
	return nil
}

// resolveMCPGen decides how the new go.mod requires mcpgen: the --mcpgen
// value (a checkout directory or a version), else the checkout this binary
// was built from, else this binary's own released version. mcpgen is not
// published on the module proxy, so a binary built from source must point
// its projects at that source.
func resolveMCPGen(flag string) (version, replace string, err error) {
	if flag != "" {
		if fi, err := os.Stat(flag); err == nil && fi.IsDir() {
			abs, err := filepath.Abs(flag)
			if err != nil {
				return "", "", err
			}
			if !isCheckout(abs) {
				return "", "", usagef("--mcpgen %s: not an mcpgen source checkout (its go.mod must declare module %s)", flag, templates.Module)
			}
			return replacedVersion, abs, nil
		}
		if regexp.MustCompile(`^v\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`).MatchString(flag) {
			return flag, "", nil
		}
		return "", "", usagef("--mcpgen %q is neither a directory nor a version such as v0.3.0", flag)
	}
	if dir := sourceCheckout(); dir != "" {
		return replacedVersion, dir, nil
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Path == templates.Module && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version, "", nil
	}
	return "", "", errors.New("cannot tell which mcpgen the new project should use: this binary was built without " +
		"its source path (-trimpath) and without a release version; pass --mcpgen DIR (an mcpgen checkout) or --mcpgen vX.Y.Z")
}

// sourceCheckout returns the root of the mcpgen checkout this binary was
// compiled from, when it still exists at the path recorded at build time.
func sourceCheckout() string {
	_, file, _, ok := goruntime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return ""
	}
	root := filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
	if !isCheckout(root) {
		return ""
	}
	return root
}

// isCheckout reports whether dir holds mcpgen's own go.mod.
func isCheckout(dir string) bool {
	f, err := os.Open(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	defer f.Close()
	return moduleLine(f) == templates.Module
}

func moduleLine(r io.Reader) string {
	s := bufio.NewScanner(r)
	for s.Scan() {
		line := strings.TrimSpace(s.Text())
		if rest, ok := strings.CutPrefix(line, "module"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

func viewHint(view bool) string {
	if !view {
		return ""
	}
	return "\nThe tool's view is ui/stats.tsx: hosts that support MCP Apps show it with the result.\n" +
		"mcpgen test renders it from fixtures/text_stats/default.json in headless Chromium."
}
