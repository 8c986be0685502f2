package connector_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/connector"
	"github.com/mcpgen/mcpgen/internal/authgate"
	"github.com/mcpgen/mcpgen/internal/devlink"
	"github.com/mcpgen/mcpgen/internal/wire"
)

// scopeRig is a connector with auth whose protected tool, resources,
// template and prompt (scope "admin") record every call they serve: the
// request number the caller's token carries, and a violation when the
// caller lacks the scope. Tokens are "full:N" (scopes basic and admin)
// and "limited:N" (basic only), both for subject ann.
type scopeRig struct {
	url      string
	log      *syncBuffer
	sessions [2]string // session ids at 2025-11-25 and 2025-03-26

	mu         sync.Mutex
	ran        map[string]bool // request numbers a protected handler served
	violations []string
}

// The eras a request is sent in.
const (
	eraSession   = iota // a session at 2025-11-25 (fast path eligible)
	eraBatches          // a session at 2025-03-26 (JSON-RPC batches)
	eraStateless        // 2026-07-28, no session
	eras
)

var eraVersion = [eras]string{"2025-11-25", "2025-03-26", "2026-07-28"}

func newScopeRig(t testing.TB) *scopeRig {
	t.Helper()
	rig := &scopeRig{ran: map[string]bool{}}
	guard := func(ctx context.Context, what string) {
		id := connector.IdentityFrom(ctx)
		rig.mu.Lock()
		defer rig.mu.Unlock()
		if id == nil || !id.HasScopes("admin") {
			rig.violations = append(rig.violations, fmt.Sprintf("%s ran for %+v", what, id))
		}
		if id != nil {
			rig.ran[fmt.Sprint(id.Claims["req"])] = true
		}
	}
	text := func(s string) connector.ToolHandler {
		return func(context.Context, json.RawMessage) (any, error) { return s, nil }
	}
	app := &connector.App{
		Name: "vault",
		Tools: []connector.Tool{
			{Name: "open", Description: "Anyone.", InputSchema: emptyInput, Result: connector.ResultText, Handler: text("open tool")},
			{Name: "secret", Description: "Admins.", InputSchema: `{"type":"object"}`, Result: connector.ResultText, Scopes: []string{"admin"},
				Handler: func(ctx context.Context, _ json.RawMessage) (any, error) {
					guard(ctx, "tool secret")
					return "SECRET-TOOL", nil
				}},
		},
		Resources: []connector.Resource{
			{URI: "res://open", Name: "open", MIMEType: "text/plain", Result: connector.ResultText,
				Handler: func(context.Context, string, map[string]string) (any, error) { return "open resource", nil }},
			{URI: "res://secret", Name: "secret", MIMEType: "text/plain", Result: connector.ResultText, Scopes: []string{"admin"},
				Handler: func(ctx context.Context, _ string, _ map[string]string) (any, error) {
					guard(ctx, "resource res://secret")
					return "SECRET-RESOURCE", nil
				}},
			// Two templates that both match res://files/secret/x: the
			// go-sdk tries them by template text, so the second reads it.
			{URI: "res://files/{+path}", Template: true, Name: "files", MIMEType: "text/plain", Result: connector.ResultText,
				Handler: func(context.Context, string, map[string]string) (any, error) { return "open file", nil }},
			{URI: "res://files/secret/{name}", Template: true, Name: "secret files", MIMEType: "text/plain", Result: connector.ResultText, Scopes: []string{"admin"},
				Handler: func(ctx context.Context, _ string, _ map[string]string) (any, error) {
					guard(ctx, "template res://files/secret/{name}")
					return "SECRET-FILE", nil
				}},
		},
		Prompts: []connector.Prompt{
			{Name: "open_p", Description: "Anyone.", Handler: func(context.Context, map[string]string) (any, error) { return "open prompt", nil }},
			{Name: "secret_p", Description: "Admins.", Scopes: []string{"admin"}, Arguments: []connector.PromptArgument{{Name: "topic"}},
				Handler: func(ctx context.Context, _ map[string]string) (any, error) {
					guard(ctx, "prompt secret_p")
					return "SECRET-PROMPT", nil
				}},
		},
		// Completions tell what a protected prompt or template holds.
		Completions: []connector.Completion{
			{RefKind: "prompt", Ref: "secret_p", Arg: "topic", Handler: func(ctx context.Context, _ string, _ map[string]string) ([]string, error) {
				guard(ctx, "completion of prompt secret_p")
				return []string{"SECRET-TOPIC"}, nil
			}},
			{RefKind: "resource", Ref: "res://files/secret/{name}", Arg: "name", Handler: func(ctx context.Context, _ string, _ map[string]string) ([]string, error) {
				guard(ctx, "completion of template res://files/secret/{name}")
				return []string{"SECRET-NAME"}, nil
			}},
		},
	}
	verify := func(_ context.Context, token string, _ *http.Request) (*authgate.Identity, error) {
		kind, n, _ := strings.Cut(token, ":")
		id := &authgate.Identity{Subject: "ann", Expiry: time.Now().Add(time.Hour), Claims: map[string]any{"req": n}}
		switch kind {
		case "full":
			id.Scopes = []string{"basic", "admin"}
		case "limited":
			id.Scopes = []string{"basic"}
		default:
			return nil, fmt.Errorf("unknown token: %w", runtimeInvalid)
		}
		return id, nil
	}
	base, log := serveAuth(t, app, authgate.Auth{Issuer: "https://as.example.com", Verifier: verify})
	rig.url, rig.log = base+"/mcp", log
	for era := range eraStateless {
		rig.sessions[era] = rig.initialize(t, eraVersion[era])
	}
	return rig
}

