package authe2e_test

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
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

// TestDevIntrospectionLimit: mcpgen dev's --auth-introspection-caller-limit
// bounds the calls its front makes to a real introspection endpoint for
// tokens one client makes up, as a built connector's does: the first are
// checked there (401), the rest answered 429 without a call.
func TestDevIntrospectionLimit(t *testing.T) {
	iss := issuer(t)
	dir := journalProject(t)
	addr := freeAddr(t)
	base := "http://" + addr
	p := &proc{cmd: exec.Command(mcpgenBin(t), "dev", ".", "--addr", addr, "--auth-issuer", iss, "--auth-scopes", "notes:read",
		"--auth-introspection", iss+"/token/introspection", "--auth-introspection-caller-limit", "3/1h")}
	p.cmd.Dir = dir
	p.cmd.Env = append(os.Environ(), "MCPGEN_AUTH_CLIENT_ID=mcpgen-connector", "MCPGEN_AUTH_CLIENT_SECRET=connector-secret")
	run(t, p, base, "MCP endpoint")
	var codes []int
	for i := range 6 {
		code, _ := postInit(t, base+"/mcp", fmt.Sprintf("made-up-opaque-token-%d", i))
		codes = append(codes, code)
	}
	want := []int{401, 401, 401, 429, 429, 429}
	if !slices.Equal(codes, want) {
		t.Errorf("made-up tokens answered %v, want %v", codes, want)
	}
	if !p.waitLog("--auth-introspection-caller-limit") {
		t.Errorf("mcpgen dev's log does not name the bound:\n%s", p.log())
	}
}
