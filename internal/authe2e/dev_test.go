package authe2e_test

import (
	"testing"
)

// TestDevFlow: mcpgen dev with the same flags enforces them at its front
// (the TypeScript SDK client goes through the same flow, step-up included),
// and the connector behind it gets the verified identity.
func TestDevFlow(t *testing.T) {
	iss := issuer(t)
	dir := journalProject(t)
	addr := freeAddr(t)
	base := "http://" + addr
	p := start(t, base, "MCP endpoint", dir, mcpgenBin(t), "dev", ".", "--addr", addr, "--auth-issuer", iss, "--auth-scopes", "notes:read")
	res := runClient(t, base+"/mcp")
	checkFlow(t, res)
	_ = p
}
