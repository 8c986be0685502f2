// Package lint turns a connector's model (an ir.Project) into
// directory-readiness findings: the reasons a connector is rejected from
// directories or misbehaves in hosts that a program can see before anyone
// submits it — missing annotations, descriptions hosts truncate or strip,
// names a host cannot map, schemas and results over host limits, views whose
// network use their CSP does not allow, and auth settings that do not match.
//
// Each check is a Rule: data (a code, a name, a title, documentation, a
// severity) and a Run function, one per file. docs/lint.md is generated from
// the rules (go generate), so the documentation cannot drift from the code.
// Findings are positioned diagnostics (generator/diag) that point at the
// exact directive option or doc comment line they are about.
package lint

//go:generate go run ./gendoc -o ../../docs/lint.md

import (
	"bytes"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/mcpgen/mcpgen/generator/diag"
	"github.com/mcpgen/mcpgen/generator/ir"
)

// Rule is one check.
type Rule struct {
	// Code is the stable identifier findings carry, e.g. "ANN001".
	Code string
	// Name is a short kebab-case name, e.g. "tool-annotations".
	Name string
	// Title says in one line what the rule wants.
	Title string
	// Doc is Markdown: why hosts, directories or reviewers care, and how
	// to fix a finding.
	Doc string
	// Severity is the severity of the rule's findings unless a finding
	// sets its own (a rule may have a warning and an error threshold).
	Severity diag.Severity
	// Run checks the project and reports through the pass.
	Run func(*Pass)
}

// Config is what lint knows beyond the project's source.
type Config struct {
	// AuthIssuer is the OAuth issuer the deployed connector verifies tokens
	// with (its --auth-issuer), or "" when it runs without auth. Lint
	// cannot read the flags a binary will be started with, so the CLI takes
	// it from --auth-issuer or $MCPGEN_AUTH_ISSUER.
	AuthIssuer string `json:"authIssuer,omitempty"`
	// AuthKnown reports whether AuthIssuer states the deployment (even as
	// ""); the auth rules are skipped when it is false.
	AuthKnown bool `json:"authKnown,omitempty"`
}

// Finding is one problem a rule found.
type Finding struct {
	// Diagnostic carries the position, the severity, the rule's code (as
	// Code), the message and the fix (as Hint).
	diag.Diagnostic
	// Rule is the rule that reported it.
	Rule *Rule `json:"-"`
	// Tool is the name of the tool the finding is about, or "".
	Tool string `json:"tool,omitempty"`
}

// Tag is what the text of a finding ends with: " [CODE name]" (docs/lint.md
// has a section per rule under that heading).
func (f Finding) Tag() string {
	if f.Rule == nil {
		return ""
	}
	return " [" + f.Rule.Code + " " + f.Rule.Name + "]"
}

// Pass is one rule's run over one project.
type Pass struct {
	Project *ir.Project
	Config  Config

	rule     *Rule
	findings *[]Finding
	sources  map[string][]string
}

// Report adds a finding of the rule's severity at pos about tool (or ""),
// with the fix.
func (p *Pass) Report(pos diag.Pos, tool, fix, format string, args ...any) {
	p.ReportAs(p.rule.Severity, pos, tool, fix, format, args...)
}

// ReportAs adds a finding of the given severity.
func (p *Pass) ReportAs(sev diag.Severity, pos diag.Pos, tool, fix, format string, args ...any) {
	*p.findings = append(*p.findings, Finding{
		Diagnostic: diag.Diagnostic{Pos: pos, Severity: sev, Code: p.rule.Code, Message: fmt.Sprintf(format, args...), Hint: fix},
		Rule:       p.rule,
		Tool:       tool,
	})
}

// Lines returns the lines of a source file (nil when it cannot be read).
// Files are read once per Check.
func (p *Pass) Lines(file string) []string {
	if l, ok := p.sources[file]; ok {
		return l
	}
	var lines []string
	if b, err := os.ReadFile(file); err == nil {
		lines = strings.Split(string(bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))), "\n")
	}
	p.sources[file] = lines
	return lines
}

// Check runs every rule over proj and returns the findings sorted by
// position.
func Check(proj *ir.Project, cfg Config) []Finding {
	var out []Finding
	sources := map[string][]string{}
	for _, r := range Rules() {
		r.Run(&Pass{Project: proj, Config: cfg, rule: r, findings: &out, sources: sources})
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Pos, out[j].Pos
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Col != b.Col {
			return a.Col < b.Col
		}
		return out[i].Code < out[j].Code
	})
	return out
}

// Diagnostics renders findings as diagnostics whose message ends with the
// rule's code and name, e.g. "... [ANN001 tool-annotations]". With asWarnings every finding becomes a
// warning, as generate and dev show them: lint findings never block a build.
func Diagnostics(findings []Finding, asWarnings bool) diag.List {
	var l diag.List
	for _, f := range findings {
		d := f.Diagnostic
		d.Message += f.Tag()
		if asWarnings {
			d.Severity = diag.Warning
		}
		l.Add(d)
	}
	return l
}

// Rules returns every rule, ordered by code.
func Rules() []*Rule {
	out := append([]*Rule(nil), rules...)
	sort.Slice(out, func(i, j int) bool { return out[i].Code < out[j].Code })
	return out
}

// Lookup returns the rule with the given code or name, or nil.
func Lookup(codeOrName string) *Rule {
	for _, r := range rules {
		if r.Code == codeOrName || r.Name == codeOrName {
			return r
		}
	}
	return nil
}

// rules lists every rule; each is declared in its own file.
var rules = []*Rule{
	toolAnnotations,
	toolTitle,
	readWriteTool,
	descriptionEmpty,
	descriptionFirstParagraph,
	descriptionLength,
	descriptionInvisible,
	descriptionGoIdentifier,
	descriptionInjection,
	nameCharset,
	namePrefixedLength,
	nameCaseCollision,
	schemaSize,
	toolCount,
	listWithoutLimit,
	viewWithoutText,
	viewNetworkCSP,
	scopeWithoutIssuer,
	issuerWithoutScopes,
	distRegistryName,
	distVersion,
	distDescription,
	distIcon,
	distSettingUnread,
}
