package authe2e_test

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// scopeRequest posts body to mcpURL with token in session sid at version
// and returns the status and the response body.
func scopeRequest(t *testing.T, mcpURL, token, sid, version, body string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, mcpURL, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", version)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header.Get("Mcp-Session-Id")
}

// scopeSession opens a session at version with token.
func scopeSession(t *testing.T, mcpURL, token, version string) string {
	t.Helper()
	init := strings.Replace(initialize, "2025-11-25", version, 1)
	code, body, sid := scopeRequest(t, mcpURL, token, "", version, init)
	if code != http.StatusOK || sid == "" {
		t.Fatalf("initialize %s: %d %s", version, code, body)
	}
	scopeRequest(t, mcpURL, token, sid, version, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return sid
}

// The attack variants on the journal: write_entry, journal://private and
// review_journal need notes:write. A progress token keeps a call off the
// fast path, where the go-sdk dispatches it.
var journalAttacks = []struct{ name, version, body string }{
	{"bytes after a tools/call", "2025-11-25", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write_entry","arguments":{"text":"x"}}} x`},
	{"bytes after a resources/read", "2025-11-25", `{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"journal://private"}}{}`},
	{"bytes after a prompts/get", "2025-11-25", `{"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":"review_journal"}} 1`},
	{"extra METHOD", "2025-11-25", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"write_entry","arguments":{"text":"x"},"_meta":{"progressToken":"p"}},"METHOD":"tools/list"}`},
	{"extra NAME", "2025-11-25", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"write_entry","NAME":"whoami","arguments":{"text":"x"},"_meta":{"progressToken":"p"}}}`},
	{"extra URI", "2025-11-25", `{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"journal://private","URI":"journal://none","_meta":{"progressToken":"p"}}}`},
	{"extra NAME on a prompt", "2025-11-25", `{"jsonrpc":"2.0","id":8,"method":"prompts/get","params":{"name":"review_journal","NAME":"none"}}`},
	{"a subscription to the private resource", "2025-11-25", `{"jsonrpc":"2.0","id":11,"method":"resources/subscribe","params":{"uri":"journal://private"}}`},
	{"a subscription with an extra URI", "2025-11-25", `{"jsonrpc":"2.0","id":12,"method":"resources/subscribe","params":{"uri":"journal://private","URI":"journal://none"}}`},
	{"batch with bytes after it", "2025-03-26", `[{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"write_entry","arguments":{"text":"x"}}}] x`},
	{"batch with extra METHOD", "2025-03-26", `[{"jsonrpc":"2.0","id":10,"method":"resources/read","params":{"uri":"journal://private"},"METHOD":"ping"}]`},
}

// attackScopes sends every variant with a valid token that has notes:read
// but not notes:write: each must be refused (400, 403, or the JSON-RPC
// error -32003), never run.
func attackScopes(t *testing.T, mcpURL string) {
	t.Helper()
	tok := mint(t, url.Values{"aud": {mcpURL}, "scope": {"notes:read"}, "sub": {"mallory"}})
	sids := map[string]string{}
	for _, a := range journalAttacks {
		if sids[a.version] == "" {
			sids[a.version] = scopeSession(t, mcpURL, tok, a.version)
		}
		code, body, _ := scopeRequest(t, mcpURL, tok, sids[a.version], a.version, a.body)
		refused := code == http.StatusBadRequest || code == http.StatusForbidden || strings.Contains(body, `"code":-32003`)
		if strings.Contains(a.body, "subscribe") && strings.Contains(body, `"result":{}`) {
			refused = false
		}
		if !refused || strings.Contains(body, "wrote") || strings.Contains(body, "PRIVATE-") {
			t.Errorf("%s: answered %d %s; want it refused", a.name, code, body)
		}
	}
}

// TestScopeBypass: a valid token lacking a scope never gets the tool,
// resource or prompt declaring it run, however the request is written
// (bytes after the message, members named again in another case, batches),
// on a built connector and behind mcpgen dev's front.
func TestScopeBypass(t *testing.T) {
	t.Run("connector", func(t *testing.T) {
		base, p := serveJournal(t)
		attackScopes(t, base+"/mcp")
		if !p.waitLog("auth: refused a request whose scopes cannot be read unambiguously") {
			t.Errorf("the connector's log does not say why it refused")
		}
	})
	t.Run("dev", func(t *testing.T) {
		iss := issuer(t)
		dir := journalProject(t)
		addr := freeAddr(t)
		base := "http://" + addr
		start(t, base, "MCP endpoint", dir, mcpgenBin(t), "dev", ".", "--addr", addr, "--auth-issuer", iss, "--auth-scopes", "notes:read")
		attackScopes(t, base+"/mcp")
		// A plain subscription gets the 403 clients step up on.
		mcpURL := base + "/mcp"
		tok := mint(t, url.Values{"aud": {mcpURL}, "scope": {"notes:read"}, "sub": {"mallory"}})
		sid := scopeSession(t, mcpURL, tok, "2025-11-25")
		sub := `{"jsonrpc":"2.0","id":30,"method":"resources/subscribe","params":{"uri":"journal://private"}}`
		if code, body, _ := scopeRequest(t, mcpURL, tok, sid, "2025-11-25", sub); code != http.StatusForbidden {
			t.Errorf("a subscription to journal://private without notes:write: %d %s; want 403", code, body)
		}
	})
}
