package cli

import (
	"encoding/json"
	"fmt"

	ucli "github.com/urfave/cli/v2"

	"github.com/mcpgen/mcpgen/internal/pipeline"
)

func generateCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "generate",
		Usage:     "write the generated code (mcpgen_gen.go, view bundles, ui/mcpgen.d.ts)",
		ArgsUsage: "[DIR]",
		Description: "Reads the //mcpgen: directives of the module in DIR (default: the current directory),\n" +
			"bundles its views under ui/, and writes the generated files. Files whose bytes would not\n" +
			"change are left alone, so the Go build cache stays warm. Every problem is reported at\n" +
			"file:line:col, then a summary line.\n\n" +
			"Examples:\n" +
			"  mcpgen generate                 regenerate the connector in the current directory\n" +
			"  mcpgen generate ./acme --check  exit 1 and list the files that are out of date (for CI)\n" +
			"  mcpgen generate --ir | jq '.tools[].name'   print the connector model as JSON\n\n" +
			"The scaffold's main.go carries //go:generate go tool mcpgen generate, so `go generate` works too\n(with the mcpgen the project pins in go.mod).",
		Flags: []ucli.Flag{
			&ucli.BoolFlag{Name: "check", Usage: "write nothing; exit 1 and list the files that would change"},
			&ucli.BoolFlag{Name: "ir", Usage: "write nothing; print the connector model (IR) as JSON on stdout"},
		},
		Action: runGenerate,
	}
}

func runGenerate(c *ucli.Context) error {
	dir, err := projectDir(c)
	if err != nil {
		return err
	}
	check, dumpIR := c.Bool("check"), c.Bool("ir")
	if check && dumpIR {
		return usagef("--check and --ir cannot be combined")
	}
	stdout, stderr := c.App.Writer, c.App.ErrWriter
	rep, err := pipeline.Generate(c.Context, pipeline.Options{Dir: dir, Minify: true}, pipeline.GenerateOptions{Check: check || dumpIR})
	if err != nil {
		return err
	}
	printDiagnostics(stderr, rep.Dir, rep.Diagnostics)
	switch {
	case dumpIR:
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep.Project)
	case check:
		if len(rep.Changed) == 0 {
			return nil
		}
		for _, f := range rep.Changed {
			fmt.Fprintf(stderr, "%s: out of date\n", f)
		}
		fmt.Fprintf(stderr, "%s; run `mcpgen generate` and commit the result\n", plural(len(rep.Changed), "generated file")+" "+isAre(len(rep.Changed))+" out of date")
		return reportedError{}
	}
	for _, f := range rep.Changed {
		fmt.Fprintf(stdout, "wrote %s\n", f)
	}
	return nil
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}
