package lint

import (
	"regexp"
	"strings"

	"github.com/mcpgen/mcpgen/generator/diag"
)

// registryNameRE is the MCP Registry's (and the server card's) name
// pattern: a reverse-DNS namespace, one slash, a name.
var registryNameRE = regexp.MustCompile(`^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`)

var distRegistryName = &Rule{
	Code:     "DIST001",
	Name:     "registry-name",
	Title:    "The registry name is reverse-DNS, in a namespace the publisher owns",
	Severity: diag.Error,
	Doc: "The MCP Registry lists a server under a name such as `io.github.acme/orders`: a\n" +
		"reverse-DNS namespace, exactly one slash and the server's name, 3 to 200\n" +
		"characters of letters, digits, dots, dashes (and underscores after the slash).\n" +
		"The registry rejects a `server.json` whose name does not match, and only lets a\n" +
		"publisher use a namespace it proves it owns: `io.github.NAME/` for a GitHub\n" +
		"account or organisation, or a domain verified by DNS or HTTP. The server card\n" +
		"carries the same name. When `mcpgen.json` gives no `registryName`, mcpgen\n" +
		"derives one from the module path (`github.com/acme/orders` → `io.github.acme/orders`);\n" +
		"a module path without a host gives `local/NAME`, which no registry accepts.\n\n" +
		"Fix: set `\"registryName\"` in mcpgen.json to a name in your namespace:\n\n" +
		"    \"registryName\": \"io.github.acme/orders\"",
	Run: func(p *Pass) {
		m := p.Project.Meta
		if m == nil {
			return
		}
		name := m.RegistryName
		switch {
		case !registryNameRE.MatchString(name) || len(name) < 3 || len(name) > 200:
			p.Report(m.At("/registryName"), "", `use a reverse-DNS namespace, one slash and a name, such as "io.github.acme/orders"`,
				"registry name %q is not a reverse-DNS name with one slash", name)
		case strings.HasPrefix(name, "local/"):
			p.ReportAs(diag.Warning, m.At("/registryName"), "", `set "registryName" in mcpgen.json, such as "io.github.OWNER/`+strings.TrimPrefix(name, "local/")+`"`,
				"the registry name %s was derived from a module path without a host; the MCP Registry needs a namespace you own", name)
		}
	},
}
