package dev_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpgen/mcpgen/internal/dev"
	"github.com/mcpgen/mcpgen/internal/testenv"
)

// copyDir copies the project template at src into a fresh directory.
func copyDir(t testing.TB, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	// What `npm install` would put there: React for the views.
	if err := os.Symlink(testenv.NodeModules(t, "react", "react-dom"), filepath.Join(dst, "node_modules")); err != nil {
		t.Fatal(err)
	}
	return dst
}

// edit rewrites a file of the project, replacing old with new.
func edit(t testing.TB, dir, file, old, new string) {
	t.Helper()
	p := filepath.Join(dir, file)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s does not contain %q", file, old)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// devServer runs dev.Run on dir and returns its URL and the stream of
// rebuild events.
type devServer struct {
	url    string
	events chan dev.Event
	out    *syncBuffer
	stop   func()
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func startDev(t testing.TB, dir string, extra func(*dev.Options)) *devServer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ds := &devServer{events: make(chan dev.Event, 64), out: &syncBuffer{}}
	ready := make(chan string, 1)
	opts := dev.Options{
		Dir:    dir,
		Addr:   "127.0.0.1:0",
		Stdout: ds.out,
		Stderr: ds.out,
		Ready:  func(u string) { ready <- u },
		Events: func(e dev.Event) { ds.events <- e },
	}
	if extra != nil {
		extra(&opts)
	}
	done := make(chan error, 1)
	go func() { done <- dev.Run(ctx, opts) }()
	var once sync.Once
	stop := func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("dev.Run: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("dev.Run did not return after cancel")
		}
	}
	ds.stop = func() { once.Do(stop) }
	t.Cleanup(func() {
		ds.stop()
		if t.Failed() || testing.Verbose() {
			t.Logf("mcpgen dev output:\n%s", ds.out.String())
		}
	})
	select {
	case ds.url = <-ready:
	case err := <-done:
		t.Fatalf("dev.Run: %v", err)
	case <-time.After(4 * time.Minute): // a cold build cache compiles the go-sdk first
		t.Fatalf("mcpgen dev did not get ready; output:\n%s", ds.out.String())
	}
	return ds
}

// wait returns the next rebuild event of kind.
func (ds *devServer) wait(t testing.TB, kind string) dev.Event {
	t.Helper()
	timeout := time.After(3 * time.Minute)
	for {
		select {
		case e := <-ds.events:
			if e.Kind == kind {
				return e
			}
		case <-timeout:
			t.Fatalf("no %s rebuild within 60s; output:\n%s", kind, ds.out.String())
		}
	}
}

// notes collects the notifications one client session receives.
type notes struct {
	tools, resources, prompts chan struct{}
	updated                   chan string
	progress                  chan float64
	logs                      chan any
}

func newNotes() *notes {
	return &notes{
		tools: make(chan struct{}, 64), resources: make(chan struct{}, 64), prompts: make(chan struct{}, 64),
		updated: make(chan string, 64), progress: make(chan float64, 64), logs: make(chan any, 64),
	}
}

func (n *notes) drain() {
	for _, c := range []chan struct{}{n.tools, n.resources, n.prompts} {
		for len(c) > 0 {
			<-c
		}
	}
	for len(n.updated) > 0 {
		<-n.updated
	}
}

func expect[T any](t testing.TB, c <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(30 * time.Second):
		t.Fatalf("no %s within 30s", what)
	}
	var zero T
	return zero
}

func connect(t testing.TB, url string, n *notes) *mcp.ClientSession {
	t.Helper()
	return connectWith(t, &mcp.StreamableClientTransport{Endpoint: url}, n)
}

// connectWith connects a client that records its notifications in n and
// answers sampling and elicitation over tr.
func connectWith(t testing.TB, tr mcp.Transport, n *notes) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "dev-test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler:     func(context.Context, *mcp.ToolListChangedRequest) { n.tools <- struct{}{} },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { n.resources <- struct{}{} },
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { n.prompts <- struct{}{} },
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
			n.updated <- r.Params.URI
		},
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			n.progress <- r.Params.Progress
		},
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) { n.logs <- r.Params.Data },
		CreateMessageHandler: func(_ context.Context, r *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Model: "test", Role: "assistant", Content: &mcp.TextContent{Text: "sampled by the host"}}, nil
		},
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "ada"}}, nil
		},
	})
	cs, err := c.Connect(context.Background(), tr, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func tool(t testing.TB, cs *mcp.ClientSession, name string) *mcp.Tool {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		if tl.Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %q in %v", name, res.Tools)
	return nil
}

func viewURI(t testing.TB, tl *mcp.Tool) string {
	t.Helper()
	ui, _ := tl.Meta["ui"].(map[string]any)
	s, _ := ui["resourceUri"].(string)
	if s == "" {
		t.Fatalf("tool %s has no _meta.ui.resourceUri: %v", tl.Name, tl.Meta)
	}
	return s
}

func readText(t testing.TB, cs *mcp.ClientSession, uri string) string {
	t.Helper()
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatalf("read %s: %v", uri, err)
	}
	return res.Contents[0].Text
}

