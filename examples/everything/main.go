// Command everything is an MCP server with every capability the protocol
// offers a server — tools returning each kind of content, logging, progress,
// sampling, elicitation, stream resumption, resources, templates,
// subscriptions, prompts and completions — written as plain annotated Go
// functions. It serves the names and texts the official MCP conformance
// suite (npm @modelcontextprotocol/conformance) asks for, and passes it in
// full.
//
//	mcpgen build . -o everything && ./everything --addr 127.0.0.1:3001
package main

import (
	"os"

	"github.com/mcpgen/mcpgen"
)

func main() { os.Exit(mcpgen.Main(mcpgenApp())) }
