package authe2e_test

import (
	"strings"
	"testing"
)

// TestDevUpstreamFlow: mcpgen dev --auth-upstream is the authorization
// server at its front, in front of an OpenID provider without
// registration; the connector behind it gets the upstream user and the
// user's upstream token (given in the environment, as a developer would).
func TestDevUpstreamFlow(t *testing.T) {
	addr := freeAddr(t)
	base := "http://" + addr
	up := startUpstream(t, base+"/oauth/callback")
	dir := journalProject(t)
	p := startEnv(t, base, "MCP endpoint", []string{"MCPGEN_AUTH_UPSTREAM=" + up, "MCPGEN_AUTH_CLIENT_ID=mcpgen-connector",
		"MCPGEN_AUTH_CLIENT_SECRET=connector-secret", "UPSTREAM_USERINFO=" + up + "/me"},
		mcpgenBin(t), "dev", dir, "--addr", addr, "--auth-upstream-scopes", "openid")
	res := runClient(t, base+"/mcp", "UPSTREAM_USER=1")
	if res["whoami"] != "alice" {
		t.Errorf("whoami = %v, want alice (the upstream subject)", res["whoami"])
	}
	if res["upstreamUser"] != "upstream says alice" {
		t.Errorf("upstream_user = %v; want the upstream's userinfo for alice", res["upstreamUser"])
	}
	if pr, _ := res["prompts"].([]any); len(pr) == 0 || pr[0] != "connector-consent" {
		t.Errorf("interactions = %v; want the connector's consent first", res["prompts"])
	}
	if !strings.Contains(p.log(), "auth: signed in upstream") {
		t.Errorf("mcpgen dev's log does not record the sign-in")
	}
}
