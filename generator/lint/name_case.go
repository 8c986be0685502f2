package lint

import (
	"strings"

	"github.com/mcpgen/mcpgen/generator/diag"
)

var nameCaseCollision = &Rule{
	Code:     "NAME003",
	Name:     "tool-name-case",
	Title:    "No two tool names differ only in case",
	Severity: diag.Warning,
	Doc: "`get_Note` and `get_note` are different MCP tools, but models do not reliably\n" +
		"tell them apart, and some hosts and gateways match tool names without regard\n" +
		"to case, so one of the two shadows the other.\n\n" +
		"Fix: give one of them a name that differs in more than case, with `name=`.",
	Run: func(p *Pass) {
		first := map[string]string{}
		for _, t := range p.Project.Tools {
			key := strings.ToLower(t.Name)
			other, seen := first[key]
			if !seen {
				first[key] = t.Name
				continue
			}
			p.Report(namePos(subject{Func: t.Func, Directive: t.Directive}), t.Name, "rename one of them with name= so the names differ in more than case",
				"tool names %s and %s differ only in case", other, t.Name)
		}
	},
}
