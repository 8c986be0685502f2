package lint

import (
	"path/filepath"

	"github.com/mcpgen/mcpgen/generator/diag"
)

// Tool count thresholds.
const (
	manyTools = 100  // a warning above this
	maxTools  = 1000 // an error above this
)

var toolCount = &Rule{
	Code:     "SIZE002",
	Name:     "tool-count",
	Title:    "A connector has at most 100 tools (1000 is an error)",
	Severity: diag.Warning,
	Doc: `Every tool's name, description and schemas are sent to the model with every
request, whether or not it is used, so each tool costs context in every
conversation; past a few dozen tools models also choose worse among them, and
some clients cap the number of tools they offer across all servers. More than
100 tools is a warning; more than 1000 is an error (hosts refuse such
servers).

Fix: merge tools that differ only in a parameter into one tool with an enum
input, move rarely used operations into a separate connector, or expose bulk
data as resources instead of tools.`,
	Run: func(p *Pass) {
		n := len(p.Project.Tools)
		if n <= manyTools {
			return
		}
		pos := diag.Pos{File: filepath.Join(p.Project.Dir, "go.mod"), Line: 1, Col: 1}
		fix := "merge tools that differ only in a parameter, or split the connector"
		if n > maxTools {
			p.ReportAs(diag.Error, pos, "", fix, "the connector has %d tools; hosts refuse more than %d", n, maxTools)
			return
		}
		p.Report(pos, "", fix, "the connector has %d tools; every tool costs context in every conversation (keep it at %d or fewer)", n, manyTools)
	},
}
