package mcpgentest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen"
	"github.com/mcpgen/mcpgen/bundler"
	mrt "github.com/mcpgen/mcpgen/connector"
	"github.com/mcpgen/mcpgen/internal/testenv"
	"github.com/mcpgen/mcpgen/mcpgentest"
)

// The view shows the greeting, and a button that calls greet again through
// the host; a message "throw" makes it throw.
const view = `import { useApp, useToolData } from "mcpgen/ui";
import { useState } from "react";

export default function Greeting() {
  const data = useToolData<{ message: string }>();
  const app = useApp();
  const [again, setAgain] = useState("");
  if (!data) return <p>Loading…</p>;
  if (data.message === "throw") throw new Error("greeting view broke");
  return (
    <div style={{ padding: 16, fontFamily: "sans-serif" }}>
      <h1 className="msg">{data.message}</h1>
      <button onClick={async () => {
        const r = await app.callTool<{ message: string }>("greet", { name: "again" });
        setAgain(r.structuredContent?.message ?? "");
      }}>Again</button>
      <p className="again">{again}</p>
    </div>
  );
}
`

// app builds a connector registry by hand: one tool, greet, linked to the
// view above bundled by mcpgen's bundler.
func app(t *testing.T) *mrt.App {
	t.Helper()
	nm := testenv.NodeModules(t, "react", "react-dom")
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "ui"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ui", "greeting.tsx"), []byte(view), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := bundler.New(bundler.Options{Dir: dir, Minify: true, NodePaths: []string{nm}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	views, diags := b.Rebuild(context.Background())
	if len(diags) > 0 || len(views) != 1 {
		t.Fatalf("bundling: %v", diags)
	}
	return &mrt.App{
		Name: "greeter",
		Tools: []mrt.Tool{{
			Name:         "greet",
			Description:  "Greets someone.",
			InputSchema:  `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"],"additionalProperties":false}`,
			OutputSchema: `{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`,
			Annotations:  mrt.Annotations{ReadOnly: true, Idempotent: true},
			UI:           "greeting",
			Result:       mrt.ResultStruct,
			Handler: func(ctx context.Context, args json.RawMessage) (any, error) {
				var in struct{ Name string }
				if err := json.Unmarshal(args, &in); err != nil {
					return nil, err
				}
				return map[string]string{"message": "Hello, " + in.Name + "!"}, nil
			},
		}},
		Views: []mrt.View{{Name: views[0].Name, URI: views[0].URI, HTML: views[0].HTML}},
	}
}

