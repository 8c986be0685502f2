package lint

import (
	"strings"

	"github.com/mcpgen/mcpgen/generator/diag"
)

var descriptionEmpty = &Rule{
	Code:     "DESC001",
	Name:     "description-present",
	Title:    "Every tool, resource and prompt has a description that says something",
	Severity: diag.Error,
	Doc: `The doc comment of a handler becomes its description, and the description is
all the model knows about when and how to call a tool. mcpgen already refuses a
handler without a doc comment; this rule also catches comments that say
nothing: only the function's name, a single word, or a placeholder such as
TODO. Directory reviewers reject such tools.

Fix: write what the tool does, what it returns and when to use it, in a full
sentence or two.`,
	Run: func(p *Pass) {
		for _, s := range subjects(p.Project) {
			text := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s.Description), s.Func.Name))
			words := strings.Fields(strings.Trim(text, ".:;,!?"))
			placeholder := len(words) > 0 && isPlaceholder(words[0])
			if len(words) >= 2 && !placeholder {
				continue
			}
			p.Report(p.textPos(s.Func), s.tool(), "say what it does, what it returns and when to use it, in a sentence or two",
				"the description of %s %s says next to nothing: %q", s.Kind, s.Name, strings.TrimSpace(s.Description))
		}
	},
}

func isPlaceholder(word string) bool {
	switch strings.ToUpper(strings.Trim(word, ".:;,!?()")) {
	case "TODO", "FIXME", "XXX", "TBD", "WIP":
		return true
	}
	return false
}
