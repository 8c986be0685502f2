package inspector_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpgen/mcpgen/internal/inspector"
)

// echoView is a view written against the MCP Apps postMessage protocol by
// hand: it shows the tool result's structuredContent, and tries a fetch its
// declared CSP does not allow, reporting the violation.
const echoView = `<!doctype html><html><head><meta charset="utf-8"></head><body><div id="out">waiting</div><script>
const out = document.getElementById("out");
let result = null, blocked = "";
function render() { out.textContent = (result ? "result " + JSON.stringify(result.structuredContent) : "waiting") + " " + blocked; }
document.addEventListener("securitypolicyviolation", (e) => { blocked = "csp blocked " + e.effectiveDirective; render(); });
const pending = {};
function send(m) { parent.postMessage(Object.assign({ jsonrpc: "2.0" }, m), "*"); }
window.addEventListener("message", (e) => {
  const m = e.data;
  if (!m || m.jsonrpc !== "2.0") return;
  if (m.id !== undefined && !m.method && pending[m.id]) { pending[m.id](m); delete pending[m.id]; return; }
  if (m.method === "ui/notifications/tool-result") { result = m.params; render(); }
  if (m.id !== undefined && m.method) send({ id: m.id, result: {} });
});
pending[1] = () => {
  send({ method: "ui/notifications/initialized", params: {} });
  fetch("https://blocked.example/").catch(() => {});
  send({ id: 2, method: "ui/message", params: { role: "user", content: [{ type: "text", text: "hello from the view" }] } });
};
pending[2] = () => {};
send({ id: 1, method: "ui/initialize", params: { appInfo: { name: "echo", version: "1" }, appCapabilities: {}, protocolVersion: "2026-01-26" } });
</script></body></html>`

const orderSchema = `{
  "type": "object",
  "required": ["customer", "address", "items"],
  "properties": {
    "customer": {"type": "string", "pattern": "^C-[0-9]+$", "description": "The customer's ID."},
    "priority": {"type": "string", "enum": ["low", "high"], "default": "low"},
    "count": {"type": "integer", "minimum": 1, "maximum": 5},
    "address": {"type": "object", "required": ["city"], "properties": {"city": {"type": "string"}}},
    "items": {"type": "array", "items": {"type": "string"}}
  }
}`

// echoServer is a go-sdk server with a tool linked to a view, a tool with
// a large result, a resource, a template and a prompt.
func echoServer(t *testing.T) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "1"}, nil)
	var schema map[string]any
	if err := json.Unmarshal([]byte(orderSchema), &schema); err != nil {
		t.Fatal(err)
	}
	yes := true
	s.AddTool(&mcp.Tool{
		Name: "make_order", Description: "Places an order.", InputSchema: schema,
		Annotations: &mcp.ToolAnnotations{DestructiveHint: &yes},
		Meta:        mcp.Meta{"ui": map[string]any{"resourceUri": "ui://echo"}},
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args map[string]any
		json.Unmarshal(req.Params.Arguments, &args)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ordered"}}, StructuredContent: args}, nil
	})
	s.AddTool(&mcp.Tool{
		Name: "lost_view", Description: "Links a view the server does not have.", InputSchema: map[string]any{"type": "object"},
		Meta: mcp.Meta{"ui": map[string]any{"resourceUri": "ui://missing"}},
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	})
	s.AddTool(&mcp.Tool{Name: "ask", Description: "Asks the user's name.", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{
				Message: "What is your name?",
				RequestedSchema: map[string]any{"type": "object", "required": []string{"name"},
					"properties": map[string]any{"name": map[string]any{"type": "string", "minLength": 2}}},
			})
			if err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%s: hello %v", res.Action, res.Content["name"])}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "summarize", Description: "Asks the model for a summary.", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{
				MaxTokens: 100,
				Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "Summarize: the cat sat"}}},
			})
			if err != nil {
				return nil, err
			}
			text := ""
			if tc, ok := res.Content.(*mcp.TextContent); ok {
				text = tc.Text
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "model said: " + text}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "big", Description: "Returns a lot of text.", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("lorem ipsum ", 10000)}}}, nil
		})
	s.AddResource(&mcp.Resource{URI: "ui://echo", Name: "echo", MIMEType: "text/html;profile=mcp-app"},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
				URI: "ui://echo", MIMEType: "text/html;profile=mcp-app", Text: echoView,
				Meta: mcp.Meta{"ui": map[string]any{"csp": map[string]any{"connectDomains": []string{"https://allowed.example"}}}},
			}}}, nil
		})
	s.AddResource(&mcp.Resource{URI: "test://static", Name: "static", MIMEType: "text/plain"},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "test://static", Text: "static text here"}}}, nil
		})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://items/{id}", Name: "item"},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "item at " + req.Params.URI}}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "greet", Arguments: []*mcp.PromptArgument{{Name: "name", Required: true}}},
		func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Hello " + req.Params.Arguments["name"]}}}}, nil
		})
	return s
}

