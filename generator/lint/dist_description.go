package lint

import (
	"strings"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/generator/diag"
)

// maxListingDescription is the registry's and the server card's limit.
const maxListingDescription = 100

var distDescription = &Rule{
	Code:     "DIST003",
	Name:     "listing-description",
	Title:    "The connector has a description of at most 100 characters",
	Severity: diag.Error,
	Doc: "An MCP Bundle must have a `description` (Claude Desktop shows it on the\n" +
		"extension's card, and `mcpgen build --mcpb` fails without one), and the MCP\n" +
		"Registry and the server card allow 1 to 100 characters: a registry rejects a\n" +
		"longer one. It is the one line a user reads before installing, so it should say\n" +
		"what the connector lets the model do, not how it is built.\n\n" +
		"Fix: set `\"description\"` in mcpgen.json to one short sentence, and put the rest\n" +
		"in `\"longDescription\"` (Markdown, shown on the bundle's page).",
	Run: func(p *Pass) {
		m := p.Project.Meta
		if m == nil {
			return
		}
		d := strings.TrimSpace(m.Description)
		switch n := utf8.RuneCountInString(d); {
		case d == "":
			p.Report(m.At("/description"), "", `add "description": "..." to mcpgen.json, one sentence on what the connector does`,
				"mcpgen.json has no description; bundles and registry entries need one")
		case n > maxListingDescription:
			p.Report(m.At("/description"), "", `shorten it; move the details into "longDescription"`,
				"the description is %d characters; the MCP Registry and server cards allow %d", n, maxListingDescription)
		}
	},
}
