// Package directive turns //mcpgen:KIND comment lines into Directives: a kind
// and a list of options (flag, name=value, name="quoted value"), each carrying
// the exact file:line:col it was written at, so every later diagnostic can
// point at the option that caused it. It checks syntax and option values; what
// a directive means for the function it sits on is the parse package's concern.
package directive

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/generator/diag"
)

// Prefix starts every directive comment. There is no space after the
// slashes: gofmt then keeps the line out of the doc text.
const Prefix = "//mcpgen:"

// Kind is what a directive declares.
type Kind string

// The directive kinds.
const (
	KindTool     Kind = "tool"
	KindResource Kind = "resource"
	KindPrompt   Kind = "prompt"
	KindComplete Kind = "complete"
)

// Kinds lists every kind, in the order the documentation gives them.
var Kinds = []Kind{KindTool, KindResource, KindPrompt, KindComplete}

// Option is one option of a directive: a flag (HasValue false) or name=value.
type Option struct {
	Name     string   `json:"name"`
	Value    string   `json:"value,omitempty"` // unquoted
	HasValue bool     `json:"hasValue,omitempty"`
	Quoted   bool     `json:"quoted,omitempty"`
	Pos      diag.Pos `json:"pos"`      // the option's first byte
	ValuePos diag.Pos `json:"valuePos"` // the value's first byte (the quote when quoted)
}

// Directive is one parsed //mcpgen: line.
type Directive struct {
	Kind    Kind     `json:"kind"`
	Pos     diag.Pos `json:"pos"` // the comment's first slash
	Options []Option `json:"options,omitempty"`
}

// Lookup returns the option called name.
func (d *Directive) Lookup(name string) (Option, bool) {
	for _, o := range d.Options {
		if o.Name == name {
			return o, true
		}
	}
	return Option{}, false
}

// Has reports whether the option called name is present.
func (d *Directive) Has(name string) bool {
	_, ok := d.Lookup(name)
	return ok
}

// Value returns the value of the option called name, or "".
func (d *Directive) Value(name string) string {
	o, _ := d.Lookup(name)
	return o.Value
}

// Class says how a comment relates to mcpgen.
type Class int

const (
	// NotDirective is any ordinary comment.
	NotDirective Class = iota
	// IsDirective is a comment starting with //mcpgen:.
	IsDirective
	// Spaced is "// mcpgen:..." — meant as a directive, but read as
	// documentation because of the space.
	Spaced
)

// Classify reports whether the comment text (with its slashes) is a
// directive, or looks like one written with a space after the slashes.
func Classify(text string) Class {
	if strings.HasPrefix(text, Prefix) {
		return IsDirective
	}
	if rest, ok := strings.CutPrefix(text, "//"); ok {
		if t := strings.TrimLeft(rest, " \t"); len(t) < len(rest) && strings.HasPrefix(t, "mcpgen:") {
			return Spaced
		}
	}
	return NotDirective
}

// CheckSpaced adds the diagnostic for a "// mcpgen:..." comment at pos.
func CheckSpaced(text string, pos diag.Pos, diags *diag.List) {
	t := strings.TrimLeft(strings.TrimPrefix(text, "//"), " \t")
	rest := strings.TrimPrefix(t, "mcpgen:")
	diags.Errorf(pos, "spaced-directive", fmt.Sprintf(hintSpaced, rest), msgSpaced, "//"+strings.TrimPrefix(text, "//"))
}

