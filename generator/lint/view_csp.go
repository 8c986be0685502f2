package lint

import (
	"net/url"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/mcpgen/mcpgen/generator/diag"
	"github.com/mcpgen/mcpgen/generator/ir"
)

var viewNetworkCSP = &Rule{
	Code:     "VIEW001",
	Name:     "view-network-csp",
	Title:    "A view's network use is declared in its CSP domains",
	Severity: diag.Error,
	Doc: "Hosts load a view in a sandboxed iframe whose Content Security Policy allows\n" +
		"no network access except to the domains the view declares. A `fetch`,\n" +
		"`XMLHttpRequest`, `WebSocket` or `EventSource` to an undeclared origin fails,\n" +
		"and so does an external image, stylesheet or font: the view works in a\n" +
		"browser tab and breaks in Claude. Directory reviewers also check that the\n" +
		"declared domains match what the view does.\n\n" +
		"The rule reads the view's own source files (the bundle's inputs outside\n" +
		"node_modules) for these calls and for absolute URLs in `src=`,\n" +
		"`<link href=`, `url(...)` and `@import`, and compares their origins with the\n" +
		"view's `//mcpgen:view` directive: `connect=` for fetch, XHR, WebSocket and\n" +
		"EventSource, `resource=` for images, scripts, styles and fonts, `frame=` for\n" +
		"iframes. A call whose URL lint cannot read (built at run time) is a warning\n" +
		"when the view declares no `connect=` at all.\n\n" +
		"Fix: declare the origins at the top of the view file, e.g.\n\n" +
		"    //mcpgen:view connect=https://api.example.com resource=https://fonts.gstatic.com\n\n" +
		"or, usually better, fetch data through a tool (`useApp().callTool`) and bundle\n" +
		"images and fonts into the view.",
	Run: func(p *Pass) {
		for _, v := range p.Project.Views {
			files := v.Inputs
			if len(files) == 0 && v.File != "" {
				files = []string{v.File}
			}
			for _, f := range files {
				if !isSource(f) {
					continue
				}
				p.checkViewFile(v, filepath.Join(p.Project.Dir, filepath.FromSlash(f)))
			}
		}
	},
}

func isSource(f string) bool {
	switch strings.ToLower(filepath.Ext(f)) {
	case ".ts", ".tsx", ".js", ".jsx", ".mjs", ".css":
		return true
	}
	return false
}

var (
	// connectCall matches a network call and, when it is a literal, its URL.
	connectCall = regexp.MustCompile("\\b(fetch|new\\s+XMLHttpRequest|new\\s+WebSocket|new\\s+EventSource|sendBeacon)\\s*\\(\\s*(?:[\"'`]([^\"'`]*)[\"'`])?")
	// resourceURL matches an absolute URL loaded as a resource.
	resourceURL = regexp.MustCompile("(?i)(?:\\bsrc(?:set)?\\s*[=:]\\s*\\{?\\s*|url\\(\\s*|@import\\s+(?:url\\(\\s*)?|<link\\b[^>]*\\bhref\\s*=\\s*\\{?\\s*)[\"'`]?((?:https?:)?//[^\"'`)\\s]+)")
	// frameTag matches the start of an iframe element, whose src= is a
	// frame, not a resource.
	frameTag = regexp.MustCompile(`(?i)<iframe\b[^>]*$`)
)

func (p *Pass) checkViewFile(v ir.View, file string) {
	lines := p.Lines(file)
	rel := v.File // where //mcpgen:view goes
	for n, line := range lines {
		if t := strings.TrimLeft(line, " \t"); strings.HasPrefix(t, "//") || strings.HasPrefix(t, "*") || strings.HasPrefix(t, "/*") {
			continue
		}
		at := func(col int) diag.Pos { return diag.Pos{File: file, Line: n + 1, Col: col + 1} }
		for _, m := range connectCall.FindAllStringSubmatchIndex(line, -1) {
			call := line[m[2]:m[3]]
			what := strings.Join(strings.Fields(call), " ")
			if m[4] < 0 || !absolute(line[m[4]:m[5]]) {
				if m[4] >= 0 || len(v.Meta.ConnectDomains) > 0 {
					continue // a relative URL, or a run-time one the view may have declared
				}
				p.ReportAs(diag.Warning, at(m[2]), "", "declare the origins it reaches with //mcpgen:view connect=https://api.example.com at the top of "+rel+", or fetch through a tool with useApp().callTool",
					"view %s calls %s with a URL built at run time but declares no connect= domains; the host's CSP blocks undeclared origins", v.Name, what)
				continue
			}
			u := line[m[4]:m[5]]
			if allowed(u, v.Meta.ConnectDomains) {
				continue
			}
			p.Report(at(m[4]), "", "add //mcpgen:view connect="+origin(u)+" at the top of "+rel+", or fetch through a tool with useApp().callTool",
				"view %s reaches %s with %s, which it does not declare in connect=; the host's CSP blocks it", v.Name, origin(u), what)
		}
		for _, m := range resourceURL.FindAllStringSubmatchIndex(line, -1) {
			u := line[m[2]:m[3]]
			if strings.HasPrefix(u, "//") {
				u = "https:" + u
			}
			if frameTag.MatchString(line[:m[0]]) {
				if !allowed(u, v.Meta.FrameDomains) {
					p.Report(at(m[2]), "", "add //mcpgen:view frame="+origin(u)+" at the top of "+rel,
						"view %s embeds %s in an iframe, which it does not declare in frame=; the host's CSP blocks it", v.Name, origin(u))
				}
				continue
			}
			if allowed(u, v.Meta.ResourceDomains) {
				continue
			}
			p.Report(at(m[2]), "", "add //mcpgen:view resource="+origin(u)+" at the top of "+rel+", or bundle the file into the view",
				"view %s loads %s from %s, which it does not declare in resource=; the host's CSP blocks it", v.Name, shorten(u), origin(u))
		}
	}
}

func absolute(u string) bool {
	return strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "ws://") || strings.HasPrefix(u, "wss://") || strings.HasPrefix(u, "//")
}

func origin(u string) string {
	if strings.HasPrefix(u, "//") {
		u = "https:" + u
	}
	pu, err := url.Parse(u)
	if err != nil || pu.Host == "" {
		return u
	}
	return pu.Scheme + "://" + pu.Host
}

// allowed reports whether u's origin is among the declared domains (which
// may start with *. for subdomains). As in CSP, ws: and wss: match the
// http: and https: origins of the same host.
func allowed(u string, domains []string) bool {
	if strings.HasPrefix(u, "//") {
		u = "https:" + u
	}
	pu, err := url.Parse(u)
	if err != nil || pu.Host == "" {
		return true // not a URL lint can judge
	}
	for _, d := range domains {
		pd, err := url.Parse(strings.TrimSuffix(d, "/"))
		if err != nil {
			continue
		}
		if webScheme(pd.Scheme) != webScheme(pu.Scheme) {
			continue
		}
		host := pd.Hostname()
		switch {
		case strings.HasPrefix(host, "*."):
			if !strings.HasSuffix(pu.Hostname(), host[1:]) {
				continue
			}
		case host != pu.Hostname():
			continue
		}
		if pd.Port() != "" && pd.Port() != pu.Port() {
			continue
		}
		return true
	}
	return false
}

func webScheme(s string) string {
	switch s {
	case "ws":
		return "http"
	case "wss":
		return "https"
	}
	return s
}

func shorten(u string) string {
	if len(u) > 60 {
		return u[:57] + "..."
	}
	return u
}

func relTo(root, file string) string {
	if r, err := filepath.Rel(root, file); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return file
}
