package lint

import "github.com/mcpgen/mcpgen/generator/diag"

// maxDescription is where hosts truncate descriptions.
const maxDescription = 2048

var descriptionLength = &Rule{
	Code:     "DESC003",
	Name:     "description-length",
	Title:    "A description is at most 2 KB",
	Severity: diag.Warning,
	Doc: `Hosts truncate tool descriptions at about 2 KB (Claude Code cuts them at 2048
characters), silently, so whatever comes last — often the caveats — never
reaches the model. Every byte of every description is also sent with every
request, so long descriptions cost context in every conversation.

Fix: keep the doc comment to what the model needs to choose and call the
tool; move the meaning of each input into the comments of the input struct's
fields (they become the schema's property descriptions).`,
	Run: func(p *Pass) {
		for _, s := range subjects(p.Project) {
			if n := len(s.Description); n > maxDescription {
				p.Report(p.textPos(s.Func), s.tool(), "shorten the doc comment; move details about inputs into the input struct's field comments",
					"the description of %s %s is %d bytes; hosts truncate descriptions at %d", s.Kind, s.Name, n, maxDescription)
			}
		}
	},
}
