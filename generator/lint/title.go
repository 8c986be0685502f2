package lint

import (
	"strings"

	"github.com/mcpgen/mcpgen/generator/diag"
)

var toolTitle = &Rule{
	Code:     "ANN002",
	Name:     "tool-title",
	Title:    "Every tool has a title",
	Severity: diag.Error,
	Doc: "The title is the tool's human-readable name: hosts show it in tool lists and\n" +
		"in the permission prompt (\"Allow Find orders?\") instead of `find_orders`. The\n" +
		"Claude connector directory's review criteria require a title on every tool,\n" +
		"beside the read-only or destructive hint.\n\n" +
		"Fix: add `title=\"...\"` to the directive, a few words in sentence case:\n\n" +
		"    //mcpgen:tool readonly title=\"Find orders\"",
	Run: func(p *Pass) {
		for _, t := range p.Project.Tools {
			if strings.TrimSpace(t.Title) != "" {
				continue
			}
			p.Report(t.Directive.Pos, t.Name, `add title="`+titleOf(t.Name)+`" (or another short, human-readable name) to the directive`,
				"tool %s has no title; hosts show the bare name %s to users", t.Name, t.Name)
		}
	},
}

// titleOf proposes a title for a tool name: find_orders → "Find orders".
func titleOf(name string) string {
	words := strings.FieldsFunc(name, func(r rune) bool { return r == '_' || r == '-' || r == '.' })
	if len(words) == 0 {
		return name
	}
	s := strings.ToLower(strings.Join(words, " "))
	return strings.ToUpper(s[:1]) + s[1:]
}
