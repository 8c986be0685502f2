package lint

import (
	"strconv"

	"github.com/mcpgen/mcpgen/generator/diag"
)

var distSettingUnread = &Rule{
	Code:     "DIST005",
	Name:     "setting-unread",
	Title:    "Every declared setting is read by the code",
	Severity: diag.Warning,
	Doc: "A setting in mcpgen.json becomes a field of the install form Claude Desktop\n" +
		"shows (an API key, a folder), and its value reaches the server as the\n" +
		"environment variable the setting names. A setting the code never reads asks\n" +
		"users for something that has no effect — worse when it is a secret they must\n" +
		"go and create — and usually means the names drifted apart (`ACME_TOKEN` in the\n" +
		"file, `ACME_API_KEY` in the code). mcpgen looks for `os.Getenv`, `os.LookupEnv`\n" +
		"and `syscall.Getenv` calls with the variable's name as a constant; a name built\n" +
		"at run time is not seen (use a constant, or ignore the rule).\n\n" +
		"Fix: read the variable where the connector needs it, or remove the setting:\n\n" +
		"    key := os.Getenv(\"ACME_API_KEY\")",
	Run: func(p *Pass) {
		m := p.Project.Meta
		if m == nil {
			return
		}
		read := map[string]bool{}
		for _, r := range p.Project.EnvReads {
			read[r.Name] = true
		}
		for i, s := range m.Settings {
			if read[s.Env] {
				continue
			}
			p.Report(m.At("/settings/"+strconv.Itoa(i)+"/env"), "", `read it with os.Getenv("`+s.Env+`"), or remove the setting`,
				"setting %s (%s) is never read: no os.Getenv(%q) in the module", s.Key, s.Env, s.Env)
		}
	},
}
