package lint

import (
	"regexp"
	"strings"

	"github.com/mcpgen/mcpgen/generator/diag"
)

var descriptionInjection = &Rule{
	Code:     "DESC006",
	Name:     "description-injection",
	Title:    "Descriptions describe the tool; they do not instruct the model",
	Severity: diag.Warning,
	Doc: `A description is read by the model as text from a third party. Connector
directories reject descriptions that read like prompt injection: telling the
model to ignore its instructions, to keep something from the user, to call this
tool before or instead of any other, or to take its instructions from an
outside source; hidden markup such as <IMPORTANT> or <system> is a classic
sign. Hosts may also warn users about such tools.

The rule looks for those phrasings; a finding may be a false alarm, which the
fix then is to reword.

Fix: say what the tool does, what it returns and when it is the right tool
("Use it to find a note's ID before update_note" is fine); leave choosing
between tools, and what to tell the user, to the model and the host.`,
	Run: func(p *Pass) {
		for _, s := range subjects(p.Project) {
			text := strings.Join(strings.Fields(s.Description), " ") // a phrase may span lines
			m := injection.FindStringIndex(text)
			if m == nil {
				continue
			}
			phrase := text[m[0]:m[1]]
			pos := docPos(s.Func)
			if at := p.findText(s.Func.Pos.File, docPos(s.Func).Line, s.Func.Pos.Line, phrase); at.File != "" {
				pos = at
			}
			p.Report(pos, s.tool(), "reword it to describe what it does and returns; leave the choice of tools and what to tell the user to the model",
				"the description of %s %s reads like an instruction to the model: %q", s.Kind, s.Name, phrase)
		}
	},
}

// injection matches phrasings that steer the model rather than describe a
// tool.
var injection = regexp.MustCompile(`(?i)` +
	`ignore (all |any )?(the )?(previous|prior|above|earlier|other|system) (instructions|prompts?|rules)` +
	`|(do not|don't|never) (tell|inform|mention|reveal|show)( this| it)?( to)? the user` +
	`|(always|must) (call|use|run) this tool (first|before)` +
	`|(instead of|rather than) (using |calling )?any other tools?` +
	`|(do not|don't|never) (call|use) (any )?other tools?` +
	`|<\s*/?\s*(important|system|instructions?|admin)\s*>` +
	`|(read|fetch|load|follow) (your |the |new )?instructions (from|at) `)

// findText returns where text starts in file between lines from and to.
func (p *Pass) findText(file string, from, to int, text string) diag.Pos {
	lines := p.Lines(file)
	for n := max(from, 1); n <= to && n <= len(lines); n++ {
		if i := indexFold(lines[n-1], text); i >= 0 {
			return diag.Pos{File: file, Line: n, Col: i + 1}
		}
	}
	return diag.Pos{}
}

// indexFold is strings.Index ignoring ASCII case.
func indexFold(s, sub string) int {
	re, err := regexp.Compile(`(?i)` + regexp.QuoteMeta(sub))
	if err != nil {
		return -1
	}
	if m := re.FindStringIndex(s); m != nil {
		return m[0]
	}
	return -1
}