func callText(t testing.TB, cs *mcp.ClientSession, name string, args any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	if res.IsError {
		t.Fatalf("call %s: error result: %s", name, b.String())
	}
	return b.String()
}

func schemaProps(t testing.TB, tl *mcp.Tool) map[string]any {
	t.Helper()
	b, _ := json.Marshal(tl.InputSchema)
	var s struct {
		Properties map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return s.Properties
}

// TestSessionSurvivesEdits drives mcpgen dev with real edits on disk while
// one real client session stays connected.
func TestSessionSurvivesEdits(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a connector")
	}
	dir := copyDir(t, "testdata/plain")
	ds := startDev(t, dir, func(o *dev.Options) { o.AllowHosts = []string{"abc.tunnel.test"} })
	n := newNotes()
	cs := connect(t, ds.url, n)
	sid := cs.ID()
	if sid == "" {
		t.Fatal("no session id")
	}
	ctx := context.Background()
	checkHosts(t, ds.url)

	// The first build serves the connector's tools, with the view served
	// by the front (the connector's own ui:// resource is hidden).
	greet := tool(t, cs, "greet")
	uri1 := viewURI(t, greet)
	if !strings.HasPrefix(uri1, "ui://card/") || uri1 == "ui://card/fromchild" {
		t.Fatalf("greet links %q, want the front's ui://card/HASH", uri1)
	}
	if got := readText(t, cs, uri1); !strings.Contains(got, "card v1") {
		t.Fatalf("view content %q lacks card v1", got)
	}
	if got := callText(t, cs, "greet", map[string]any{"name": "ada"}); got != "hello ada v1" {
		t.Fatalf("greet = %q", got)
	}
	if got := readText(t, cs, "test://static"); got != "static v1" {
		t.Fatalf("static = %q", got)
	}
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri1}); err != nil {
		t.Fatal(err)
	}

	// Server-to-client traffic of a call reaches this session: progress,
	// logging, and a sampling request answered by this client.
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "work", Arguments: map[string]any{}, Meta: mcp.Meta{"progressToken": "p1"}})
	if err != nil || res.IsError {
		t.Fatalf("work: %v %+v", err, res.Content[0])
	}
	if tc, _ := res.Content[0].(*mcp.TextContent); tc == nil || tc.Text != "sampled by the host" {
		t.Fatalf("work returned %+v, want the host's sampling answer", res.Content[0])
	}
	if tc, _ := res.Content[1].(*mcp.TextContent); tc == nil || tc.Text != "accept ada" {
		t.Fatalf("work returned %+v, want the host's elicitation answer", res.Content[1])
	}
	if p := expect(t, n.progress, "progress"); p != 1 {
		t.Fatalf("progress = %v", p)
	}
	if d := expect(t, n.logs, "log message"); d != "working" {
		t.Fatalf("log = %v", d)
	}

	// Prompts, resource subscriptions and cancellation pass through.
	pr, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "hi"})
	if err != nil || pr.Messages[0].Content.(*mcp.TextContent).Text != "hi v1" {
		t.Fatalf("prompt hi: %v %+v", err, pr)
	}
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://static"}); err != nil {
		t.Fatal(err)
	}
	callText(t, cs, "touch", map[string]any{})
	if u := expect(t, n.updated, "resources/updated from the connector"); u != "test://static" {
		t.Fatalf("updated %q", u)
	}
	cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	_, err = cs.CallTool(cctx, &mcp.CallToolParams{Name: "block", Arguments: map[string]any{}})
	cancel()
	if err == nil {
		t.Fatal("block returned before it was cancelled")
	}
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(ds.out.String(), "block cancelled"); {
		if time.Now().After(deadline) {
			t.Fatalf("the connector never saw the cancellation:\n%s", ds.out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}

	// A view edit: no restart, a new URI, announcements, new content.
	n.drain()
	edit(t, dir, "ui/card.tsx", "card v1", "card v2")
	if e := ds.wait(t, "views"); !e.OK {
		t.Fatalf("view rebuild failed:\n%s", ds.out.String())
	}
	expect(t, n.resources, "resources/list_changed after a view edit")
	expect(t, n.tools, "tools/list_changed after a view edit")
	if u := expect(t, n.updated, "resources/updated for the subscribed view"); u != uri1 {
		t.Fatalf("updated %q, want %q", u, uri1)
	}
	uri2 := viewURI(t, tool(t, cs, "greet"))
	if uri2 == uri1 || !strings.HasPrefix(uri2, "ui://card/") {
		t.Fatalf("view URI after edit = %q (before %q)", uri2, uri1)
	}
	if got := readText(t, cs, uri2); !strings.Contains(got, "card v2") {
		t.Fatalf("new view content lacks card v2")
	}
	if got := readText(t, cs, uri1); !strings.Contains(got, "card v2") {
		t.Fatalf("the superseded URI should serve the new content")
	}
	rl, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rl.Resources {
		if r.URI == uri1 || r.URI == "ui://card/fromchild" {
			t.Fatalf("resources/list still has %s", r.URI)
		}
	}

	// A bundle error: shown at its position, the last good view serves.
	edit(t, dir, "ui/card.tsx", "return <div", "return <div <")
	if e := ds.wait(t, "views"); e.OK {
		t.Fatal("a broken view bundled")
	}
	if out := ds.out.String(); !regexp.MustCompile(`ui/card\.tsx:\d+:\d+: `).MatchString(out) {
		t.Fatalf("the bundle error has no position:\n%s", out)
	}
	if got := readText(t, cs, uri2); !strings.Contains(got, "card v2") {
		t.Fatalf("the last good view is not served")
	}
	edit(t, dir, "ui/card.tsx", "return <div <", "return <div")
	if e := ds.wait(t, "views"); !e.OK {
		t.Fatal("the fixed view did not bundle")
	}
	if got := viewURI(t, tool(t, cs, "greet")); got != uri2 {
		t.Fatalf("the fixed view (same bundle) has a new URI %q, want %q", got, uri2)
	}

	// A Go edit: new input schema, new handler, same session.
	n.drain()
	edit(t, dir, "main.go", "Name string `json:\"name\"`", "Name string `json:\"name\"`\n\tLoud bool `json:\"loud,omitempty\"`")
	edit(t, dir, "main.go", `const version = "v1"`, `const version = "v2"`)
	if e := ds.wait(t, "go"); !e.OK {
		t.Fatalf("go rebuild failed:\n%s", ds.out.String())
	}
	expect(t, n.tools, "tools/list_changed after a Go edit")
	if _, ok := schemaProps(t, tool(t, cs, "greet"))["loud"]; !ok {
		t.Fatalf("greet's input schema has no loud after the edit")
	}
	if got := callText(t, cs, "greet", map[string]any{"name": "ada", "loud": true}); got != "hello ada v2" {
		t.Fatalf("greet after edit = %q", got)
	}
	if got := viewURI(t, tool(t, cs, "greet")); got != uri2 {
		t.Fatalf("a Go edit relinked the view: %q, want %q", got, uri2)
	}

	// A compile error: reported at file:line:col, the last good build serves.
	edit(t, dir, "main.go", `const version = "v2"`, `const version = v2missing`)
	if e := ds.wait(t, "go"); e.OK {
		t.Fatal("a broken build reported success")
	}
	if out := ds.out.String(); !strings.Contains(out, "main.go:") || !strings.Contains(out, "v2missing") {
		t.Fatalf("the compile error is not shown with its position:\n%s", out)
	}
	if got := callText(t, cs, "greet", map[string]any{"name": "bob"}); got != "hello bob v2" {
		t.Fatalf("greet while broken = %q", got)
	}

	// The fix: back to serving, still the same session.
	edit(t, dir, "main.go", `const version = v2missing`, `const version = "v3"`)
	if e := ds.wait(t, "go"); !e.OK {
		t.Fatalf("go rebuild after the fix failed:\n%s", ds.out.String())
	}
	if got := callText(t, cs, "greet", map[string]any{"name": "cy"}); got != "hello cy v3" {
		t.Fatalf("greet after the fix = %q", got)
	}
	if got := readText(t, cs, "test://static"); got != "static v3" {
		t.Fatalf("static after the fix = %q", got)
	}

	// A crash: the connector is restarted (same binary, no rebuild) and
	// the session carries on.
	if got := callText(t, cs, "crash", map[string]any{}); got != "bye" {
		t.Fatalf("crash = %q", got)
	}
	if e := ds.wait(t, "restart"); !e.OK {
		t.Fatalf("the restart failed:\n%s", ds.out.String())
	}
	if out := ds.out.String(); !strings.Contains(out, "crashing on purpose") || !strings.Contains(out, "exit status 3") {
		t.Fatalf("the crash is not reported with the connector's output:\n%s", out)
	}
	if got := callText(t, cs, "greet", map[string]any{"name": "dee"}); got != "hello dee v3" {
		t.Fatalf("greet after the restart = %q", got)
	}
	if cs.ID() != sid {
		t.Fatalf("session id changed: %q → %q", sid, cs.ID())
	}
	if err := cs.Ping(ctx, nil); err != nil {
		t.Fatalf("the session is gone: %v", err)
	}

	// Every connector process started is gone once mcpgen dev stops: the
	// replaced ones after their swap, the last one on exit.
	pids := childPIDs(t, ds.out.String())
	if len(pids) < 4 {
		t.Fatalf("expected at least 4 connector processes, saw %v", pids)
	}
	ds.stop()
	for _, pid := range pids {
		if p, err := os.FindProcess(pid); err == nil && p.Signal(syscall.Signal(0)) == nil {
			t.Errorf("connector process %d is still running", pid)
		}
	}
}

// childPIDs reads the pids the test connector prints when it starts.
func childPIDs(t testing.TB, out string) []int {
	var pids []int
	for _, m := range regexp.MustCompile(`plain v\d+ pid (\d+) listening`).FindAllStringSubmatch(out, -1) {
		pid, err := strconv.Atoi(m[1])
		if err != nil {
			t.Fatal(err)
		}
		pids = append(pids, pid)
	}
	return pids
}

// hostRewriter sends every request with another Host header, as a tunnel
// forwarding its public name does.
type hostRewriter string

func (h hostRewriter) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Host = string(h)
	return http.DefaultTransport.RoundTrip(r)
}

