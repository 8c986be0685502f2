package lint

import (
	"github.com/mcpgen/mcpgen/generator/diag"
	"github.com/mcpgen/mcpgen/generator/ir"
)

// mcpPkg is the Go SDK's mcp package, whose content types a tool may return.
const mcpPkg = "github.com/modelcontextprotocol/go-sdk/mcp"

var viewWithoutText = &Rule{
	Code:     "RES002",
	Name:     "view-without-text",
	Title:    "A tool with a view also gives the model text",
	Severity: diag.Warning,
	Doc: `A view (ui=) is what the user sees; the model sees only the result's content.
Hosts that do not render views — and every host when the view fails to load —
show the model nothing but that content. A tool with a view whose result has no
text (it returns only an error, or only an image, audio or a resource link)
leaves the model blind: it cannot describe, summarize or act on what the user
is looking at.

A struct result is fine: mcpgen sends its JSON as text next to the structured
content. Fix: return a struct (the view reads it with useToolData), or add a
text content that summarizes the result.`,
	Run: func(p *Pass) {
		for _, t := range p.Project.Tools {
			if t.UI == "" {
				continue
			}
			what := ""
			switch {
			case t.Sig.Kind == ir.ResultNone:
				what = "it returns only an error"
			case t.Sig.Kind == ir.ResultContent && t.Sig.Result != nil && t.Sig.Result.PkgPath == mcpPkg:
				switch t.Sig.Result.Name {
				case "ImageContent", "AudioContent", "ResourceLink":
					what = "it returns only " + t.Sig.Result.Name
				}
			}
			if what == "" {
				continue
			}
			pos := t.Func.Pos
			if o, ok := t.Directive.Lookup("ui"); ok {
				pos = o.Pos
			}
			p.Report(pos, t.Name, "return a struct (the view reads it with useToolData and the model gets its JSON), or add a text content that summarizes the result",
				"tool %s has the view %s but its result gives the model no text: %s", t.Name, t.UI, what)
		}
	},
}
