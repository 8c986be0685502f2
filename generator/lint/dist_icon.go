package lint

import (
	"bytes"
	"os"
	"path/filepath"

	"github.com/mcpgen/mcpgen/generator/diag"
)

var distIcon = &Rule{
	Code:     "DIST004",
	Name:     "listing-icon",
	Title:    "The connector has a PNG icon",
	Severity: diag.Warning,
	Doc: "Claude Desktop shows a bundle's icon in its extension list and settings; without\n" +
		"one it shows a generic placeholder, and directories rank listings with an icon\n" +
		"first. A bundle's icon must be a PNG file inside the bundle (the `mcpb` CLI\n" +
		"rejects other formats and remote URLs); 512×512 pixels is best. A missing icon\n" +
		"is a warning; an icon file that does not exist or is not a PNG is an error,\n" +
		"because `mcpgen build --mcpb` fails on it.\n\n" +
		"Fix: add a square PNG to the module and name it in mcpgen.json:\n\n" +
		"    \"icon\": \"icon.png\"",
	Run: func(p *Pass) {
		m := p.Project.Meta
		if m == nil {
			return
		}
		if m.Icon == "" {
			p.Report(m.At(""), "", `add "icon": "icon.png" to mcpgen.json, a 512×512 PNG in the module`,
				"mcpgen.json names no icon; hosts show a placeholder")
			return
		}
		data, err := os.ReadFile(filepath.Join(p.Project.Dir, filepath.FromSlash(m.Icon)))
		switch {
		case err != nil:
			p.ReportAs(diag.Error, m.At("/icon"), "", "give the path of a PNG file, relative to the module root",
				"the icon %s cannot be read: %v", m.Icon, err)
		case !bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
			p.ReportAs(diag.Error, m.At("/icon"), "", "convert it to PNG",
				"the icon %s is not a PNG file; bundles carry PNG icons only", m.Icon)
		}
	},
}