// initialize opens a session at version.
func (rig *scopeRig) initialize(t testing.TB, version string) string {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	req, _ := http.NewRequest(http.MethodPost, rig.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer full:init")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize %s: %d, session %q", version, resp.StatusCode, sid)
	}
	rig.send(t, eraOf(version), sid, "full:init", []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), nil)
	return sid
}

func eraOf(version string) int {
	for i, v := range eraVersion {
		if v == version {
			return i
		}
	}
	return eraSession
}

// send posts body in era with token (and the session of the era when sid
// is "" and the era has one) and returns the status and the response.
func (rig *scopeRig) send(t testing.TB, era int, sid, token string, body []byte, header map[string]string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, rig.url, strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Mcp-Protocol-Version", eraVersion[era])
	if sid == "" && era != eraStateless {
		sid = rig.sessions[era]
	}
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// violation returns what protected handlers ran without the scope since
// it was last called.
func (rig *scopeRig) violation() string {
	rig.mu.Lock()
	defer rig.mu.Unlock()
	v := strings.Join(rig.violations, "; ")
	rig.violations = nil
	return v
}

func (rig *scopeRig) served(n string) bool {
	rig.mu.Lock()
	defer rig.mu.Unlock()
	return rig.ran[n]
}

// scopeAttack is a request for something protected, written so that a
// reader other than the go-sdk's could take it for something else.
type scopeAttack struct {
	name   string
	era    int
	header map[string]string // for 2026-07-28: what the go-sdk reads in the body
	body   string
}

// statelessMeta is the _meta a 2026-07-28 request carries (with a
// progress token, which keeps it off the fast path).
const statelessMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":"p"}`

// scopeAttacks are the variants of the scope bypass: bytes after the
// message, an extra member named like a protocol member in another case
// (with a progress token, so the fast path leaves the call to the go-sdk),
// batches, and a URI two templates match.
var scopeAttacks = []scopeAttack{
	{name: "bytes after the object", body: `{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"secret","arguments":{}}} x`},
	{name: "a second object after the first", body: `{"jsonrpc":"2.0","id":12,"method":"resources/read","params":{"uri":"res://secret"}}{}`},
	{name: "bytes after a prompts/get", body: `{"jsonrpc":"2.0","id":13,"method":"prompts/get","params":{"name":"secret_p"}}]`},
	{name: "extra METHOD", body: `{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"secret","arguments":{},"_meta":{"progressToken":"p"}},"METHOD":"tools/list"}`},
	{name: "extra Method on a resource", body: `{"jsonrpc":"2.0","id":15,"method":"resources/read","params":{"uri":"res://secret","_meta":{"progressToken":"p"}},"Method":"ping"}`},
	{name: "extra NAME", body: `{"jsonrpc":"2.0","id":16,"method":"tools/call","params":{"name":"secret","NAME":"open","arguments":{},"_meta":{"progressToken":"p"}}}`},
	{name: "extra NAME on a prompt", body: `{"jsonrpc":"2.0","id":17,"method":"prompts/get","params":{"name":"secret_p","NAME":"open_p"}}`},
	{name: "extra URI", body: `{"jsonrpc":"2.0","id":18,"method":"resources/read","params":{"uri":"res://secret","URI":"res://open","_meta":{"progressToken":"p"}}}`},
	{name: "extra PARAMS", body: `{"jsonrpc":"2.0","id":19,"method":"tools/call","params":{"name":"secret","arguments":{},"_meta":{"progressToken":"p"}},"PARAMS":{"name":"open"}}`},
	{name: "a long-s paramſ", body: `{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"secret","arguments":{},"_meta":{"progressToken":"p"}},"paramſ":{"name":"open"}}`},
	{name: "the template the go-sdk picks", body: `{"jsonrpc":"2.0","id":21,"method":"resources/read","params":{"uri":"res://files/secret/plans"}}`},
	{name: "batch with bytes after it", era: eraBatches, body: `[{"jsonrpc":"2.0","id":22,"method":"tools/call","params":{"name":"secret","arguments":{}}}] x`},
	{name: "batch with extra METHOD", era: eraBatches, body: `[{"jsonrpc":"2.0","id":23,"method":"prompts/get","params":{"name":"secret_p"},"METHOD":"ping"}]`},
	{name: "batch with extra URI", era: eraBatches, body: `[{"jsonrpc":"2.0","id":24,"method":"ping"},{"jsonrpc":"2.0","id":25,"method":"resources/read","params":{"uri":"res://secret","URI":"res://open"}}]`},
	{name: "a completion of a protected prompt", body: `{"jsonrpc":"2.0","id":50,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"secret_p"},"argument":{"name":"topic","value":""}}}`},
	{name: "a completion of a protected template", body: `{"jsonrpc":"2.0","id":51,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"res://files/secret/{name}"},"argument":{"name":"name","value":""}}}`},
	{name: "a completion with an extra NAME in its ref", body: `{"jsonrpc":"2.0","id":52,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"secret_p","NAME":"open_p"},"argument":{"name":"topic","value":""}}}`},
	{name: "a completion with an extra REF", body: `{"jsonrpc":"2.0","id":53,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"secret_p"},"REF":{"type":"ref/prompt","name":"open_p"},"argument":{"name":"topic","value":""}}}`},
	{name: "bytes after a completion", body: `{"jsonrpc":"2.0","id":54,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"secret_p"},"argument":{"name":"topic","value":""}}} x`},
	{name: "a subscription to a protected resource", body: `{"jsonrpc":"2.0","id":55,"method":"resources/subscribe","params":{"uri":"res://secret"}}`},
	{name: "a subscription through a protected template", body: `{"jsonrpc":"2.0","id":56,"method":"resources/subscribe","params":{"uri":"res://files/secret/plans"}}`},
	{name: "a subscription with an extra URI", body: `{"jsonrpc":"2.0","id":57,"method":"resources/subscribe","params":{"uri":"res://secret","URI":"res://open"}}`},
	{name: "batch with a completion", era: eraBatches, body: `[{"jsonrpc":"2.0","id":58,"method":"ping"},{"jsonrpc":"2.0","id":59,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"secret_p"},"argument":{"name":"topic","value":""}}}]`},
	{name: "2026-07-28 with bytes after it", era: eraStateless, header: map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "secret"},
		body: `{"jsonrpc":"2.0","id":26,"method":"tools/call","params":{"name":"secret","arguments":{},` + statelessMeta + `}} x`},
	{name: "2026-07-28 with extra NAME", era: eraStateless, header: map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "secret"},
		body: `{"jsonrpc":"2.0","id":27,"method":"tools/call","params":{"name":"secret","NAME":"open","arguments":{},` + statelessMeta + `}}`},
	{name: "2026-07-28 with extra METHOD", era: eraStateless, header: map[string]string{"Mcp-Method": "resources/read", "Mcp-Name": "res://secret"},
		body: `{"jsonrpc":"2.0","id":28,"method":"resources/read","params":{"uri":"res://secret",` + statelessMeta + `},"METHOD":"ping"}`},
}

