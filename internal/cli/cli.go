// Package cli turns mcpgen's command line into calls to its libraries. It
// parses flags and arguments, calls internal/pipeline, templates and
// internal/dev, and renders their results and diagnostics. Run is the whole
// command, so it is tested in-process with buffers.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/mcpgen/mcpgen/generator/diag"
	"github.com/mcpgen/mcpgen/internal/pipeline"
)

// Exit codes.
const (
	ExitOK      = 0 // success
	ExitFailed  = 1 // diagnostics, a failed check or build, or any other failure
	ExitUsage   = 2 // the command line itself is wrong
	programName = "mcpgen"
)

// usageError is a mistake on the command line.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// reportedError is a failure whose details were already printed.
type reportedError struct{}

func (reportedError) Error() string { return "failed" }

// Run runs mcpgen with args (args[0] is the program name) and returns the
// process exit code.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	app := newApp(stdout, stderr)
	if len(args) == 0 {
		args = []string{programName}
	}
	if err := helpTopic(app, args); err != nil {
		return exitCode(err, stderr)
	}
	err := app.RunContext(ctx, intersperse(app, args))
	return exitCode(err, stderr)
}

// helpTopic rejects `mcpgen help WORD` for a WORD that is no command as a
// usage error, with the closest command, as an unknown command is.
func helpTopic(app *ucli.App, args []string) error {
	if len(args) < 3 || (args[1] != "help" && args[1] != "h") || strings.HasPrefix(args[2], "-") {
		return nil
	}
	names := []string{"help"}
	for _, cmd := range app.Commands {
		if cmd.HasName(args[2]) {
			return nil
		}
		names = append(names, cmd.Name)
	}
	if args[2] == "help" || args[2] == "h" {
		return nil
	}
	return usagef("no help for %q: there is no such command%s", args[2], suggest(args[2], names))
}

func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return ExitOK
	}
	var ue *usageError
	var le *diag.ListError
	var be *pipeline.BuildError
	switch {
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "%s: %s\nRun '%s help' for usage.\n", programName, ue.msg, programName)
		return ExitUsage
	case errors.As(err, &reportedError{}):
		return ExitFailed
	case errors.As(err, &le):
		printDiagnostics(stderr, le.Root, le.List)
		return ExitFailed
	case errors.As(err, &be):
		fmt.Fprintf(stderr, "%s: %v\n", programName, be)
		return ExitFailed
	case errors.Is(err, context.Canceled):
		fmt.Fprintf(stderr, "%s: interrupted\n", programName)
		return ExitFailed
	}
	fmt.Fprintf(stderr, "%s: %v\n", programName, err)
	return ExitFailed
}

// printDiagnostics renders every diagnostic relative to root, then a
// summary line such as "2 errors, 1 warning".
func printDiagnostics(w io.Writer, root string, l diag.List) {
	if len(l) == 0 {
		return
	}
	io.WriteString(w, l.Render(root))
	fmt.Fprintln(w, summary(l))
}

