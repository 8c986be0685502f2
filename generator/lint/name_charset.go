package lint

import (
	"regexp"

	"github.com/mcpgen/mcpgen/generator/diag"
)

// apiToolName is what the Anthropic API accepts as a tool name.
var apiToolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

var nameCharset = &Rule{
	Code:       "NAME001",
	Name:       "tool-name-charset",
	Title:      "Tool names are at most 64 characters of a-z, A-Z, 0-9, _ and -",
	Severity:   diag.Error,
	FailsBuild: true,
	Doc: "MCP allows tool names of up to 128 characters including `.`, but the Anthropic\n" +
		"API accepts only names matching `^[a-zA-Z0-9_-]{1,64}$` — and Claude, and every\n" +
		"host built on the API, passes MCP tools to the model by their names. A tool\n" +
		"named `orders.find` or with a 70-character name cannot be offered to Claude:\n" +
		"depending on the host, it is dropped or the whole server fails to load.\n\n" +
		"Fix: rename it with `name=`, using letters, digits, `_` and `-` only\n" +
		"(`name=orders_find`).",
	Run: func(p *Pass) {
		for _, t := range p.Project.Tools {
			if apiToolName.MatchString(t.Name) {
				continue
			}
			why := "it is longer than 64 characters"
			if len(t.Name) <= 64 {
				why = "it holds characters other than a-z, A-Z, 0-9, _ and -"
			}
			p.Report(namePos(subject{Func: t.Func, Directive: t.Directive}), t.Name, "rename it with name=, using at most 64 letters, digits, _ and -",
				"the Anthropic API cannot call tool %q: %s", t.Name, why)
		}
	},
}
