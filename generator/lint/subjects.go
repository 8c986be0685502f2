package lint

import (
	"strings"

	"github.com/mcpgen/mcpgen/generator/diag"
	"github.com/mcpgen/mcpgen/generator/ir"
)

// subject is a tool, resource or prompt: anything with a description the
// model or the user reads.
type subject struct {
	Kind        string // "tool", "resource" or "prompt"
	Name        string
	Title       string
	Description string
	Func        ir.Func
	Directive   ir.Directive
}

// tool returns the subject's name when it is a tool, for Finding.Tool.
func (s subject) tool() string {
	if s.Kind == "tool" {
		return s.Name
	}
	return ""
}

// subjects lists the project's tools, resources and prompts.
func subjects(proj *ir.Project) []subject {
	var out []subject
	for _, t := range proj.Tools {
		out = append(out, subject{"tool", t.Name, t.Title, t.Description, t.Func, t.Directive})
	}
	for _, r := range proj.Resources {
		out = append(out, subject{"resource", r.Name, r.Title, r.Description, r.Func, r.Directive})
	}
	for _, pr := range proj.Prompts {
		out = append(out, subject{"prompt", pr.Name, pr.Title, pr.Description, pr.Func, pr.Directive})
	}
	return out
}

// docPos returns where the subject's doc comment starts, or the function's
// name when that is unknown.
func docPos(f ir.Func) diag.Pos {
	if f.Doc.File != "" {
		return f.Doc
	}
	return f.Pos
}

// textPos returns the position of the doc comment's text: the first byte
// after "// " on its first line.
func (p *Pass) textPos(f ir.Func) diag.Pos { return p.commentTextPos(docPos(f)) }

// commentTextPos returns the position of the text of the comment at pos:
// the first byte after "// ".
func (p *Pass) commentTextPos(pos diag.Pos) diag.Pos {
	lines := p.Lines(pos.File)
	if pos.Line < 1 || pos.Line > len(lines) || pos.Col < 1 {
		return pos
	}
	line := lines[pos.Line-1]
	i := pos.Col - 1
	if strings.HasPrefix(line[min(i, len(line)):], "//") {
		i += 2
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		pos.Col = i + 1
	}
	return pos
}

// namePos returns where a subject's name is written: the value of its name=
// option, or else the function's name it is derived from.
func namePos(s subject) diag.Pos {
	if o, ok := s.Directive.Lookup("name"); ok {
		return o.ValuePos
	}
	return s.Func.Pos
}
