package schema

import (
	"fmt"
	"strings"
)

// headerNameProblem says why name cannot follow "Mcp-Param-" in an HTTP
// header (SEP-2243: visible ASCII token characters only), or "".
func headerNameProblem(name string) string {
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case strings.ContainsRune("!#$%&'*+-.^_`|~", r):
		case r > 0x7e:
			return fmt.Sprintf("%q is not ASCII", r)
		case r < 0x20 || r == 0x7f:
			return fmt.Sprintf("it contains the control character %q", r)
		default:
			return fmt.Sprintf("%q is not allowed in a header name", r)
		}
	}
	return ""
}

// checkHeaders enforces the rest of SEP-2243 on an input schema: only
// top-level properties are mirrored into headers, and two of them may not
// share a header name (compared case-insensitively, as HTTP does).
func (bd *build) checkHeaders(root *node) {
	seen := map[string]*node{}
	for _, p := range root.props {
		n := p.n
		if n.header == "" {
			continue
		}
		key := strings.ToLower(n.header)
		if first := seen[key]; first != nil {
			bd.errorf(n.headerAt, hintDupHeader, "schema-bad-value", msgDupHeader, n.header, n.headerOf, first.headerOf)
			continue
		}
		seen[key] = n
	}
	visited := map[*node]bool{}
	var nested func(n *node, top bool)
	nested = func(n *node, top bool) {
		if n == nil || visited[n] {
			return
		}
		visited[n] = true
		if !top && n.header != "" {
			bd.errorf(n.headerAt, hintHeaderNested, "schema-not-applicable", msgHeaderNested, n.header, n.headerOf)
		}
		for _, p := range n.props {
			nested(p.n, false)
		}
		nested(n.items, false)
		nested(n.addProps, false)
		for _, a := range n.anyOf {
			nested(a, false)
		}
		for _, d := range n.defs {
			nested(d.n, false)
		}
	}
	for _, p := range root.props {
		visited[p.n] = true
		for _, q := range p.n.props {
			nested(q.n, false)
		}
		nested(p.n.items, false)
		nested(p.n.addProps, false)
	}
	for _, d := range root.defs {
		nested(d.n, false)
	}
}
