package lint

import (
	"strings"

	"github.com/mcpgen/mcpgen/generator/diag"
)

var descriptionFieldGoName = &Rule{
	Code:     "DESC007",
	Name:     "field-description-go-name",
	Title:    "A property's or enum value's description does not open with a Go name",
	Severity: diag.Warning,
	Doc: `The doc comment of a field becomes the description of its property, and
without one the doc comment of the field's type does; the doc comment of an
enum constant describes its value ("- \"word\": ..."). Go's convention opens
each with the name it documents — "SortOrder orders listed expenses",
"Words ranks words" — but the model never sees those Go names: it knows the
property as order and the value as "word". A Go name that differs from what
the model sees reads as noise, or as a name to send that does not exist.

A description that opens with the property's own JSON name ("Query is what
to look for" for query) is fine.

Fix: start the doc comment with what it is ("Orders listed expenses.",
"Ranks words."), or give the field a doc comment of its own rather than
inheriting its type's.`,
	Run: func(p *Pass) {
		seen := map[diag.Pos]bool{}
		for _, t := range p.Project.Tools {
			for _, d := range t.Decls {
				if d.Doc == "" || seen[d.DocPos] {
					continue
				}
				seen[d.DocPos] = true
				seeName := strings.Trim(d.JSONName, `"`)
				switch {
				case d.Kind == "const":
					if rest, ok := opensWith(d.Doc, d.GoName); ok && !sameName(d.GoName, seeName) {
						p.Report(p.commentTextPos(d.DocPos), t.Name, startFix(rest),
							"the description of value %s of %s opens with the Go name %s, which the model never sees", d.JSONName, d.Owner, d.GoName)
					}
				case d.TypeDoc:
					if rest, ok := opensWith(d.Doc, d.TypeName); ok && !sameName(d.TypeName, seeName) {
						p.Report(p.commentTextPos(d.DocPos), t.Name, startFix(rest)+", or give the field "+d.Owner+"."+d.GoName+" a doc comment of its own",
							"property %q takes its description from type %s, whose doc opens with the Go name %s, which the model never sees", seeName, d.TypeName, d.TypeName)
					}
				default:
					if rest, ok := opensWith(d.Doc, d.GoName); ok && !sameName(d.GoName, seeName) {
						p.Report(p.commentTextPos(d.DocPos), t.Name, startFix(rest),
							"the description of property %q opens with the Go name %s, which the model never sees", seeName, d.GoName)
					}
				}
			}
		}
	},
}

// opensWith reports whether doc opens with the word name, and returns the
// rest.
func opensWith(doc, name string) (string, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(doc), name)
	if !ok || name == "" || (rest != "" && !strings.HasPrefix(rest, " ") && !strings.HasPrefix(rest, "\n")) {
		return "", false
	}
	return strings.TrimSpace(rest), true
}

// sameName reports whether a Go name is the name the model sees, ignoring
// case, "_" and "-" (Text for text, StopWords for stop_words).
func sameName(goName, seen string) bool {
	norm := func(s string) string {
		return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(s))
	}
	return norm(goName) == norm(seen)
}

// startFix proposes the description without the Go name.
func startFix(rest string) string {
	fix := "start with what it is"
	if rest != "" {
		fix += ", e.g. " + quoteStart(rest)
	}
	return fix
}
