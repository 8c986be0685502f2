package cli

import (
	"errors"
	"fmt"
	"path/filepath"

	ucli "github.com/urfave/cli/v2"

	"github.com/mcpgen/mcpgen/internal/browser"
	"github.com/mcpgen/mcpgen/internal/pipeline"
	"github.com/mcpgen/mcpgen/internal/viewtest"
)

func testCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "test",
		Usage:     "render every view fixture in headless Chromium and compare screenshots",
		ArgsUsage: "[DIR]",
		Description: "Builds the connector in DIR (default: the current directory), serves it behind the\n" +
			"mcpgen inspector and opens every fixtures/TOOL/NAME.json in headless Chromium, through\n" +
			"the official MCP Apps host bridge, once per host preset (claude, chatgpt) and theme\n" +
			"(light, dark). A case fails when its view throws, logs an error, violates its CSP or\n" +
			"never becomes ready. Screenshots go to DIR/.mcpgen/test; --update keeps them as\n" +
			"goldens beside the fixtures (fixtures/TOOL/NAME.HOST-THEME.png), and later runs fail\n" +
			"when a screenshot changes beyond the tolerance, writing a diff image.\n\n" +
			"A fixture is {\"input\": {...}, \"result\": {...}, \"calls\": {\"TOOL\": {...}}}: the result is a\n" +
			"CallToolResult or just its structuredContent; calls are canned results for tools the\n" +
			"view calls. Chromium is found on PATH (chromium, chromium-browser, google-chrome) or\n" +
			"at $MCPGEN_CHROME.\n\n" +
			"Examples:\n" +
			"  mcpgen test                        run the fixtures of the project here\n" +
			"  mcpgen test --update               accept the current screenshots as goldens\n" +
			"  mcpgen test --host claude --theme dark",
		Flags: []ucli.Flag{
			&ucli.BoolFlag{Name: "update", Usage: "keep this run's screenshots as the goldens"},
			&ucli.StringSliceFlag{Name: "host", Usage: "host preset `NAME` to test (claude, chatgpt; repeatable; default both)"},
			&ucli.StringSliceFlag{Name: "theme", Usage: "`THEME` to test (light, dark; repeatable; default both)"},
			&ucli.Float64Flag{Name: "tolerance", Value: 0.005, Usage: "fraction of pixels a screenshot may change"},
			&ucli.DurationFlag{Name: "timeout", Value: 20e9, Usage: "how long one view may take to become ready"},
			&ucli.BoolFlag{Name: "no-typecheck", Usage: "do not type-check the views with the project's TypeScript compiler"},
		},
		Action: runTest,
	}
}

func runTest(c *ucli.Context) error {
	dir, err := projectDir(c)
	if err != nil {
		return err
	}
	for _, h := range c.StringSlice("host") {
		if h != "claude" && h != "chatgpt" {
			return usagef("unknown host preset %q; valid: claude, chatgpt", h)
		}
	}
	for _, th := range c.StringSlice("theme") {
		if th != "light" && th != "dark" {
			return usagef("unknown theme %q; valid: light, dark", th)
		}
	}
	if err := pipeline.CheckDir(dir); err != nil {
		return err
	}
	stdout, stderr := c.App.Writer, c.App.ErrWriter
	rep, err := viewtest.Run(c.Context, viewtest.Options{
		Dir:       dir,
		Update:    c.Bool("update"),
		Hosts:     c.StringSlice("host"),
		Themes:    c.StringSlice("theme"),
		Tolerance: c.Float64("tolerance"),
		Timeout:   c.Duration("timeout"),
		TypeCheck: !c.Bool("no-typecheck"),
		Stdout:    stdout,
		Stderr:    stderr,
	})
	if errors.Is(err, browser.ErrNoChromium) {
		return fmt.Errorf("test needs headless Chromium: %w", err)
	}
	abs, _ := filepath.Abs(dir)
	if rep != nil && err == nil {
		printDiagnostics(stderr, abs, rep.Diagnostics)
	}
	if err != nil {
		return err
	}
	switch {
	case len(rep.Cases) == 0:
		fmt.Fprintf(stdout, "no fixtures: add fixtures/TOOL/NAME.json ({\"input\": ..., \"result\": ...}) for a tool with a view\n")
	case rep.Failed() > 0:
		fmt.Fprintf(stdout, "FAIL: %d of %d cases failed\n", rep.Failed(), len(rep.Cases))
		return reportedError{}
	default:
		fmt.Fprintf(stdout, "ok: %s passed\n", plural(len(rep.Cases), "case"))
	}
	if n := noGolden(rep); n > 0 && !c.Bool("update") {
		has := fmt.Sprintf("%d cases have", n)
		if n == 1 {
			has = "1 case has"
		}
		fmt.Fprintf(stdout, "%s no golden screenshot to compare with; mcpgen test --update keeps this run's (in fixtures/)\n", has)
	}
	return nil
}

// noGolden counts the cases that passed without a golden to compare with.
func noGolden(rep *viewtest.Report) int {
	n := 0
	for _, c := range rep.Cases {
		if len(c.Failures) == 0 && !c.Compared && !c.Updated {
			n++
		}
	}
	return n
}
