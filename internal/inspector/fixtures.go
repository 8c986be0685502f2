package inspector

import (
	"encoding/json"

	"github.com/mcpgen/mcpgen/generator/diag"
	"github.com/mcpgen/mcpgen/internal/fixture"
)

// Fixture is one canned rendering of a tool's view, read from
// fixtures/TOOL/NAME.json (see package fixture, which `mcpgen test` and
// mcpgentest share).
type Fixture = fixture.Fixture

// LoadFixtures reads dir/fixtures/TOOL/NAME.json, sorted by tool and name.
// A file that is not valid is left out with a diagnostic at its
// file:line:col; a project without fixtures has none and no diagnostics.
func LoadFixtures(dir string) ([]Fixture, diag.List) { return fixture.Load(dir) }

// NormalizeResult returns r as a CallToolResult: r itself when it is an
// object with a "content" array or a "structuredContent" member, else a
// result whose structuredContent is r and whose content is r's JSON text.
func NormalizeResult(r json.RawMessage) json.RawMessage { return fixture.Normalize(r) }
