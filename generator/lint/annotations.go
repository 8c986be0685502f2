package lint

import "github.com/mcpgen/mcpgen/generator/diag"

var toolAnnotations = &Rule{
	Code:     "ANN001",
	Name:     "tool-annotations",
	Title:    "Every tool states readonly, additive or destructive",
	Severity: diag.Error,
	Doc: `A tool's annotations tell the host whether calling it can change anything.
Hosts use them to decide when to ask the user for confirmation, and connector
directories reject tools without them: a missing annotation is the most common
reason a submission is sent back. Without a flag, mcpgen announces the MCP
defaults (not read-only, destructive), which makes every call of a harmless
tool look dangerous.

Fix: add one of the flags to the tool's directive:

- ` + "`readonly`" + ` — the tool only reads (also implies idempotent);
- ` + "`additive`" + ` — it writes but never deletes or overwrites;
- ` + "`destructive`" + ` — it may delete or overwrite data.

    //mcpgen:tool readonly title="Find orders"`,
	Run: func(p *Pass) {
		for _, t := range p.Project.Tools {
			d := t.Directive
			if _, ok := d.Lookup("readonly"); ok {
				continue
			}
			if _, ok := d.Lookup("additive"); ok {
				continue
			}
			if _, ok := d.Lookup("destructive"); ok {
				continue
			}
			p.Report(d.Pos, t.Name, "add readonly (it only reads), additive (it writes but deletes nothing) or destructive (it may delete or overwrite) to the directive",
				"tool %s does not say whether it changes anything: hosts then treat it as destructive", t.Name)
		}
	},
}