func summary(l diag.List) string {
	var errs, warns int
	for _, d := range l {
		if d.Severity == diag.Error {
			errs++
		} else {
			warns++
		}
	}
	var parts []string
	if errs > 0 {
		parts = append(parts, plural(errs, "error"))
	}
	if warns > 0 {
		parts = append(parts, plural(warns, "warning"))
	}
	return strings.Join(parts, ", ")
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func newApp(stdout, stderr io.Writer) *ucli.App {
	app := &ucli.App{
		Name:  programName,
		Usage: "write MCP connectors as annotated Go functions",
		UsageText: "mcpgen new DIR                 scaffold a working connector\n" +
			"mcpgen dev [DIR]               serve it and rebuild on every change\n" +
			"mcpgen build [DIR] [-o FILE]   one binary: tools, schemas, views and runtime\n" +
			"mcpgen install TARGET [DIR]    build it and add it to Claude Desktop, Claude Code, Cursor, VS Code",
		Description: "mcpgen reads //mcpgen:tool, //mcpgen:resource and //mcpgen:prompt directives on Go\n" +
			"functions, generates their MCP registrations (mcpgen_gen.go), bundles the React views\n" +
			"under ui/ and builds one self-contained server binary.\n\n" +
			"Exit status: 0 success, 1 diagnostics or a failed check/build, 2 a usage error.\n" +
			"Docs: docs/getting-started.md, docs/cli.md, docs/directives.md.",
		Version:         version(),
		Writer:          stdout,
		ErrWriter:       stderr,
		HideHelpCommand: false,
		Suggest:         true,
		// Errors are turned into exit codes by Run, never by os.Exit.
		ExitErrHandler: func(*ucli.Context, error) {},
		OnUsageError: func(c *ucli.Context, err error, _ bool) error {
			return flagError(err, c.App.Flags)
		},
		Action: func(c *ucli.Context) error {
			if c.Args().Present() {
				var names []string
				for _, cmd := range c.App.Commands {
					names = append(names, cmd.Name)
				}
				return usagef("unknown command %q%s", c.Args().First(), suggest(c.Args().First(), names))
			}
			ucli.ShowAppHelp(c)
			return &usageError{msg: "no command given"}
		},
		Commands: []*ucli.Command{
			newCommand(),
			generateCommand(),
			buildCommand(),
			devCommand(),
			testCommand(),
			installCommand(),
			uninstallCommand(),
			lintCommand(),
		},
	}
	for _, cmd := range app.Commands {
		flags := cmd.Flags
		cmd.OnUsageError = func(_ *ucli.Context, err error, _ bool) error {
			return flagError(err, flags)
		}
	}
	return app
}

// projectDir returns the optional DIR argument (default ".") and rejects
// extra arguments.
func projectDir(c *ucli.Context) (string, error) {
	switch c.NArg() {
	case 0:
		return ".", nil
	case 1:
		return c.Args().First(), nil
	}
	return "", usagef("%s takes at most one directory, got %d arguments: %s", c.Command.Name, c.NArg(), strings.Join(c.Args().Slice(), " "))
}

// intersperse moves a command's flags in front of its positional arguments,
// so `mcpgen build DIR -o FILE` means what it says: the flag package stops
// at the first positional argument otherwise.
func intersperse(app *ucli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	// Global flags come first; find the command word.
	i := 1
	for i < len(args) && strings.HasPrefix(args[i], "-") && args[i] != "--" {
		i++
	}
	if i >= len(args) {
		return args
	}
	cmd := app.Command(args[i])
	if cmd == nil {
		return args
	}
	takesValue := map[string]bool{}
	for _, f := range cmd.Flags {
		_, isBool := f.(*ucli.BoolFlag)
		for _, n := range f.Names() {
			takesValue[n] = !isBool
		}
	}
	var flags, pos []string
	rest := args[i+1:]
	for j := 0; j < len(rest); j++ {
		a := rest[j]
		if a == "--" {
			pos = append(pos, rest[j+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			pos = append(pos, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		if takesValue[name] && j+1 < len(rest) {
			flags = append(flags, rest[j+1])
			j++
		}
	}
	out := append([]string{}, args[:i+1]...)
	out = append(out, flags...)
	if len(pos) > 0 {
		out = append(out, "--")
		out = append(out, pos...)
	}
	return out
}

// flagError turns the flag package's complaint into a usage error, with the
// closest valid flag when the flag is unknown.
func flagError(err error, flags []ucli.Flag) error {
	msg := err.Error()
	given, ok := strings.CutPrefix(msg, "flag provided but not defined: ")
	if !ok {
		return usagef("%s", msg)
	}
	var names []string
	for _, f := range flags {
		names = append(names, f.Names()...)
	}
	// The flag package names the flag with one dash whatever was typed;
	// show it as the help text writes flags.
	name := strings.TrimLeft(given, "-")
	if best := closest(name, names); best != "" {
		return usagef("unknown flag %s; did you mean %s?", dashed(name), dashed(best))
	}
	return usagef("unknown flag %s", dashed(name))
}

func dashed(flag string) string {
	if len(flag) == 1 {
		return "-" + flag
	}
	return "--" + flag
}

// suggest returns `; did you mean "X"?` for the candidate closest to word,
// or "".
func suggest(word string, candidates []string) string {
	if best := closest(word, candidates); best != "" {
		return fmt.Sprintf("; did you mean %q?", best)
	}
	return ""
}

// closest returns the candidate word most likely misspells, or "".
func closest(word string, candidates []string) string { return diag.Closest(word, candidates) }
