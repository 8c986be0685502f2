package lint

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/generator/diag"
)

var descriptionGoIdentifier = &Rule{
	Code:     "DESC005",
	Name:     "description-go-identifier",
	Title:    "A description does not open with the Go function's name",
	Severity: diag.Warning,
	Doc: `Go's convention starts a doc comment with the name it documents ("AddNote
adds a note"), but the doc comment of a handler is also its description, and
the model never sees the Go name: it knows the tool as add_note. "AddNote adds
a note" reads as noise at best, and at worst makes the model call a tool named
AddNote that does not exist.

Fix: start with what the tool does, e.g. "Adds a note ..." or "Add a note
...". (Linters that insist on Go's convention for exported functions can be
told to skip handlers, or the handler can be unexported when it is in the
module's root package.)`,
	Run: func(p *Pass) {
		for _, s := range subjects(p.Project) {
			name := s.Func.Name
			rest, ok := opensWith(s.Description, name)
			if !ok {
				continue
			}
			fix := "start with what it does"
			if rest != "" {
				fix += ", e.g. " + quoteStart(rest)
			}
			p.Report(p.textPos(s.Func), s.tool(), fix,
				"the description of %s %s opens with the Go name %s, which the model never sees", s.Kind, s.Name, name)
		}
	},
}

// quoteStart proposes the description without the Go name: its first words,
// capitalized, then "...".
func quoteStart(rest string) string {
	words := strings.Fields(rest)
	if len(words) > 1 && (words[0] == "is" || words[0] == "are") {
		words = words[1:] // "Orders is a list of ..." → "A list of ..."
	}
	if len(words) > 5 {
		words = append(words[:5], "...")
	}
	s := strings.Join(words, " ")
	r, n := utf8.DecodeRuneInString(s)
	return `"` + string(unicode.ToUpper(r)) + s[n:] + `"`
}
