package lint

import (
	"regexp"
	"strconv"

	"github.com/mcpgen/mcpgen/generator/diag"
)

var namePrefixedLength = &Rule{
	Code:       "NAME002",
	Name:       "tool-name-prefixed-length",
	Title:      "Claude Code's name for a tool, `mcp__SERVER__TOOL`, fits in 64 characters",
	Severity:   diag.Warning,
	FailsBuild: true,
	Doc: "Claude Code (and other hosts that gather tools from many servers) give the\n" +
		"model each MCP tool as `mcp__SERVER__TOOL`, where SERVER is the name the\n" +
		"connector was installed under — by default its server name, the last element\n" +
		"of its module path. That prefixed name must still fit the API's 64\n" +
		"characters; a longer one is cut or rejected, and the tool cannot be called.\n\n" +
		"Fix: shorten the tool's name with `name=`, or give the connector a shorter\n" +
		"server name (the module path's last element, or the name it is installed\n" +
		"under).",
	Run: func(p *Pass) {
		server := hostServerName(p.Project.Name)
		for _, t := range p.Project.Tools {
			full := "mcp__" + server + "__" + t.Name
			if len(full) <= 64 || !apiToolName.MatchString(t.Name) {
				continue
			}
			p.Report(namePos(subject{Func: t.Func, Directive: t.Directive}), t.Name,
				"shorten the name with name= (to at most "+strconv.Itoa(64-len("mcp____")-len(server))+" characters with this server name), or install the connector under a shorter name",
				"tool %s is called %s (%d characters) in Claude Code; the limit is 64", t.Name, full, len(full))
		}
	},
}

// hostServerName is a server name as Claude Code spells it in tool names:
// characters outside a-z, A-Z, 0-9, _ and - become _.
func hostServerName(name string) string {
	return notNameChar.ReplaceAllString(name, "_")
}

var notNameChar = regexp.MustCompile(`[^a-zA-Z0-9_-]`)
