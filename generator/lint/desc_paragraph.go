package lint

import (
	"regexp"
	"strings"

	"github.com/mcpgen/mcpgen/generator/diag"
)

var descriptionFirstParagraph = &Rule{
	Code:     "DESC002",
	Name:     "description-first-paragraph",
	Title:    "A description's first paragraph stands alone",
	Severity: diag.Warning,
	Doc: `Hosts and directories often show only the first paragraph (or first line) of
a description — in tool pickers, permission prompts and listings — and models
weigh it most. It must make sense by itself: a complete sentence that says what
the tool does, not the start of a sentence that goes on in the next
paragraph, not a lead-in to a list ("Options:"), and not a pointer to text
that may not be shown ("see below").

Fix: make the first paragraph one or two complete sentences ending with a full
stop, and put details, lists and examples in later paragraphs.`,
	Run: func(p *Pass) {
		for _, s := range subjects(p.Project) {
			first, rest, _ := strings.Cut(strings.TrimSpace(s.Description), "\n\n")
			first = strings.TrimSpace(first)
			if first == "" {
				continue
			}
			why := ""
			last := first[len(first)-1]
			switch {
			case last == ':' || last == ',' || last == ';':
				why = "it ends with " + string(last) + ", leading into what follows"
			case refersOn.MatchString(first):
				why = "it refers to text that hosts may not show (" + strings.ToLower(refersOn.FindString(first)) + ")"
			case rest != "" && !strings.ContainsRune(".!?)\"'`", rune(last)):
				why = "its sentence does not end before the next paragraph"
			}
			if why == "" {
				continue
			}
			p.Report(p.textPos(s.Func), s.tool(), "make the first paragraph one or two complete sentences that say what it does; put details and lists in later paragraphs",
				"the first paragraph of the description of %s %s does not stand alone: %s", s.Kind, s.Name, why)
		}
	},
}

// refersOn matches phrases that point at text after the first paragraph.
var refersOn = regexp.MustCompile(`(?i)\b(see below|described below|listed below|as follows|the following:)`)