// TestInspectorInProcess serves the inspector through its Go API around an
// in-process go-sdk server and drives its forms, JSON editor, result
// figures, lists and the view sandbox's CSP in headless Chromium.
func TestInspectorInProcess(t *testing.T) {
	srv := echoServer(t)
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "fixtures", "make_order"), 0o755); err != nil {
		t.Fatal(err)
	}
	fixture := `{"input": {"customer": "C-7"}, "result": {"customer": "C-7", "from": "fixture"}}`
	if err := os.WriteFile(filepath.Join(dir, "fixtures", "make_order", "canned.json"), []byte(fixture), 0o644); err != nil {
		t.Fatal(err)
	}
	insp, err := inspector.New(inspector.Options{MCP: handler, ProjectDir: dir, Log: log.New(io.Discard, "", 0)})
	if err != nil {
		t.Fatal(err)
	}
	defer insp.Close()
	ts := httptest.NewServer(insp)
	defer ts.Close()

	b := startBrowser(t)
	// Leave the page before the servers close: its event streams would
	// hold them open.
	defer b.try("goto", map[string]any{"url": "about:blank"})
	b.do("viewport", map[string]any{"width": 1440, "height": 900})
	b.do("clearConsole", nil)
	b.do("goto", map[string]any{"url": ts.URL + "/?host=chatgpt"})
	b.do("click", map[string]any{"name": "make_order"})
	b.do("waitText", map[string]any{"text": "destructive", "exact": true})

	// Defaults, patterns and bounds, checked as the user types.
	if v := b.str("eval", map[string]any{"expr": `document.querySelector('[aria-label="priority"]').value`}); v != `"low"` {
		t.Errorf("priority = %q, want its default \"low\"", v)
	}
	b.do("fill", map[string]any{"label": "customer", "value": "X"})
	b.do("waitText", map[string]any{"text": "must match ^C-[0-9]+$"})
	b.do("fill", map[string]any{"label": "customer", "value": "C-12"})
	b.do("waitText", map[string]any{"text": "must match ^C-[0-9]+$", "state": "detached"})
	b.do("fill", map[string]any{"label": "count", "value": "9"})
	b.do("waitText", map[string]any{"text": "at most 5"})
	b.do("fill", map[string]any{"label": "count", "value": "2"})
	b.do("fill", map[string]any{"label": "city", "value": "Oslo"})
	b.do("click", map[string]any{"name": "add to items"})
	b.do("fill", map[string]any{"label": "items[0]", "value": "apple"})
	b.do("select", map[string]any{"label": "priority", "value": `"high"`})

	// The JSON editor holds the same arguments, and edits flow back.
	b.do("click", map[string]any{"role": "tab", "name": "JSON"})
	raw := b.str("eval", map[string]any{"expr": `document.querySelector('[aria-label="arguments (JSON)"]').value`})
	var args map[string]any
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		t.Fatalf("JSON editor: %v\n%s", err, raw)
	}
	want := `{"address":{"city":"Oslo"},"count":2,"customer":"C-12","items":["apple"],"priority":"high"}`
	if got, _ := json.Marshal(args); string(got) != want {
		t.Errorf("arguments from the form = %s, want %s", got, want)
	}
	b.do("fill", map[string]any{"label": "arguments (JSON)", "value": strings.Replace(raw, `"count": 2`, `"count": 3`, 1)})
	b.do("click", map[string]any{"role": "tab", "name": "Form"})
	if v := b.str("eval", map[string]any{"expr": `document.querySelector('[aria-label="count"]').value`}); v != "3" {
		t.Errorf("count after the JSON edit = %q, want 3", v)
	}

	// Call: the view renders from the sandbox origin, under its declared CSP.
	b.do("click", map[string]any{"name": "Call"})
	b.ready()
	b.do("waitFrameText", map[string]any{"text": "csp blocked connect-src"})
	text := b.str("frameText", nil)
	if !strings.Contains(text, `"customer":"C-12"`) || !strings.Contains(text, `"count":3`) {
		t.Errorf("the view shows %q", text)
	}
	origin := b.str("eval", map[string]any{"expr": `new URL(document.querySelector('#view iframe').src).origin`})
	if origin == ts.URL || !strings.HasSuffix(insp.SandboxURL(), origin[strings.LastIndex(origin, ":"):]) {
		t.Errorf("the view was loaded from %s (app %s, sandbox %s)", origin, ts.URL, insp.SandboxURL())
	}
	if cls := b.str("attr", map[string]any{"selector": "#view", "attr": "class"}); strings.Contains(cls, "bordered") {
		t.Errorf("a view without prefersBorder got a border (class %q)", cls)
	}
	if sb := b.str("attr", map[string]any{"selector": "#view iframe", "attr": "sandbox"}); sb != "allow-scripts" {
		t.Errorf("iframe sandbox = %q", sb)
	}
	b.do("waitText", map[string]any{"text": "isError: false"})
	b.do("waitText", map[string]any{"text": "hello from the view"}) // its ui/message reached the host

	// Container widths: the mobile preset narrows the view.
	b.do("select", map[string]any{"label": "Width", "value": "mobile"})
	if w := b.str("eval", map[string]any{"expr": `document.querySelector('#view').style.width`}); w != "375px" {
		t.Errorf("view width with ChatGPT's mobile preset = %q, want 375px", w)
	}

	// The protocol log copies.
	b.do("click", map[string]any{"name": "Copy"})
	b.do("waitText", map[string]any{"text": "Copied", "exact": true})

	// A result over the token cap is flagged.
	b.do("click", map[string]any{"name": "big"})
	b.do("click", map[string]any{"name": "Call"})
	b.do("waitText", map[string]any{"text": "over the 25k cap"})

	// The server asks the user (elicitation): a form from its schema.
	b.do("click", map[string]any{"name": "ask"})
	b.do("click", map[string]any{"name": "Call"})
	b.do("waitText", map[string]any{"text": "What is your name?"})
	b.do("fill", map[string]any{"label": "name", "value": "Ada"})
	b.do("click", map[string]any{"name": "Accept"})
	b.do("waitText", map[string]any{"text": "accept: hello Ada"})

	// The server asks the model (sampling): the user types the reply.
	b.do("click", map[string]any{"name": "summarize"})
	b.do("click", map[string]any{"name": "Call"})
	b.do("waitText", map[string]any{"text": "Summarize: the cat sat"})
	b.do("fill", map[string]any{"label": "reply", "value": "A cat, sitting."})
	b.do("click", map[string]any{"name": "Send reply"})
	b.do("waitText", map[string]any{"text": "model said: A cat, sitting."})

	// Resources, templates and prompts.
	b.do("click", map[string]any{"name": "test://static"})
	b.do("waitText", map[string]any{"text": "static text here"})
	b.do("click", map[string]any{"name": "test://items/{id}"})
	b.do("fill", map[string]any{"label": "uri", "value": "test://items/42"})
	b.do("click", map[string]any{"name": "Read"})
	b.do("waitText", map[string]any{"text": "item at test://items/42"})
	b.do("click", map[string]any{"name": "greet"})
	b.do("fill", map[string]any{"label": "name", "value": "Ada"})
	b.do("click", map[string]any{"name": "Get"})
	b.do("waitText", map[string]any{"text": "Hello Ada"})

	// A fixture renders without a call; the view holder reports what fails.
	b.do("goto", map[string]any{"url": ts.URL + "/?tool=make_order&fixture=canned"})
	b.ready()
	b.do("waitFrameText", map[string]any{"text": `"from":"fixture"`})
	b.do("goto", map[string]any{"url": ts.URL + "/?tool=make_order&fixture=nope"})
	b.do("waitAttr", map[string]any{"selector": "#view", "attr": "data-app-status", "value": "error"})
	if e := b.str("attr", map[string]any{"selector": "#view", "attr": "data-app-error"}); !strings.Contains(e, "fixtures/make_order/nope.json") {
		t.Errorf("data-app-error = %q", e)
	}
	b.do("goto", map[string]any{"url": ts.URL + "/?tool=lost_view&call=1"})
	b.do("waitAttr", map[string]any{"selector": "#view", "attr": "data-app-status", "value": "error"})
	if e := b.str("attr", map[string]any{"selector": "#view", "attr": "data-app-error"}); e == "" {
		t.Errorf("a view that cannot be read has no data-app-error")
	}

	for _, l := range b.consoleProblems() {
		if !strings.Contains(l, "blocked.example") { // the violation the view provokes
			t.Errorf("browser console: %s", l)
		}
	}
}

