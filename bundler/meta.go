package bundler

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/mcpgen/mcpgen/generator/diag"
	"github.com/mcpgen/mcpgen/generator/ir"
)

// The //mcpgen:view directive declares a view's MCP Apps metadata, placed on
// its resource as _meta.ui. It may appear on one or more lines among the
// comments at the top of the view file:
//
//	//mcpgen:view connect=https://api.example.com resource=https://cdn.example.com
//	//mcpgen:view border permissions=clipboardWrite title="Order card"

type optKind int

const (
	optFlag optKind = iota
	optValue
)

type viewOpt struct {
	kind  optKind
	apply func(m *ir.ViewMeta, val string, pos diag.Pos, diags *diag.List)
}

var permissionNames = []string{"camera", "clipboardWrite", "geolocation", "microphone"}

func domains(field func(m *ir.ViewMeta) *[]string, opt string) viewOpt {
	return viewOpt{kind: optValue, apply: func(m *ir.ViewMeta, val string, pos diag.Pos, diags *diag.List) {
		for _, d := range splitList(val) {
			if !originRE.MatchString(d) {
				diags.Errorf(pos, "bad-origin", hintBadDomain, msgBadDomain, opt, d)
				continue
			}
			*field(m) = appendUnique(*field(m), d)
		}
	}}
}

var viewOptions = map[string]viewOpt{
	"connect":  domains(func(m *ir.ViewMeta) *[]string { return &m.ConnectDomains }, "connect"),
	"resource": domains(func(m *ir.ViewMeta) *[]string { return &m.ResourceDomains }, "resource"),
	"frame":    domains(func(m *ir.ViewMeta) *[]string { return &m.FrameDomains }, "frame"),
	"baseuri":  domains(func(m *ir.ViewMeta) *[]string { return &m.BaseURIDomains }, "baseuri"),
	"permissions": {kind: optValue, apply: func(m *ir.ViewMeta, val string, pos diag.Pos, diags *diag.List) {
		for _, p := range splitList(val) {
			if !contains(permissionNames, p) {
				diags.Errorf(pos, "unknown-permission", suggest(p, permissionNames, hintUnknownPerm), msgUnknownPerm, p)
				continue
			}
			m.Permissions = appendUnique(m.Permissions, p)
		}
	}},
	"domain": {kind: optValue, apply: func(m *ir.ViewMeta, val string, _ diag.Pos, _ *diag.List) { m.Domain = val }},
	"border": {kind: optFlag, apply: func(m *ir.ViewMeta, _ string, pos diag.Pos, diags *diag.List) {
		if m.PrefersBorder != nil && !*m.PrefersBorder {
			diags.Errorf(pos, "border-conflict", hintBorderConflict, msgBorderConflict)
		}
		t := true
		m.PrefersBorder = &t
	}},
	"noborder": {kind: optFlag, apply: func(m *ir.ViewMeta, _ string, pos diag.Pos, diags *diag.List) {
		if m.PrefersBorder != nil && *m.PrefersBorder {
			diags.Errorf(pos, "border-conflict", hintBorderConflict, msgBorderConflict)
		}
		f := false
		m.PrefersBorder = &f
	}},
	"title":       {kind: optValue, apply: func(m *ir.ViewMeta, val string, _ diag.Pos, _ *diag.List) { m.Title = val }},
	"description": {kind: optValue, apply: func(m *ir.ViewMeta, val string, _ diag.Pos, _ *diag.List) { m.Description = val }},
}

// originRE accepts scheme://host[:port], where host may start with "*.".
var originRE = regexp.MustCompile(`^[a-z][a-z0-9+.-]*://(\*\.)?[A-Za-z0-9.-]+(:[0-9]+)?/?$`)

