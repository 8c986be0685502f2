package directive

import "regexp"

// templateExpr matches one RFC 6570 expression.
var templateExpr = regexp.MustCompile(`\{[^{}]*\}`)

// TemplateVar is one variable of a URI template.
type TemplateVar struct {
	Name   string
	Offset int // byte offset of the variable name in the template
}

// TemplateVars returns the variables of an RFC 6570 URI template, in order.
// Only simple expressions {var} (and the reserved {+var}) bind; the
// operators that expand to several variables are reported through bad.
func TemplateVars(tmpl string) (vars []TemplateVar, bad []string) {
	for _, m := range templateExpr.FindAllStringIndex(tmpl, -1) {
		expr := tmpl[m[0]+1 : m[1]-1]
		off := m[0] + 1
		if len(expr) > 0 && expr[0] == '+' {
			expr, off = expr[1:], off+1
		}
		if !simpleVar(expr) {
			bad = append(bad, tmpl[m[0]:m[1]])
			continue
		}
		vars = append(vars, TemplateVar{Name: expr, Offset: off})
	}
	return vars, bad
}

func simpleVar(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}
