package lint

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/mcpgen/mcpgen/generator/diag"
)

var descriptionInvisible = &Rule{
	Code:     "DESC004",
	Name:     "description-invisible-unicode",
	Title:    "Descriptions, titles and schemas hold no invisible or bidirectional Unicode",
	Severity: diag.Error,
	Doc: `Zero-width characters, bidirectional controls (U+202A–U+202E, U+2066–U+2069),
Unicode tag characters (U+E0000–U+E007F) and other invisible format or control
characters show nothing to a person reading a description — or the field
comments that become the input schema's descriptions — but are read by the
model. They are the classic way to hide instructions in a tool description
("tool poisoning"), so directories reject them and hosts strip them — which
changes the text the model sees from the text you tested.

Fix: delete the character (the finding gives its position and code point);
retype the line if your editor does not show it.`,
	Run: func(p *Pass) {
		for _, s := range subjects(p.Project) {
			for _, field := range []struct{ what, text string }{{"description", s.Description}, {"title", s.Title}} {
				r, ok := firstInvisible(field.text)
				if !ok {
					continue
				}
				from, to := docPos(s.Func).Line, s.Func.Pos.Line
				if field.what == "title" {
					from, to = s.Directive.Pos.Line, s.Directive.Pos.Line
				}
				pos := p.findRune(s.Func.Pos.File, from, to, r)
				if pos.File == "" {
					pos = docPos(s.Func)
				}
				p.Report(pos, s.tool(), "delete the character; retype the line if your editor does not show it",
					"the %s of %s %s holds the invisible character %s", field.what, s.Kind, s.Name, runeName(r))
			}
		}
		// Field comments become schema descriptions, which the model reads
		// as closely as the tool's own.
		for _, t := range p.Project.Tools {
			for _, sc := range []struct {
				what   string
				schema json.RawMessage
			}{{"input", t.InputSchema}, {"output", t.OutputSchema}} {
				r, ok := schemaInvisible(sc.schema)
				if !ok {
					continue
				}
				pos := p.findRune(t.Func.Pos.File, 1, len(p.Lines(t.Func.Pos.File)), r)
				if pos.File == "" {
					pos = t.Func.Pos
				}
				p.Report(pos, t.Name, "delete the character from the field comment or tag it comes from",
					"the %s schema of tool %s holds the invisible character %s", sc.what, t.Name, runeName(r))
			}
		}
	},
}

// schemaInvisible returns the first invisible character in any string of a
// JSON schema (descriptions, titles, enum values, defaults).
func schemaInvisible(schema json.RawMessage) (rune, bool) {
	if len(schema) == 0 {
		return 0, false
	}
	var v any
	if json.Unmarshal(schema, &v) != nil {
		return 0, false
	}
	var walk func(v any) (rune, bool)
	walk = func(v any) (rune, bool) {
		switch x := v.(type) {
		case string:
			return firstInvisible(x)
		case []any:
			for _, e := range x {
				if r, ok := walk(e); ok {
					return r, true
				}
			}
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if r, ok := firstInvisible(k); ok {
					return r, true
				}
				if r, ok := walk(x[k]); ok {
					return r, true
				}
			}
		}
		return 0, false
	}
	return walk(v)
}

// invisible reports whether r is invisible when rendered: a format
// character (zero-width, bidirectional control, tag), a control character
// other than newline and tab, or a private-use character.
func invisible(r rune) bool {
	switch r {
	case '\n', '\t':
		return false
	}
	return unicode.Is(unicode.Cf, r) || unicode.IsControl(r) || unicode.Is(unicode.Co, r)
}

func firstInvisible(s string) (rune, bool) {
	for _, r := range s {
		if invisible(r) {
			return r, true
		}
	}
	return 0, false
}

// findRune returns the position of r in file between lines from and to
// (inclusive).
func (p *Pass) findRune(file string, from, to int, r rune) diag.Pos {
	lines := p.Lines(file)
	for n := max(from, 1); n <= to && n <= len(lines); n++ {
		if i := strings.IndexRune(lines[n-1], r); i >= 0 {
			return diag.Pos{File: file, Line: n, Col: i + 1}
		}
	}
	return diag.Pos{}
}

func runeName(r rune) string {
	names := map[rune]string{
		0x200B: "ZERO WIDTH SPACE", 0x200C: "ZERO WIDTH NON-JOINER", 0x200D: "ZERO WIDTH JOINER",
		0x200E: "LEFT-TO-RIGHT MARK", 0x200F: "RIGHT-TO-LEFT MARK", 0x2060: "WORD JOINER",
		0x202A: "LEFT-TO-RIGHT EMBEDDING", 0x202B: "RIGHT-TO-LEFT EMBEDDING", 0x202C: "POP DIRECTIONAL FORMATTING",
		0x202D: "LEFT-TO-RIGHT OVERRIDE", 0x202E: "RIGHT-TO-LEFT OVERRIDE",
		0x2066: "LEFT-TO-RIGHT ISOLATE", 0x2067: "RIGHT-TO-LEFT ISOLATE", 0x2068: "FIRST STRONG ISOLATE",
		0x2069: "POP DIRECTIONAL ISOLATE", 0xFEFF: "ZERO WIDTH NO-BREAK SPACE", 0x00AD: "SOFT HYPHEN",
	}
	s := fmt.Sprintf("U+%04X", r)
	if n, ok := names[r]; ok {
		return s + " " + n
	}
	if r >= 0xE0000 && r <= 0xE007F {
		return s + " (a tag character)"
	}
	return s
}