// TestScopeBypass: a valid token lacking a tool's, resource's or prompt's
// scope never gets it run, however the request is written: each attack
// variant is refused (400 by the gate, which will not judge an ambiguous
// body; 403; or the JSON-RPC error wire.CodeInsufficientScope where the call is
// dispatched), and the protected handlers never run for it. The same
// requests with the scope are served.
func TestScopeBypass(t *testing.T) {
	t.Parallel()
	rig := newScopeRig(t)
	for i, a := range scopeAttacks {
		code, resp := rig.send(t, a.era, "", "limited:attack"+strconv.Itoa(i), []byte(a.body), a.header)
		if v := rig.violation(); v != "" {
			t.Errorf("%s: a protected handler ran without the scope: %s\n(answer %d %s)", a.name, v, code, resp)
			continue
		}
		refused := code == http.StatusBadRequest || code == http.StatusForbidden ||
			strings.Contains(resp, fmt.Sprintf(`"code":%d`, wire.CodeInsufficientScope))
		if !refused || strings.Contains(resp, "SECRET") {
			t.Errorf("%s: answered %d %s; want it refused", a.name, code, resp)
		}
	}
	if !strings.Contains(rig.log.String(), "auth: refused a request whose scopes cannot be read unambiguously") {
		t.Errorf("the log does not say why requests were refused:\n%s", rig.log.String())
	}

	// Bodies the gate will not judge, answered 400 with a JSON-RPC error
	// naming what to fix.
	many := `{"jsonrpc":"2.0","id":40,"method":"tools/call","params":{"name":"open","arguments":{}}`
	for i := range 64 {
		many += fmt.Sprintf(`,"x%d":0`, i)
	}
	for _, tc := range []struct{ body, want string }{
		{many + "}", "more than 64 members"},
		{`{"jsonrpc":"2.0","id":41,"method":"prompts/get","params":{"name":7}}`, `\"name\" is not a string`},
		{`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":"secret"}`, "the params is not a JSON object"},
		{`{"jsonrpc":"2.0","id":43,"method":"tools/call","params":{"name":"open","name":"open"}}`, `has members \"name\" and \"name\"`},
		{`[{"jsonrpc":"2.0","id":44,"method":"ping"},7]`, "message 2 of the batch: the message is not a JSON object"},
	} {
		code, resp := rig.send(t, eraBatches, "", "full:bad", []byte(tc.body), nil)
		if code != http.StatusBadRequest || !strings.Contains(resp, tc.want) || !strings.Contains(resp, `"jsonrpc":"2.0"`) {
			t.Errorf("%s: %d %s; want 400 saying %s", tc.body, code, resp, tc.want)
		}
	}

	// Plain requests: 403 without the scope, served with it.
	for _, tc := range []struct{ body, want string }{
		{`{"jsonrpc":"2.0","id":31,"method":"tools/call","params":{"name":"secret","arguments":{}}}`, "SECRET-TOOL"},
		{`{"jsonrpc":"2.0","id":32,"method":"resources/read","params":{"uri":"res://secret"}}`, "SECRET-RESOURCE"},
		{`{"jsonrpc":"2.0","id":33,"method":"resources/read","params":{"uri":"res://files/secret/plans"}}`, "SECRET-FILE"},
		{`{"jsonrpc":"2.0","id":34,"method":"prompts/get","params":{"name":"secret_p"}}`, "SECRET-PROMPT"},
		{`{"jsonrpc":"2.0","id":35,"method":"tools/call","params":{"name":"secret","arguments":{},"_meta":{"progressToken":"p"}}}`, "SECRET-TOOL"},
		{`{"jsonrpc":"2.0","id":60,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"secret_p"},"argument":{"name":"topic","value":""}}}`, "SECRET-TOPIC"},
		{`{"jsonrpc":"2.0","id":61,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"res://files/secret/{name}"},"argument":{"name":"name","value":""}}}`, "SECRET-NAME"},
		{`{"jsonrpc":"2.0","id":62,"method":"resources/subscribe","params":{"uri":"res://secret"}}`, `"result":{}`},
		{`{"jsonrpc":"2.0","id":63,"method":"resources/subscribe","params":{"uri":"res://files/secret/plans"}}`, `"result":{}`},
	} {
		if code, resp := rig.send(t, eraSession, "", "limited:plain", []byte(tc.body), nil); code != http.StatusForbidden {
			t.Errorf("%s without the scope: %d %s; want 403", tc.body, code, resp)
		}
		if code, resp := rig.send(t, eraSession, "", "full:plain", []byte(tc.body), nil); code != http.StatusOK || !strings.Contains(resp, tc.want) {
			t.Errorf("%s with the scope: %d %s", tc.body, code, resp)
		}
	}
	if code, resp := rig.send(t, eraBatches, "", "full:batch", []byte(`[{"jsonrpc":"2.0","id":36,"method":"prompts/get","params":{"name":"secret_p"}}]`), nil); code != http.StatusOK || !strings.Contains(resp, "SECRET-PROMPT") {
		t.Errorf("a batch with the scope: %d %s", code, resp)
	}
	if code, resp := rig.send(t, eraBatches, "", "limited:batch", []byte(`[{"jsonrpc":"2.0","id":37,"method":"ping"},{"jsonrpc":"2.0","id":38,"method":"prompts/get","params":{"name":"secret_p"}}]`), nil); code != http.StatusForbidden {
		t.Errorf("a batch without the scope: %d %s; want 403", code, resp)
	}
}

