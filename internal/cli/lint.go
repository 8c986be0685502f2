package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/mcpgen/mcpgen/generator/diag"
	"github.com/mcpgen/mcpgen/generator/lint"
	"github.com/mcpgen/mcpgen/internal/pipeline"
)

func lintCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "lint",
		Usage:     "check the connector for what hosts and connector directories reject",
		ArgsUsage: "[DIR]",
		Description: "Checks the connector in DIR (default: the current directory) for what gets it rejected\n" +
			"from connector directories or makes it misbehave in hosts: missing annotations, descriptions\n" +
			"hosts truncate or strip, names a host cannot map, schemas and results over host limits,\n" +
			"views whose network use their CSP does not allow, scopes without an issuer. Each finding\n" +
			"has a rule code, a place (file:line:col) and the fix; docs/lint.md documents every\n" +
			"rule. Writes nothing.\n\n" +
			"Exit status: 1 when there is an error (or, with --strict, any warning), else 0.\n\n" +
			"Examples:\n" +
			"  mcpgen lint                      lint the connector in the current directory\n" +
			"  mcpgen lint ./acme --strict      exit 1 on warnings too (for CI)\n" +
			"  mcpgen lint --ignore DESC005     leave out the findings of one rule\n" +
			"  mcpgen lint --format json | jq '.[] | select(.severity == \"error\")'",
		Flags: []ucli.Flag{
			&ucli.BoolFlag{Name: "strict", Usage: "exit 1 when there is any warning (errors always exit 1)"},
			&ucli.StringFlag{Name: "format", Value: "text", Usage: "`text` or json (an array of {rule, severity, file, line, column, message, fix, tool})"},
			&ucli.StringSliceFlag{
				Name:  "ignore",
				Usage: "leave out the findings of rule `CODE` (or its name, e.g. DESC005 or description-go-identifier); repeatable or comma-separated",
			},
			&ucli.StringFlag{
				Name:    "auth-issuer",
				EnvVars: []string{"MCPGEN_AUTH_ISSUER"},
				Usage:   "the OAuth issuer `URL` the deployed connector verifies tokens with (its --auth-issuer); empty: it runs without auth. Checks scope= against it",
			},
		},
		Action: runLint,
	}
}

// ruleCodes returns the codes of the lint rules a repeatable,
// comma-separated flag names by code or name; an unknown rule is a usage
// error naming the closest.
func ruleCodes(c *ucli.Context, flag string) ([]string, error) {
	var codes []string
	for _, v := range c.StringSlice(flag) {
		for _, name := range strings.Split(v, ",") {
			name = strings.TrimSpace(name)
			if name == "" {
				continue
			}
			r := lint.Lookup(name)
			if r == nil {
				var all []string
				for _, r := range lint.Rules() {
					all = append(all, r.Code, r.Name)
				}
				return nil, usagef("--%s %s: no such rule%s (docs/lint.md lists them)", flag, name, suggest(name, all))
			}
			codes = append(codes, r.Code)
		}
	}
	return codes, nil
}

// lintItem is one finding in --format json. The field set and names are a
// public contract: scripts and CI read them.
type lintItem struct {
	Rule     string `json:"rule"`
	Severity string `json:"severity"`
	File     string `json:"file"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Message  string `json:"message"`
	Fix      string `json:"fix"`
	Tool     string `json:"tool"`
}

func runLint(c *ucli.Context) error {
	dir, err := projectDir(c)
	if err != nil {
		return err
	}
	format := c.String("format")
	if format != "text" && format != "json" {
		return usagef("--format %q: want text or json", format)
	}
	ignored, err := ruleCodes(c, "ignore")
	if err != nil {
		return err
	}
	ignore := map[string]bool{}
	for _, code := range ignored {
		ignore[code] = true
	}
	rep, err := pipeline.Generate(c.Context, pipeline.Options{Dir: dir, Minify: true, Lint: lint.Config{AuthIssuer: c.String("auth-issuer"), AuthKnown: true}},
		pipeline.GenerateOptions{Check: true})
	var le *diag.ListError
	if err != nil && !errors.As(err, &le) {
		return err
	}
	// The project's own diagnostics (errors stop here) without the lint
	// findings they carry as warnings, then the findings with their own
	// severity.
	var findings []lint.Finding
	for _, d := range rep.Diagnostics {
		if lint.Lookup(d.Code) == nil {
			findings = append(findings, lint.Finding{Diagnostic: d})
		}
	}
	for _, f := range rep.Lint {
		if !ignore[f.Code] {
			findings = append(findings, f)
		}
	}

	out := c.App.Writer
	if format == "json" {
		items := []lintItem{}
		for _, f := range findings {
			items = append(items, lintItem{
				Rule: f.Code, Severity: f.Severity.String(), File: relFile(rep.Dir, f.Pos.File),
				Line: f.Pos.Line, Column: f.Pos.Col, Message: f.Message, Fix: f.Hint, Tool: f.Tool,
			})
		}
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(items); err != nil {
			return err
		}
	} else {
		printLint(out, rep.Dir, findings)
	}
	var errs, warns int
	for _, f := range findings {
		if f.Severity == diag.Error {
			errs++
		} else {
			warns++
		}
	}
	if errs > 0 || (c.Bool("strict") && warns > 0) {
		return reportedError{}
	}
	return nil
}

// printLint renders findings one per line (the fix indented below), each
// message ending with its rule's code and name, then a summary.
func printLint(w io.Writer, root string, findings []lint.Finding) {
	if len(findings) == 0 {
		fmt.Fprintln(w, "no findings")
		return
	}
	var l diag.List
	for _, f := range findings {
		d := f.Diagnostic
		d.Message += f.Tag()
		l.Add(d)
	}
	io.WriteString(w, l.Render(root))
	fmt.Fprintln(w, summary(l))
}

// relFile makes file relative to root when it lies under it, with slashes.
func relFile(root, file string) string {
	if file == "" || !filepath.IsAbs(file) {
		return filepath.ToSlash(file)
	}
	if rel, err := filepath.Rel(root, file); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(file)
}