// checkHosts checks the DNS-rebinding protection: a foreign Host or Origin
// is refused, an allowed one (a tunnel's name) gets a working session.
func checkHosts(t *testing.T, url string) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for _, h := range []struct{ host, origin string }{{"evil.test", ""}, {"", "http://evil.test"}} {
		req, _ := http.NewRequest("POST", url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if h.host != "" {
			req.Host = h.host
		}
		if h.origin != "" {
			req.Header.Set("Origin", h.origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		msg, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(msg), "allow-host") {
			t.Errorf("Host %q Origin %q: status %d %q, want 403 naming --allow-host", h.host, h.origin, resp.StatusCode, msg)
		}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "via-tunnel", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint: url, HTTPClient: &http.Client{Transport: hostRewriter("abc.tunnel.test")},
	}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connecting with an allowed Host: %v", err)
	}
	defer cs.Close()
	if got := callText(t, cs, "greet", map[string]any{"name": "tunnel"}); got != "hello tunnel v1" {
		t.Errorf("greet through the allowed Host = %q", got)
	}
}

// TestStartsBroken starts mcpgen dev on a project that does not compile:
// the endpoint serves anyway (with nothing listed), and the fix brings the
// tools to the already connected session.
func TestStartsBroken(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a connector")
	}
	dir := copyDir(t, "testdata/plain")
	edit(t, dir, "main.go", `const version = "v1"`, `const version = v1missing`)
	ds := startDev(t, dir, nil)
	if out := ds.out.String(); !strings.Contains(out, "main.go:") || !strings.Contains(out, "v1missing") {
		t.Fatalf("the compile error is not shown:\n%s", out)
	}
	n := newNotes()
	cs := connect(t, ds.url, n)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(res.Tools) != 0 {
		t.Fatalf("tools before the first good build: %v %v", res, err)
	}
	edit(t, dir, "main.go", `const version = v1missing`, `const version = "v1"`)
	if e := ds.wait(t, "go"); !e.OK {
		t.Fatalf("the fix did not build")
	}
	expect(t, n.tools, "tools/list_changed after the first good build")
	if got := callText(t, cs, "greet", map[string]any{"name": "eve"}); got != "hello eve v1" {
		t.Fatalf("greet = %q", got)
	}
}