// ViewOptions lists the options //mcpgen:view accepts.
func ViewOptions() []string {
	names := make([]string, 0, len(viewOptions))
	for n := range viewOptions {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ParseMeta reads the //mcpgen:view directives of a view's source. file is
// the path diagnostics name. Every problem is added to diags; parsing goes on
// after each one.
func ParseMeta(file string, src []byte, diags *diag.List) ir.ViewMeta {
	var meta ir.ViewMeta
	leading := true
	inBlock := false
	for i, line := range strings.Split(string(src), "\n") {
		line = strings.TrimRight(line, "\r")
		trimmed := strings.TrimLeft(line, " \t")
		indent := len(line) - len(trimmed)
		pos := func(off int) diag.Pos { return diag.Pos{File: file, Line: i + 1, Col: indent + off + 1} }
		switch {
		case inBlock:
			if strings.Contains(trimmed, "*/") {
				inBlock = false
				if rest := strings.TrimSpace(trimmed[strings.Index(trimmed, "*/")+2:]); rest != "" {
					leading = false
				}
			}
			continue
		case trimmed == "":
			continue
		case strings.HasPrefix(trimmed, "/*"):
			if !strings.Contains(trimmed[2:], "*/") {
				inBlock = true
			}
			continue
		case strings.HasPrefix(trimmed, "//mcpgen:"):
			if !leading {
				diags.Errorf(pos(0), "late-directive", hintLateDirective, msgLateDirective)
				continue
			}
			rest := trimmed[len("//mcpgen:"):]
			kind := rest
			if j := strings.IndexAny(rest, " \t"); j >= 0 {
				kind = rest[:j]
			}
			if kind != "view" {
				diags.Errorf(pos(len("//mcpgen:")), "unknown-directive", hintUnknownDir, msgUnknownDirective, kind)
				continue
			}
			parseViewOptions(&meta, trimmed, len("//mcpgen:view"), pos, diags)
			continue
		case strings.HasPrefix(trimmed, "//"):
			if leading && strings.HasPrefix(strings.TrimLeft(trimmed[2:], " \t"), "mcpgen:") {
				diags.Errorf(pos(0), "spaced-directive", hintSpaced, msgSpaced)
			}
			continue
		}
		leading = false
	}
	return meta
}

// parseViewOptions lexes the options after //mcpgen:view: flags, key=value
// and key="quoted value" (with \" and \\ escapes).
func parseViewOptions(meta *ir.ViewMeta, text string, i int, pos func(int) diag.Pos, diags *diag.List) {
	for {
		for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
			i++
		}
		if i >= len(text) {
			return
		}
		start := i
		for i < len(text) && text[i] != ' ' && text[i] != '\t' && text[i] != '=' {
			i++
		}
		key := text[start:i]
		hasValue := false
		val := ""
		if i < len(text) && text[i] == '=' {
			hasValue = true
			i++
			if i < len(text) && text[i] == '"' {
				var b strings.Builder
				j := i + 1
				closed := false
				for j < len(text) {
					c := text[j]
					if c == '\\' && j+1 < len(text) {
						b.WriteByte(text[j+1])
						j += 2
						continue
					}
					if c == '"' {
						closed = true
						j++
						break
					}
					b.WriteByte(c)
					j++
				}
				if !closed {
					diags.Errorf(pos(i), "unterminated-quote", hintUnquoted, msgUnquoted)
					return
				}
				val = b.String()
				i = j
			} else {
				vs := i
				for i < len(text) && text[i] != ' ' && text[i] != '\t' {
					i++
				}
				val = text[vs:i]
			}
		}
		at := pos(start)
		opt, ok := viewOptions[key]
		switch {
		case !ok:
			diags.Errorf(at, "unknown-option", suggest(key, ViewOptions(), hintUnknownOption), msgUnknownOption, key)
		case opt.kind == optValue && (!hasValue || val == ""):
			diags.Errorf(at, "missing-value", fmt.Sprintf(hintMissingValue, key), msgMissingValue, key)
		case opt.kind == optFlag && hasValue:
			diags.Errorf(at, "unexpected-value", fmt.Sprintf(hintUnexpectedValue, key), msgUnexpectedValue, key)
		default:
			opt.apply(meta, val, at, diags)
		}
	}
}

// suggest renders the hint listing valid names, led by the closest one when
// it is close enough to be a likely misspelling.
func suggest(got string, valid []string, hintFmt string) string {
	hint := fmt.Sprintf(hintFmt, strings.Join(valid, ", "))
	if best := diag.Closest(got, valid); best != "" {
		return fmt.Sprintf("did you mean %q? %s", best, hint)
	}
	return hint
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func appendUnique(list []string, s string) []string {
	if contains(list, s) {
		return list
	}
	return append(list, s)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
