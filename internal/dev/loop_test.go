package dev_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpgen/mcpgen/generator/diag"
	"github.com/mcpgen/mcpgen/internal/dev"
)

// gatedBuilder holds the first build until release is closed, telling
// building when it is held.
type gatedBuilder struct {
	inner    dev.Builder
	building chan struct{}
	release  chan struct{}
	once     sync.Once
}

func (g *gatedBuilder) Build(ctx context.Context, out string) diag.List {
	g.once.Do(func() {
		close(g.building)
		<-g.release
	})
	return g.inner.Build(ctx, out)
}

// sentSignal is an HTTP transport that closes sent once a request whose
// body holds marker has been handed to the connection completely.
type sentSignal struct {
	marker string
	sent   chan struct{}
	once   sync.Once
}

func (s *sentSignal) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		r.Body = io.NopCloser(&signalOnEOF{Reader: bytes.NewReader(b), done: func() {
			if bytes.Contains(b, []byte(s.marker)) {
				s.once.Do(func() { close(s.sent) })
			}
		}})
	}
	return http.DefaultTransport.RoundTrip(r)
}

// signalOnEOF calls done once its bytes have all been read.
type signalOnEOF struct {
	*bytes.Reader
	done func()
}

func (s *signalOnEOF) Read(p []byte) (int, error) {
	n, err := s.Reader.Read(p)
	if s.Reader.Len() == 0 {
		// All of it is read: the transport reads no further than
		// Content-Length, so it may never see io.EOF.
		s.done()
	}
	return n, err
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// TestListDuringFirstBuild connects a host while the first build is still
// running and lists the tools: the front holds the answer until the build
// is done, so the list has the tools instead of being empty.
func TestListDuringFirstBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a connector")
	}
	dir := copyDir(t, "testdata/plain")
	gate := &gatedBuilder{inner: dev.GoBuilder{Dir: dir}, building: make(chan struct{}), release: make(chan struct{})}
	addr := freePort(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	out := &syncBuffer{}
	go func() {
		done <- dev.Run(ctx, dev.Options{Dir: dir, Addr: addr, Builder: gate, Stdout: out, Stderr: out})
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("dev.Run: %v", err)
		}
	}()
	select {
	case <-gate.building:
	case err := <-done:
		t.Fatalf("dev.Run: %v", err)
	}

	sig := &sentSignal{marker: `"tools/list"`, sent: make(chan struct{})}
	c := mcp.NewClient(&mcp.Implementation{Name: "early-host", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp", HTTPClient: &http.Client{Transport: sig}}, nil)
	if err != nil {
		t.Fatalf("initialize while the first build runs: %v", err)
	}
	defer cs.Close()
	type answer struct {
		res *mcp.ListToolsResult
		err error
	}
	got := make(chan answer, 1)
	go func() {
		res, err := cs.ListTools(ctx, nil)
		got <- answer{res, err}
	}()
	// The request is out before the build may go on.
	<-sig.sent
	close(gate.release)
	a := <-got
	if a.err != nil {
		t.Fatal(a.err)
	}
	var names []string
	for _, tl := range a.res.Tools {
		names = append(names, tl.Name)
	}
	if !strings.Contains(strings.Join(names, " "), "greet") {
		t.Fatalf("tools/list sent during the first build = %v, want the built connector's tools\n%s", names, out.String())
	}
}

// TestCrashDuringCall kills the connector in the middle of a call: the host
// gets a tool error saying so, the connector is restarted and the same
// session calls it again.
func TestCrashDuringCall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a connector")
	}
	dir := copyDir(t, "testdata/plain")
	ds := startDev(t, dir, nil)
	cs := connect(t, ds.url, newNotes())
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "die", Arguments: map[string]any{}})
	if err != nil {
		t.Fatalf("a crash during the call reached the host as a protocol error: %v", err)
	}
	var text string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text += tc.Text
		}
	}
	if !res.IsError {
		t.Fatalf("result is not an error: %q", text)
	}
	for _, want := range []string{"connector crashed during this request", "exit status 4", "restarting", "call the tool again", "dying mid-call"} {
		if !strings.Contains(text, want) {
			t.Errorf("error text lacks %q: %q", want, text)
		}
	}
	if e := ds.wait(t, "restart"); !e.OK {
		t.Fatalf("the restart failed:\n%s", ds.out.String())
	}
	if got := callText(t, cs, "greet", map[string]any{"name": "ann"}); got != "hello ann v1" {
		t.Fatalf("greet after the restart = %q", got)
	}

	// A resource read that kills the connector: a JSON-RPC error saying so.
	_, err = cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "test://die"})
	if err == nil || !strings.Contains(err.Error(), "connector crashed during this request (exit status 5)") ||
		!strings.Contains(err.Error(), "read the resource again") {
		t.Errorf("read of a resource whose connector crashed: %v", err)
	}
	if e := ds.wait(t, "restart"); !e.OK {
		t.Fatalf("the second restart failed:\n%s", ds.out.String())
	}
	if got := readText(t, cs, "test://static"); got != "static v1" {
		t.Fatalf("static after the restart = %q", got)
	}
}

// TestStopWithClientConnected stops mcpgen dev while a host holds its event
// stream open and waits on a call: Run returns, the call ends, the host's
// session is gone and so is the connector process. (The time it takes is
// measured in docs/dev.md; it is logged here.)
func TestStopWithClientConnected(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a connector")
	}
	dir := copyDir(t, "testdata/plain")
	ds := startDev(t, dir, nil)
	cs := connect(t, ds.url, newNotes())
	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	callTool := make(chan answer, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "block", Arguments: map[string]any{}})
		callTool <- answer{res, err}
	}()
	// Wait for the call to reach the connector.
	for deadline := time.Now().Add(time.Minute); !strings.Contains(ds.out.String(), "plain: blocking"); {
		if time.Now().After(deadline) {
			t.Fatalf("the block call never reached the connector:\n%s", ds.out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	pids := childPIDs(t, ds.out.String())

	start := time.Now()
	ds.stop()
	t.Logf("mcpgen dev stopped in %v with a client connected and a call in flight", time.Since(start))
	if a := <-callTool; a.err == nil && !a.res.IsError {
		t.Errorf("the call in flight succeeded after stop: %v", a.res.Content)
	}
	if err := cs.Ping(context.Background(), nil); err == nil {
		t.Errorf("the session still answers after stop")
	}
	for _, pid := range pids {
		if p, err := os.FindProcess(pid); err == nil && p.Signal(syscall.Signal(0)) == nil {
			t.Errorf("connector process %d is still running", pid)
		}
	}
	if !strings.Contains(ds.out.String(), "stopping") {
		t.Errorf("no stopping line:\n%s", ds.out.String())
	}
}
