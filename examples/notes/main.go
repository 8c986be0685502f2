// Command notes is an MCP connector that keeps notes and tasks in a local
// SQLite database ($NOTES_FILE, or notes.db in the user's config directory):
// add, list, read, update and delete them from Claude or any MCP host.
//
//	notes                   serve Streamable HTTP at http://127.0.0.1:8080/mcp
//	notes --stdio           serve JSON-RPC on stdin/stdout
package main

import (
	"os"

	"github.com/mcpgen/mcpgen"
)

//go:generate go tool mcpgen generate

func main() {
	os.Exit(mcpgen.Main(mcpgenApp()))
}
