package wire

import "github.com/modelcontextprotocol/go-sdk/mcp"

// TasksV1Version is the protocol revision whose sessions have the
// experimental tasks of SEP-1686: the task param of tools/call, tasks/get,
// tasks/result, tasks/list, tasks/cancel, and tools' execution.taskSupport.
// (2026-07-28 moved tasks to an extension.)
const TasksV1Version = "2025-11-25"

// ListToolsV1 returns res as tools/list shows it in a session at
// TasksV1Version: each tool for which support returns "optional" or
// "required" carries execution.taskSupport. The value encodes as res
// does otherwise, and is a result the go-sdk can send.
func ListToolsV1(res *mcp.ListToolsResult, support func(tool string) string) mcp.Result {
	out := listToolsV1{ListToolsResult: res, Tools: make([]toolV1, len(res.Tools))}
	for i, t := range res.Tools {
		out.Tools[i].Tool = t
		if s := support(t.Name); s != "" {
			out.Tools[i].Execution = &toolExecution{TaskSupport: s}
		}
	}
	return out
}

// listToolsV1 is a tools/list result whose tools carry execution; its
// Tools hides the embedded result's.
type listToolsV1 struct {
	*mcp.ListToolsResult
	Tools []toolV1 `json:"tools"`
}

// toolV1 is a tool with the execution field of 2025-11-25, which mcp.Tool
// lacks.
type toolV1 struct {
	*mcp.Tool
	Execution *toolExecution `json:"execution,omitempty"`
}

type toolExecution struct {
	TaskSupport string `json:"taskSupport"`
}
