package lint

import "github.com/mcpgen/mcpgen/generator/diag"

// maxSchema is the size hosts accept for one tool's schemas.
const maxSchema = 32 * 1024

var schemaSize = &Rule{
	Code:     "SIZE001",
	Name:     "tool-schema-size",
	Title:    "A tool's schemas are at most 32 KB",
	Severity: diag.Warning,
	Doc: `A tool's input and output schemas are sent to the model with every request.
Hosts reject or drop tools whose schemas are much over 32 KB, and well before
that a large schema costs context in every conversation and makes the model
worse at filling in the arguments.

Fix: split the tool into tools with smaller inputs, flatten deeply nested or
repeated structs, and drop output fields the model does not need.`,
	Run: func(p *Pass) {
		for _, t := range p.Project.Tools {
			if n := len(t.InputSchema) + len(t.OutputSchema); n > maxSchema {
				p.Report(t.Func.Pos, t.Name, "split the tool or simplify its input and output types",
					"the schemas of tool %s are %d KB (input %d, output %d bytes); hosts drop tools whose schemas are over 32 KB",
					t.Name, (n+1023)/1024, len(t.InputSchema), len(t.OutputSchema))
			}
		}
	},
}