func fixtures(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range map[string]string{
		"hello":  `{"input": {"name": "Ada"}, "result": {"message": "Hello from a fixture"}}`,
		"throws": `{"input": {"name": "Ada"}, "result": {"message": "throw"}}`,
	} {
		p := filepath.Join(dir, "fixtures", "greet", name+".json")
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestCallTool(t *testing.T) {
	c := mcpgentest.New(t, app(t))
	res := c.CallTool("greet", map[string]any{"name": "Ada"})
	var out struct{ Message string }
	mcpgentest.Decode(t, res, &out)
	if out.Message != "Hello, Ada!" || !strings.Contains(mcpgentest.Text(res), "Hello, Ada!") {
		t.Errorf("greet = %+v, text %q", out, mcpgentest.Text(res))
	}
	// Invalid arguments are a tool error, as a host sees it.
	if res := c.CallTool("greet", map[string]any{"nme": "Ada"}); !res.IsError {
		t.Errorf("greet without name: %s", mcpgentest.Text(res))
	}
}

func TestRender(t *testing.T) {
	testenv.Chromium(t)
	c := mcpgentest.New(t, app(t), mcpgentest.Dir(fixtures(t)))

	v := c.RenderFixture("greet", "hello")
	if got := v.Query(".msg"); len(got) != 1 || got[0] != "Hello from a fixture" {
		t.Errorf(".msg = %q", got)
	}
	if !strings.Contains(v.Text(), "Again") {
		t.Errorf("text %q", v.Text())
	}
	img, err := png.Decode(bytes.NewReader(v.Screenshot()))
	if err != nil || img.Bounds().Dx() < 100 {
		t.Errorf("screenshot: %v", err)
	}

	// A live call, in the other preset and theme; the view's button calls
	// the tool again through the host bridge.
	v = c.Render("greet", map[string]any{"name": "Grace"}, mcpgentest.Host("chatgpt"), mcpgentest.Theme("dark"))
	if got := v.Query(".msg"); len(got) != 1 || got[0] != "Hello, Grace!" {
		t.Errorf(".msg = %q", got)
	}
	if theme := v.Eval(`document.documentElement.getAttribute("data-theme")`); theme != "dark" {
		t.Errorf("data-theme = %q", theme)
	}
	v.Eval(`document.querySelector("button").click()`)
	for range 100 {
		if got := v.Query(".again"); len(got) == 1 && got[0] == "Hello, again!" {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got := v.Query(".again"); len(got) != 1 || got[0] != "Hello, again!" {
		t.Errorf(".again = %q after the button's callTool", got)
	}
}

// TestRenderManyOpen: a test may keep several views open at once. Each
// open inspector page holds long-lived connections to the server, and a
// browser allows only six per host in one profile; the fourth view used to
// wait forever for a connection and never become ready.
func TestRenderManyOpen(t *testing.T) {
	testenv.Chromium(t)
	c := mcpgentest.New(t, app(t), mcpgentest.Dir(fixtures(t)))
	var views []*mcpgentest.View
	for i := range 5 {
		v := c.Render("greet", map[string]any{"name": fmt.Sprint("n", i)})
		if got := v.Query(".msg"); len(got) != 1 || got[0] != fmt.Sprintf("Hello, n%d!", i) {
			t.Errorf("view %d: .msg = %q", i, got)
		}
		views = append(views, v)
	}
	for _, v := range views {
		v.Close()
	}
}

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	mu    sync.Mutex
	fails []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fails = append(r.fails, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}

func TestRenderFailsOnBrokenView(t *testing.T) {
	testenv.Chromium(t)
	a, dir := app(t), fixtures(t)
	rec := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		c := mcpgentest.New(rec, a, mcpgentest.Dir(dir))
		c.RenderFixture("greet", "throws")
		c.RenderFixture("greet", "missing")
	}()
	<-done
	all := strings.Join(rec.fails, "\n")
	if !strings.Contains(all, "the view of greet/throws went wrong") || !strings.Contains(all, "greeting view broke") {
		t.Errorf("a throwing view did not fail the test: %q", all)
	}
	if !strings.Contains(all, "no fixture fixtures/greet/missing.json") {
		t.Errorf("a missing fixture did not fail the test: %q", all)
	}
}

// taskApp is a connector with task tools: report (reports progress, then
// waits for release), hold (runs until cancelled), broken (a tool error)
// and now (not a task tool).
func taskApp(release <-chan struct{}, started chan<- string, ended chan<- error) *mrt.App {
	empty := `{"type":"object","properties":{"name":{"type":"string"}},"additionalProperties":false}`
	return &mrt.App{
		Name: "tasks",
		Tools: []mrt.Tool{
			{Name: "report", Description: "Writes a report.", InputSchema: empty, Result: mrt.ResultText, Task: mrt.TaskOptional,
				Handler: func(ctx context.Context, args json.RawMessage) (any, error) {
					var in struct{ Name string }
					json.Unmarshal(args, &in)
					mcpgen.Progress(ctx, 1, 2, "halfway")
					started <- "report"
					select {
					case <-release:
					case <-ctx.Done():
						return nil, ctx.Err()
					}
					return "the report for " + in.Name, nil
				}},
			{Name: "hold", Description: "Runs until cancelled.", InputSchema: empty, Result: mrt.ResultText, Task: mrt.TaskRequired,
				Handler: func(ctx context.Context, _ json.RawMessage) (any, error) {
					started <- "hold"
					select {
					case <-ctx.Done():
						ended <- context.Cause(ctx)
						return nil, ctx.Err()
					case <-time.After(time.Minute):
						return "never cancelled", nil
					}
				}},
			{Name: "broken", Description: "Fails.", InputSchema: empty, Result: mrt.ResultText, Task: mrt.TaskOptional,
				Handler: func(context.Context, json.RawMessage) (any, error) {
					return nil, errors.New("the printer is on fire")
				}},
			{Name: "now", Description: "Answers at once.", InputSchema: empty, Result: mrt.ResultText,
				Handler: func(context.Context, json.RawMessage) (any, error) { return "now", nil }},
		},
	}
}

func TestCallTask(t *testing.T) {
	release, started, ended := make(chan struct{}), make(chan string, 4), make(chan error, 1)
	c := mcpgentest.New(t, taskApp(release, started, ended))

	// Working, with the handler's progress as the status message, then
	// completed with the result.
	task := c.CallTask("report", map[string]any{"name": "Ada"})
	<-started
	if s := task.Status(); s.Status != mcpgentest.TaskWorking || s.Message != "halfway" || s.Final() || s.Result != nil {
		t.Errorf("report while it runs: %+v, want working with message \"halfway\"", s)
	}
	close(release)
	res := task.Wait()
	if res.IsError || mcpgentest.Text(res) != "the report for Ada" {
		t.Errorf("report's result: isError %v, text %q", res.IsError, mcpgentest.Text(res))
	}
	if s := task.Status(); s.Status != mcpgentest.TaskCompleted || !s.Final() || s.Result == nil {
		t.Errorf("report after Wait: %+v", s)
	}

	// Cancelled: the handler's ctx ends and the task is cancelled.
	task = c.CallTask("hold", nil)
	<-started
	task.Cancel()
	if s := task.WaitFor(mcpgentest.TaskCancelled); s.Status != mcpgentest.TaskCancelled {
		t.Errorf("hold after Cancel: %+v, want cancelled", s)
	}
	select {
	case err := <-ended:
		if err == nil || !strings.Contains(err.Error(), "cancelled") {
			t.Errorf("the handler's ctx ended with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("the handler of a cancelled task still runs")
	}

	// A tool error completes the task with an isError result.
	res = c.CallTask("broken", nil).Wait()
	if !res.IsError || !strings.Contains(mcpgentest.Text(res), "the printer is on fire") {
		t.Errorf("broken: isError %v, text %q", res.IsError, mcpgentest.Text(res))
	}
}

// TestCallTaskMistakes: a tool that is not a task tool, or a task that
// ends otherwise than completed, fails the test saying what to do.
func TestCallTaskMistakes(t *testing.T) {
	release, started, ended := make(chan struct{}), make(chan string, 4), make(chan error, 1)
	defer close(release)
	a := taskApp(release, started, ended)
	rec := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		c := mcpgentest.New(rec, a)
		func() {
			done := make(chan struct{})
			go func() { defer close(done); c.CallTask("now", nil) }()
			<-done
		}()
		task := c.CallTask("hold", nil)
		<-started
		task.Cancel()
		task.Wait()
	}()
	<-done
	all := strings.Join(rec.fails, "\n")
	if !strings.Contains(all, "now answered at once, not with a task: mark it //mcpgen:tool task") {
		t.Errorf("CallTask of a tool that is not a task tool: %q", all)
	}
	if !strings.Contains(all, "of hold ended cancelled") {
		t.Errorf("Wait on a cancelled task: %q", all)
	}
}