// TestScopeAtDispatch: where no gate reads the body (behind mcpgen dev's
// front, which forwards the identity it verified), the connector checks
// the scopes of the tool, resource or prompt it runs against the caller's.
func TestScopeAtDispatch(t *testing.T) {
	t.Parallel()
	s, err := connector.NewServer(authApp(), connector.WithLogger(quietLogger(nil)), connector.WithDevFront("run-key"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	ts := srv.URL
	for _, tc := range []struct {
		scopes []string
		want   string
	}{
		{[]string{"notes:read"}, fmt.Sprintf(`"code":%d`, wire.CodeInsufficientScope)},
		{[]string{"notes:read", "notes:write"}, "added"},
	} {
		id := devlink.EncodeIdentity(&authgate.Identity{Subject: "alice", Scopes: tc.scopes})
		post := func(body string) string {
			req, _ := http.NewRequest(http.MethodPost, ts, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
			req.Header.Set("Mcp-Method", "tools/call")
			req.Header.Set("Mcp-Name", "add_note")
			req.Header.Set(devlink.KeyHeader, "run-key")
			req.Header.Set(devlink.IdentityHeader, id)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return string(b)
		}
		for _, meta := range []string{`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`, statelessMeta} {
			got := post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add_note","arguments":{},` + meta + `}}`)
			if !strings.Contains(got, tc.want) {
				t.Errorf("add_note with scopes %v (%s): %s; want %s", tc.scopes, meta, got, tc.want)
			}
		}
	}
}

// TestScopeAtDispatchCompletionSubscribe: where no gate reads the body
// (behind mcpgen dev's front), completing an argument of a protected
// prompt or template and subscribing to a protected resource are checked
// against the caller's scopes where they are dispatched.
func TestScopeAtDispatchCompletionSubscribe(t *testing.T) {
	t.Parallel()
	app := authApp()
	app.Prompts = []connector.Prompt{{Name: "review", Description: "Reviews notes.", Scopes: []string{"notes:admin"},
		Arguments: []connector.PromptArgument{{Name: "topic"}},
		Handler:   func(context.Context, map[string]string) (any, error) { return "review", nil }}}
	app.Resources = append(app.Resources, connector.Resource{URI: "notes://drafts/{id}", Template: true, Name: "drafts",
		MIMEType: "text/plain", Result: connector.ResultText, Scopes: []string{"notes:admin"},
		Handler: func(context.Context, string, map[string]string) (any, error) { return "draft", nil }})
	complete := func(context.Context, string, map[string]string) ([]string, error) {
		return []string{"SECRET-VALUE"}, nil
	}
	app.Completions = []connector.Completion{
		{RefKind: "prompt", Ref: "review", Arg: "topic", Handler: complete},
		{RefKind: "resource", Ref: "notes://drafts/{id}", Arg: "id", Handler: complete},
	}
	s, err := connector.NewServer(app, connector.WithLogger(quietLogger(nil)), connector.WithDevFront("run-key"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	for _, tc := range []struct {
		scopes   []string
		refused  bool
		wantText string
	}{
		{[]string{"notes:read"}, true, ""},
		{[]string{"notes:read", "notes:admin"}, false, "SECRET-VALUE"},
	} {
		id := devlink.EncodeIdentity(&authgate.Identity{Subject: "alice", Scopes: tc.scopes})
		post := func(sid, body string) (string, string) {
			req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set(devlink.KeyHeader, "run-key")
			req.Header.Set(devlink.IdentityHeader, id)
			if sid != "" {
				req.Header.Set("Mcp-Session-Id", sid)
				req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return resp.Header.Get("Mcp-Session-Id"), string(b)
		}
		sid, init := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
		if sid == "" {
			t.Fatalf("initialize: %s", init)
		}
		post(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		for _, body := range []string{
			`{"jsonrpc":"2.0","id":2,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"review"},"argument":{"name":"topic","value":""}}}`,
			`{"jsonrpc":"2.0","id":3,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"notes://drafts/{id}"},"argument":{"name":"id","value":""}}}`,
			`{"jsonrpc":"2.0","id":4,"method":"resources/subscribe","params":{"uri":"notes://secret"}}`,
			`{"jsonrpc":"2.0","id":5,"method":"resources/subscribe","params":{"uri":"notes://drafts/7"}}`,
		} {
			_, got := post(sid, body)
			isRefused := strings.Contains(got, fmt.Sprintf(`"code":%d`, wire.CodeInsufficientScope))
			if isRefused != tc.refused || strings.Contains(body, "completion") && tc.refused == strings.Contains(got, "SECRET-VALUE") {
				t.Errorf("with scopes %v: %s\nanswered %s", tc.scopes, body, got)
			}
		}
	}
}

// FuzzScopeDispatch is the differential test of the gate against the
// dispatcher: each input (an era and a body) is sent with a token holding
// every scope, which shows whether the dispatcher (the fast path or the
// go-sdk) runs a protected handler for it, then with a token lacking the
// protected scope. No input may get a protected handler run without the
// scope, and when the dispatcher would run one, the gate must refuse the
// body (400 or 403) rather than let it through. The seed corpus, in
// testdata/fuzz/FuzzScopeDispatch, holds the attack variants.
//
// Run: go test ./runtime -run '^$' -fuzz FuzzScopeDispatch -fuzztime 4m -parallel 1
// (see docs/auth.md for how long it has run without a finding).
func FuzzScopeDispatch(f *testing.F) {
	for _, a := range scopeAttacks {
		f.Add(uint8(a.era), []byte(a.body))
	}
	rig := newScopeRig(f)
	var seq atomic.Int64
	f.Fuzz(func(t *testing.T, era uint8, body []byte) {
		e := int(era % eras)
		header := map[string]string{}
		if e == eraStateless {
			// The headers a client repeats from the body, as the go-sdk
			// reads it (members named exactly; a fuzzed body may say
			// anything else).
			var m struct {
				Method string `json:"method"`
				Params struct {
					Name string `json:"name"`
					URI  string `json:"uri"`
				} `json:"params"`
			}
			json.Unmarshal(body, &m)
			header["Mcp-Method"] = m.Method
			header["Mcp-Name"] = m.Params.Name + m.Params.URI
			for _, v := range header {
				if strings.ContainsFunc(v, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }) {
					return // no client can send it in a header
				}
			}
		}
		n := strconv.FormatInt(seq.Add(1), 10)
		rig.send(t, e, "", "full:"+n, body, header)
		dispatched := rig.served(n)
		code, resp := rig.send(t, e, "", "limited:"+n, body, header)
		if v := rig.violation(); v != "" {
			t.Fatalf("a protected handler ran without the scope: %s\nbody %q (%s): %d %s", v, body, eraVersion[e], code, resp)
		}
		if dispatched && code != http.StatusBadRequest && code != http.StatusForbidden {
			t.Fatalf("the gate let through a body the dispatcher runs a protected handler for\nbody %q (%s): %d %s", body, eraVersion[e], code, resp)
		}
	})
}

// TestScopeAtDispatchSessionless: a 2025 request without a session, which
// the runtime answers on its fast path, still has its tool's scopes checked
// against the caller's at dispatch, and its rate limit applied.
func TestScopeAtDispatchSessionless(t *testing.T) {
	t.Parallel()
	app := authApp()
	for i := range app.Tools {
		app.Tools[i].NeverAsks = true // as the generator proves for add_note
	}
	s, err := connector.NewServer(app, connector.WithLogger(quietLogger(nil)), connector.WithDevFront("run-key"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	post := func(scopes ...string) (string, string) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add_note","arguments":{}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		req.Header.Set(devlink.KeyHeader, "run-key")
		req.Header.Set(devlink.IdentityHeader, devlink.EncodeIdentity(&authgate.Identity{Subject: "alice", Scopes: scopes}))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.Header.Get("Content-Type"), string(b)
	}
	for i, want := range []string{fmt.Sprintf(`"code":%d`, wire.CodeInsufficientScope), "added", "added", "Rate limit reached"} {
		scopes := []string{"notes:read", "notes:write"}
		if i == 0 {
			scopes = scopes[:1]
		}
		ct, got := post(scopes...)
		if !strings.Contains(got, want) {
			t.Errorf("call %d with scopes %v: %s; want %s", i+1, scopes, got, want)
		}
		if ct != "application/json" {
			t.Errorf("call %d: Content-Type %q, want the fast path's application/json", i+1, ct)
		}
	}
}
