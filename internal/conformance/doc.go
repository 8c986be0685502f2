// Package conformance holds mcpgen's end-to-end conformance tests: they
// build examples/everything with the real mcpgen CLI, serve the binary, and
// question it with the official MCP conformance suite
// (@modelcontextprotocol/conformance, on Node 22) and with the go-sdk client.
// The package has no code of its own; see docs/conformance.md.
package conformance
