package lint

import (
	"regexp"

	"github.com/mcpgen/mcpgen/generator/diag"
)

// semverRE is a semantic version without a leading v (semver.org's
// grammar, simplified to what matters: three numbers, then an optional
// pre-release and build).
var semverRE = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

var distVersion = &Rule{
	Code:     "DIST002",
	Name:     "release-version",
	Title:    "The release version is a semantic version",
	Severity: diag.Error,
	Doc: "The version in mcpgen.json becomes the MCP Bundle's `version`, the registry\n" +
		"entry's `version` and the server's `serverInfo.version`. Hosts compare bundle\n" +
		"versions to offer updates, and the MCP Registry sorts versions as semantic\n" +
		"versions and rejects ranges (`^1.2.0`, `1.x`) and `latest`. A leading `v` is the\n" +
		"Git tag's habit, not the version's: `mcpgen build --version v1.2.0` drops it in\n" +
		"the bundle and server.json, the file should not have it.\n\n" +
		"Fix: write three numbers, with an optional pre-release: `\"version\": \"1.2.0\"`,\n" +
		"`\"1.3.0-beta.1\"`.",
	Run: func(p *Pass) {
		m := p.Project.Meta
		if m == nil || m.Version == "" || semverRE.MatchString(m.Version) {
			return
		}
		p.Report(m.At("/version"), "", `write a semantic version such as "1.2.0" (no leading v, no range)`,
			"version %q is not a semantic version", m.Version)
	},
}