// Parse parses one directive comment line (text includes the leading
// "//mcpgen:"; pos is where its first slash is). Syntax errors and invalid
// option values are added to diags; ok is false when any error was added.
// The returned directive holds every option that could be read, even when ok
// is false, so callers can keep checking.
func Parse(text string, pos diag.Pos, diags *diag.List) (d *Directive, ok bool) {
	before := len(*diags)
	d = &Directive{Pos: pos}
	at := func(off int) diag.Pos {
		p := pos
		if p.Line > 0 {
			p.Col += off
		}
		return p
	}
	if !strings.HasPrefix(text, Prefix) {
		diags.Errorf(pos, "not-directive", "", "comment %q is not a //mcpgen: directive", text)
		return d, false
	}
	// A directive is one line; a /*...*/ or a stray newline ends it.
	if i := strings.IndexAny(text, "\r\n"); i >= 0 {
		text = text[:i]
	}
	i := len(Prefix)
	start := i
	for i < len(text) && !isSpace(text[i]) {
		i++
	}
	kind := text[start:i]
	switch {
	case kind == "":
		diags.Errorf(at(start), "unknown-kind", fmt.Sprintf(hintKinds, kindList()), msgMissingKind)
	case kind == "view":
		diags.Errorf(at(start), "view-in-go", hintViewInGo, msgViewInGo)
	case !isKind(kind):
		diags.Errorf(at(start), "unknown-kind", fmt.Sprintf(hintKinds, kindList()), msgUnknownKind, kind, didYouMean(kind, kindNames()))
	default:
		d.Kind = Kind(kind)
	}
	d.Options = lex(text, i, at, diags)
	if d.Kind != "" {
		check(d, diags)
	}
	return d, !(*diags)[before:].HasErrors()
}

// lex reads the options of text from offset i.
func lex(text string, i int, at func(int) diag.Pos, diags *diag.List) []Option {
	var opts []Option
	for {
		for i < len(text) && isSpace(text[i]) {
			i++
		}
		if i >= len(text) {
			return opts
		}
		start := i
		for i < len(text) && !isSpace(text[i]) && text[i] != '=' && text[i] != '"' {
			i++
		}
		if i == start {
			// '=' or '"' where a name should be: report it and skip the token.
			diags.Errorf(at(start), "syntax", hintEmptyKey, msgEmptyKey, string(text[start]))
			i = skipToken(text, i)
			continue
		}
		o := Option{Name: text[start:i], Pos: at(start)}
		if i < len(text) && text[i] == '"' {
			diags.Errorf(at(i), "syntax", hintEmptyKey, "unexpected quote after %q", o.Name)
			i = skipToken(text, i)
			continue
		}
		if i < len(text) && text[i] == '=' {
			i++
			o.HasValue = true
			o.ValuePos = at(i)
			if i < len(text) && text[i] == '"' {
				end, ok := closingQuote(text, i)
				if !ok {
					diags.Errorf(at(i), "unterminated-quote", fmt.Sprintf(hintUnterminated, o.Name), msgUnterminated)
					return opts
				}
				v, err := strconv.Unquote(text[i : end+1])
				if err != nil {
					diags.Errorf(at(i), "bad-escape", hintBadEscape, msgBadEscape, err)
				}
				o.Value, o.Quoted = v, true
				i = end + 1
				if i < len(text) && !isSpace(text[i]) {
					diags.Errorf(at(i), "syntax", "separate options with a space", "unexpected %q after the quoted value of %q", text[i:skipToken(text, i)], o.Name)
					i = skipToken(text, i)
				}
			} else {
				vs := i
				for i < len(text) && !isSpace(text[i]) {
					i++
				}
				o.Value = text[vs:i]
			}
		}
		opts = append(opts, o)
	}
}

// closingQuote finds the quote closing the one at text[i], skipping escapes.
func closingQuote(text string, i int) (int, bool) {
	for j := i + 1; j < len(text); j++ {
		switch text[j] {
		case '\\':
			j++
		case '"':
			return j, true
		}
	}
	return 0, false
}

func skipToken(text string, i int) int {
	for i < len(text) && !isSpace(text[i]) {
		i++
	}
	return i
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' }

func isKind(s string) bool {
	for _, k := range Kinds {
		if string(k) == s {
			return true
		}
	}
	return false
}

func kindNames() []string {
	var s []string
	for _, k := range Kinds {
		s = append(s, string(k))
	}
	return s
}

func kindList() string { return strings.Join(kindNames(), ", ") }

// didYouMean returns ` (did you mean "x"?)`-style text for the closest of
// candidates, or "" when none is close.
func didYouMean(s string, candidates []string) string {
	if best := diag.Closest(s, candidates); best != "" {
		return fmt.Sprintf("; did you mean %q?", best)
	}
	return ""
}

func sortedKeys(m map[string]optSpec) []string {
	var s []string
	for k := range m {
		s = append(s, k)
	}
	sort.Strings(s)
	return s
}
