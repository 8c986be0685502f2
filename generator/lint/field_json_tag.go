package lint

import (
	"strings"
	"unicode"

	"github.com/mcpgen/mcpgen/generator/diag"
	"github.com/mcpgen/mcpgen/generator/ir"
)

var fieldJSONTag = &Rule{
	Code:     "FIELD001",
	Name:     "field-json-tag",
	Title:    "Every field of a tool's input and output is named by a json tag",
	Severity: diag.Warning,
	Doc: "A tool's arguments and structured result are named as encoding/json names\n" +
		"them: by the field's `json` tag, and without one by the Go field name itself.\n" +
		"A field without a tag therefore becomes a PascalCase argument (`DryRun`) next\n" +
		"to camelCase or snake_case ones, and without `omitempty` it is *required*: a\n" +
		"`bool` the model may not even know about must be sent on every call, or the\n" +
		"call is refused. Nothing fails to compile, so the mistake is easy to miss.\n\n" +
		"Fix: give the field a `json` tag in the style of its neighbours, with\n" +
		"`omitempty` when it may be left out:\n\n" +
		"    // DryRun reports what would change without changing it.\n" +
		"    DryRun bool `json:\"dryRun,omitempty\"`\n\n" +
		"(A field that is not meant to be part of the schema takes `json:\"-\"`.)",
	Run: func(p *Pass) {
		seen := map[diag.Pos]bool{}
		for _, t := range p.Project.Tools {
			for _, d := range t.Decls {
				if d.Kind != "field" || d.Tagged || seen[d.Pos] {
					continue
				}
				seen[d.Pos] = true
				name := jsonNameFor(d.GoName, snakeNeighbours(t.Decls, d.Owner))
				what, required := "argument", ""
				if d.Output {
					what = "result property"
				} else if d.Required {
					required = ", and a required one"
				}
				fix := "add a json tag: " + d.GoName + " " + d.Type + " `json:\"" + name + "\"`"
				if !d.Output && d.Required {
					fix += " (`json:\"" + name + ",omitempty\"` if it may be left out)"
				}
				missing := "has no json tag"
				if d.JSONTag != "" {
					// `json:",omitempty"`: options, but no name.
					missing = "has no name in its json tag"
					fix = "name it in the tag: `json:\"" + name + d.JSONTag + "\"`"
				}
				p.Report(d.Pos, t.Name, fix, "field %s.%s %s, so the model sees the %s %q%s", d.Owner, d.GoName, missing, what, d.JSONName, required)
			}
		}
	},
}

// snakeNeighbours reports whether the tagged fields of owner use snake_case.
func snakeNeighbours(decls []ir.Decl, owner string) bool {
	for _, d := range decls {
		if d.Kind == "field" && d.Owner == owner && d.Tagged && strings.Contains(d.JSONName, "_") {
			return true
		}
	}
	return false
}

// jsonNameFor proposes a JSON name for a Go field name: lowerCamelCase
// (DryRun → dryRun, ID → id, URLPath → urlPath), or snake_case.
func jsonNameFor(goName string, snake bool) string {
	var words []string
	for _, part := range strings.Split(goName, "_") {
		rs := []rune(part)
		start := 0
		for i := 1; i < len(rs); i++ {
			lowerToUpper := !unicode.IsUpper(rs[i-1]) && unicode.IsUpper(rs[i])
			acronymEnd := unicode.IsUpper(rs[i-1]) && unicode.IsUpper(rs[i]) && i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if lowerToUpper || acronymEnd {
				words = append(words, strings.ToLower(string(rs[start:i])))
				start = i
			}
		}
		if start < len(rs) {
			words = append(words, strings.ToLower(string(rs[start:])))
		}
	}
	if snake {
		return strings.Join(words, "_")
	}
	for i := 1; i < len(words); i++ {
		r := []rune(words[i])
		r[0] = unicode.ToUpper(r[0])
		words[i] = string(r)
	}
	return strings.Join(words, "")
}
