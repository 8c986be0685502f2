package inspector_test

import (
	"context"
	"encoding/json"
	"io"
	"log"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen"
	"github.com/mcpgen/mcpgen/connector"
	"github.com/mcpgen/mcpgen/internal/inspector"
)

// taskView shows the tool result's structuredContent.
const taskView = `<!doctype html><html><head><meta charset="utf-8"></head><body><div id="out">waiting</div><script>
const out = document.getElementById("out");
const pending = {};
function send(m) { parent.postMessage(Object.assign({ jsonrpc: "2.0" }, m), "*"); }
window.addEventListener("message", (e) => {
  const m = e.data;
  if (!m || m.jsonrpc !== "2.0") return;
  if (m.id !== undefined && !m.method && pending[m.id]) { pending[m.id](m); delete pending[m.id]; return; }
  if (m.method === "ui/notifications/tool-result") out.textContent = "report " + JSON.stringify(m.params.structuredContent);
  if (m.id !== undefined && m.method) send({ id: m.id, result: {} });
});
pending[1] = () => send({ method: "ui/notifications/initialized", params: {} });
send({ id: 1, method: "ui/initialize", params: { appInfo: { name: "report", version: "1" }, appCapabilities: {}, protocolVersion: "2026-01-26" } });
</script></body></html>`

// TestInspectorRunsTasks serves a connector with task tools (mcpgen's
// runtime, MCP 2026-07-28 tasks) and drives the inspector's tool runner in
// headless Chromium: a task is seen working with its progress message,
// then completed with its result in the result panel and the view; another
// is cancelled with the Cancel task button.
func TestInspectorRunsTasks(t *testing.T) {
	release := make(chan struct{})
	ended := make(chan error, 1)
	input := `{"type":"object","properties":{"year":{"type":"integer"}},"additionalProperties":false}`
	app := &connector.App{
		Name: "tasks",
		Tools: []connector.Tool{
			{Name: "report", Description: "Writes the year's report.", InputSchema: input, Result: connector.ResultStruct,
				OutputSchema: `{"type":"object","properties":{"year":{"type":"integer"},"pages":{"type":"integer"}}}`,
				Task:         connector.TaskOptional, UI: "report",
				Handler: func(ctx context.Context, args json.RawMessage) (any, error) {
					var in struct{ Year int }
					json.Unmarshal(args, &in)
					mcpgen.Progress(ctx, 1, 3, "reading the orders")
					select {
					case <-release:
					case <-ctx.Done():
						return nil, ctx.Err()
					}
					return map[string]int{"year": in.Year, "pages": 12}, nil
				}},
			{Name: "hold", Description: "Runs until cancelled.", InputSchema: input, Result: connector.ResultText,
				Task: connector.TaskRequired,
				Handler: func(ctx context.Context, _ json.RawMessage) (any, error) {
					mcpgen.Progress(ctx, 0, 0, "holding")
					select {
					case <-ctx.Done():
						ended <- context.Cause(ctx)
						return nil, ctx.Err()
					case <-time.After(time.Minute):
						return "never cancelled", nil
					}
				}},
		},
		Views: []connector.View{{Name: "report", URI: "ui://report", HTML: taskView}},
	}
	srv, err := connector.NewServer(app, connector.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	insp, err := inspector.New(inspector.Options{MCP: srv.Handler(), Log: log.New(io.Discard, "", 0)})
	if err != nil {
		t.Fatal(err)
	}
	defer insp.Close()
	ts := httptest.NewServer(insp)
	defer ts.Close()

	b := startBrowser(t)
	defer b.try("goto", map[string]any{"url": "about:blank"})
	b.do("clearConsole", nil)

	// A deep link calls the task tool: it runs as a task, working with the
	// handler's progress as its status message.
	b.do("goto", map[string]any{"url": ts.URL + `/?tool=report&input=%7B%22year%22%3A2025%7D&call=1`})
	b.do("waitAttr", map[string]any{"selector": `[data-testid="task"]`, "attr": "data-task-status", "value": "working"})
	b.do("waitText", map[string]any{"text": "reading the orders"})
	if got := b.str("eval", map[string]any{"expr": `window.__mcpgenInspector.task.status + " " + window.__mcpgenInspector.task.message`}); got != "working reading the orders" {
		t.Errorf("__mcpgenInspector.task = %q", got)
	}
	// Then completed: the result panel and the view show its result.
	close(release)
	b.do("waitAttr", map[string]any{"selector": `[data-testid="task"]`, "attr": "data-task-status", "value": "completed"})
	b.do("waitText", map[string]any{"text": "isError: false"})
	b.ready()
	b.do("waitFrameText", map[string]any{"text": `report {"pages":12,"year":2025}`})

	// A task=required tool runs as a task; Cancel task ends it cancelled,
	// and its handler's ctx ends.
	b.do("click", map[string]any{"name": "hold"})
	if d := b.str("eval", map[string]any{"expr": `String(document.querySelector('[aria-label="Run as a task"]').disabled)`}); d != "true" {
		t.Errorf("the task checkbox of a task=required tool is not fixed (disabled = %s)", d)
	}
	b.do("click", map[string]any{"name": "Call"})
	b.do("waitAttr", map[string]any{"selector": `[data-testid="task"]`, "attr": "data-task-status", "value": "working"})
	b.do("click", map[string]any{"name": "Cancel task"})
	b.do("waitAttr", map[string]any{"selector": `[data-testid="task"]`, "attr": "data-task-status", "value": "cancelled"})
	select {
	case err := <-ended:
		if err == nil || !strings.Contains(err.Error(), "cancelled") {
			t.Errorf("the cancelled handler's ctx ended with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("the handler of the cancelled task still runs")
	}

	// The protocol log shows the task's requests.
	var methods []string
	json.Unmarshal(b.do("eval", map[string]any{"expr": `window.__mcpgenInspector.protocol.filter(e => e.channel === "server" && e.dir === "send").map(e => e.message.method)`}), &methods)
	for _, m := range []string{"tools/call", "tasks/get", "tasks/cancel"} {
		if !strings.Contains(strings.Join(methods, " "), m) {
			t.Errorf("the protocol log has no %s: %v", m, methods)
		}
	}
	if bad := b.consoleProblems(); len(bad) > 0 {
		t.Errorf("the browser console reports problems:\n%s", strings.Join(bad, "\n"))
	}
}
