package authe2e_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// TestClientFlow: the official TypeScript SDK client goes through the
// whole authorization flow against a built connector and calls a tool that
// returns mcpgen.Auth(ctx).Subject; a tool needing another scope is
// answered 403, and succeeds after the client re-authorizes with it.
func TestClientFlow(t *testing.T) {
	base, p := serveJournal(t)
	res := runClient(t, base+"/mcp")
	checkFlow(t, res)
	if !p.waitLog("auth: insufficient scope") {
		t.Errorf("the connector's log does not mention the missing scope:\n%s", p.log())
	}
}

func checkFlow(t *testing.T, res map[string]any) {
	t.Helper()
	if res["whoami"] != "alice" {
		t.Errorf("whoami = %v, want alice", res["whoami"])
	}
	if res["stepUp"] != true {
		t.Errorf("write_entry did not need re-authorization: %v", res["writeFirst"])
	}
	if w, _ := res["write"].(string); !strings.HasPrefix(w, `alice wrote "hello"`) || !strings.Contains(w, "notes:write") {
		t.Errorf("write_entry after re-authorizing = %q", w)
	}
	if res["scopeBefore"] != "notes:read" {
		t.Errorf("first token's scope = %v, want notes:read (the 401 challenge's)", res["scopeBefore"])
	}
	if s, _ := res["scopeAfter"].(string); !slices.Contains(strings.Fields(s), "notes:write") || !slices.Contains(strings.Fields(s), "notes:read") {
		t.Errorf("token after re-authorizing has scope %q, want notes:read and notes:write", s)
	}
	if res["whoamiAfter"] != "alice" {
		t.Errorf("whoami after re-authorizing = %v", res["whoamiAfter"])
	}
	if res["sessionId"] != nil && res["sessionAfter"] != res["sessionId"] {
		t.Errorf("the session changed on re-authorization: %v -> %v", res["sessionId"], res["sessionAfter"])
	}
	// The requests in the order the flow needs them.
	var reqs []string
	for _, r := range res["requests"].([]any) {
		reqs = append(reqs, fmt.Sprint(r))
	}
	want := []string{
		"POST /mcp 401",
		"GET /.well-known/oauth-protected-resource/mcp 200",
		"GET /.well-known/oauth-authorization-server 200",
		"POST /reg 201",
		"POST /token 200",
		"POST /mcp 200",
		"POST /mcp 403",
		"POST /token 200",
	}
	i := 0
	for _, r := range reqs {
		if i < len(want) && r == want[i] {
			i++
		}
	}
	if i < len(want) {
		t.Errorf("the client's requests lack %q in order; they were:\n%s", want[i], strings.Join(reqs, "\n"))
	}
	// Login once, consent twice (for each scope set).
	if p := fmt.Sprint(res["prompts"]); p != "[login consent consent]" {
		t.Errorf("interactions = %s, want [login consent consent]", p)
	}
}

// TestIntrospectionFlow: the same flow with opaque access tokens, which the
// connector checks at the authorization server's RFC 7662 endpoint.
func TestIntrospectionFlow(t *testing.T) {
	iss := issuer(t)
	bin := journalBinary(t)
	addr := freeAddr(t)
	base := "http://" + addr
	resp, err := http.Post(iss+"/test/opaque?resource="+url.QueryEscape(base+"/mcp"), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	startEnv(t, base, "serving MCP", []string{"MCPGEN_AUTH_CLIENT_ID=mcpgen-connector", "MCPGEN_AUTH_CLIENT_SECRET=connector-secret"},
		bin, "--addr", addr, "--public-url", base, "--auth-issuer", iss, "--auth-scopes", "notes:read",
		"--auth-introspection", iss+"/token/introspection")
	res := runClient(t, base+"/mcp")
	checkFlow(t, res)
	if tok, _ := res["accessToken"].(string); strings.Count(tok, ".") == 2 {
		t.Errorf("the access token is a JWT, not an opaque token: %.40s…", tok)
	}
}