// TestInspectorReloadsAfterRestart restarts the server behind an open page
// on the same address: the page reloads itself (the old MCP session is
// gone) and comes back with the tool it showed.
func TestInspectorReloadsAfterRestart(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	serve := func(ln net.Listener) (*httptest.Server, *inspector.Server) {
		srv := echoServer(t)
		handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
		insp, err := inspector.New(inspector.Options{MCP: handler, Log: log.New(io.Discard, "", 0)})
		if err != nil {
			t.Fatal(err)
		}
		ts := &httptest.Server{Listener: ln, Config: &http.Server{Handler: insp}}
		ts.Start()
		return ts, insp
	}
	ts, insp := serve(ln)
	b := startBrowser(t)
	defer b.try("goto", map[string]any{"url": "about:blank"})
	b.do("goto", map[string]any{"url": ts.URL + "/?tool=make_order"})
	b.do("waitText", map[string]any{"text": "Places an order."})
	b.do("eval", map[string]any{"expr": "window.__before = true"})

	insp.Close()
	ts.CloseClientConnections()
	ts.Close()
	ln2, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("the address %s was taken meanwhile: %v", addr, err)
	}
	ts2, insp2 := serve(ln2)
	defer ts2.Close()
	defer insp2.Close()
	defer ts2.CloseClientConnections()

	b.do("waitAttr", map[string]any{"selector": "html", "attr": "data-reloaded", "value": "yes", "timeoutMs": 20000,
		"setup": "document.documentElement.setAttribute('data-reloaded', window.__before ? 'no' : 'yes')"})
	b.do("waitText", map[string]any{"text": "Places an order."})
}
