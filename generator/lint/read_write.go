package lint

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/mcpgen/mcpgen/generator/diag"
)

var readWriteTool = &Rule{
	Code:     "ANN003",
	Name:     "read-write-tool",
	Title:    "Reading and writing are separate tools",
	Severity: diag.Error,
	Doc: "A catch-all tool such as `api_request` whose input picks the HTTP method —\n" +
		"GET as well as POST, PUT, PATCH or DELETE — cannot have honest annotations:\n" +
		"it is neither read-only nor safe to run without asking. Hosts then either\n" +
		"prompt for every call, reads included, or never, writes included, and the\n" +
		"Claude connector directory rejects such tools outright; documenting which\n" +
		"methods are safe in the description does not help.\n\n" +
		"The rule flags a tool whose input has a field (such as `method`) whose enum\n" +
		"holds both a safe method (GET, HEAD, OPTIONS) and an unsafe one.\n\n" +
		"Fix: split it into a `readonly` tool for reads and one tool per kind of\n" +
		"write (create, update, delete), each with its own annotations.",
	Run: func(p *Pass) {
		for _, t := range p.Project.Tools {
			field, safe, unsafe := methodField(t.InputSchema)
			if field == "" {
				continue
			}
			p.Report(t.Func.Pos, t.Name, "split it into a readonly tool for "+strings.Join(safe, "/")+" and a tool per kind of write ("+strings.Join(unsafe, ", ")+"), each with its own annotations",
				"tool %s both reads and writes: its input %s takes %s and %s", t.Name, field, strings.Join(safe, ", "), strings.Join(unsafe, ", "))
		}
	},
}

// methodField finds a top-level input property whose enum holds both safe
// and unsafe HTTP methods.
func methodField(schema json.RawMessage) (field string, safe, unsafe []string) {
	var root struct {
		Properties map[string]struct {
			Enum []any `json:"enum"`
		} `json:"properties"`
	}
	if json.Unmarshal(schema, &root) != nil {
		return "", nil, nil
	}
	names := make([]string, 0, len(root.Properties))
	for n := range root.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		safe, unsafe = nil, nil
		for _, v := range root.Properties[n].Enum {
			s, _ := v.(string)
			switch strings.ToUpper(s) {
			case "GET", "HEAD", "OPTIONS":
				safe = append(safe, strings.ToUpper(s))
			case "POST", "PUT", "PATCH", "DELETE":
				unsafe = append(unsafe, strings.ToUpper(s))
			}
		}
		if len(safe) > 0 && len(unsafe) > 0 {
			return n, safe, unsafe
		}
	}
	return "", nil, nil
}
