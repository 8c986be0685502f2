package lint

import (
	"encoding/json"
	"regexp"
	"sort"
	"strings"

	"github.com/mcpgen/mcpgen/generator/diag"
	"github.com/mcpgen/mcpgen/generator/ir"
)

var listWithoutLimit = &Rule{
	Code:     "RES001",
	Name:     "list-without-limit",
	Title:    "A tool that returns a list takes a limit or a cursor",
	Severity: diag.Warning,
	Doc: "Claude Code refuses tool results over 25,000 tokens (MAX_MCP_OUTPUT_TOKENS) and\n" +
		"other hosts truncate far less; the mcpgen runtime cuts results at its own cap\n" +
		"with a notice. A tool whose output holds a list with no bound grows with the\n" +
		"data behind it: fine in a demo, over the cap in production, and then the model\n" +
		"gets nothing useful.\n\n" +
		"This rule flags a tool whose output struct has a list of records (a slice of\n" +
		"structs without `maxItems=`) while its input has no field that bounds or pages it: `limit`, `max…`,\n" +
		"`page_size`, `per_page`, `first`, `top`, `count`, `cursor`, `page`, `offset`,\n" +
		"`after`.\n\n" +
		"Fix: add an input such as\n\n" +
		"    // Limit is the most items to return.\n" +
		"    Limit int `json:\"limit,omitempty\" mcpgen:\"min=1,max=100,default=20\"`\n\n" +
		"and honour it (or a `cursor` with a `next_cursor` in the output); or bound the\n" +
		"list itself with `mcpgen:\"maxItems=N\"` when it can never be longer.",
	Run: func(p *Pass) {
		for _, t := range p.Project.Tools {
			if t.Sig.Kind != ir.ResultStruct || len(t.OutputSchema) == 0 {
				continue
			}
			lists := unboundedLists(t.OutputSchema)
			if len(lists) == 0 || hasBound(t.InputSchema) {
				continue
			}
			p.Report(t.Func.Pos, t.Name, `add an input that bounds the list, e.g. Limit int `+"`"+`json:"limit,omitempty" mcpgen:"min=1,max=100,default=20"`+"`"+`, or a cursor`,
				"tool %s returns the list%s %s with no limit or cursor input; results over 25k tokens are refused by hosts", t.Name, plural(len(lists)), strings.Join(lists, ", "))
		}
	},
}

type schemaNode struct {
	Type       json.RawMessage        `json:"type"`
	Properties map[string]*schemaNode `json:"properties"`
	MaxItems   *int                   `json:"maxItems"`
	Items      *schemaNode            `json:"items"`
	Ref        string                 `json:"$ref"`
	Defs       map[string]*schemaNode `json:"$defs"`
}

func (n *schemaNode) is(typ string) bool {
	if n == nil {
		return false
	}
	var one string
	if json.Unmarshal(n.Type, &one) == nil {
		return one == typ
	}
	var many []string
	if json.Unmarshal(n.Type, &many) == nil {
		for _, t := range many {
			if t == typ {
				return true
			}
		}
	}
	return false
}

// unboundedLists returns the top-level properties of an output schema that
// are lists of records (arrays of objects) without maxItems, sorted. Lists
// of plain values (a note's tags) are left alone: they rarely grow with the
// data behind the tool.
func unboundedLists(schema json.RawMessage) []string {
	var root schemaNode
	if json.Unmarshal(schema, &root) != nil {
		return nil
	}
	node := &root
	if ref, ok := strings.CutPrefix(root.Ref, "#/$defs/"); ok && root.Defs[ref] != nil {
		node = root.Defs[ref]
	}
	var out []string
	for name, prop := range node.Properties {
		if prop.is("array") && prop.MaxItems == nil && prop.Items != nil && (prop.Items.is("object") || prop.Items.Ref != "") {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// boundName matches input property names that limit or page a list.
var boundName = regexp.MustCompile(`(?i)^(limit|max.*|.*_limit|page_?size|per_?page|first|last|top|count|n|num|.*cursor|page|page_?token|offset|after|before|skip|take)$`)

func hasBound(input json.RawMessage) bool {
	var root schemaNode
	if json.Unmarshal(input, &root) != nil {
		return false
	}
	for name := range root.Properties {
		if boundName.MatchString(name) {
			return true
		}
	}
	return false
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
