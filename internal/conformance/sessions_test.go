package conformance

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testenv"
)

func postJSON(t *testing.T, url, body string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestSessionIdle starts the binary with a short idle timeout
// (MCPGEN_SESSION_IDLE, the variable of --session-idle): an abandoned
// session expires, and its client then gets what makes Claude Code start
// a new session, 404 with a JSON-RPC error -32001.
func TestSessionIdle(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and serves examples/everything; skipped in -short mode")
	}
	url := testenv.ServeConnector(t, everythingBinary(t), "MCPGEN_SESSION_IDLE=200ms")
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	resp, _ := postJSON(t, url, initialize, nil)
	sid := resp.Header.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatal("no session id")
	}
	h := map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25"}
	postJSON(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, h)
	// Every request restarts the idle timer, so the client stays quiet for
	// several idle periods before it looks again.
	var body string
	for i := 0; ; i++ {
		time.Sleep(time.Second)
		resp, body = postJSON(t, url, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, h)
		if resp.StatusCode == http.StatusNotFound {
			break
		}
		if i == 10 {
			t.Fatalf("the idle session was never closed: %s", resp.Status)
		}
	}
	var msg struct {
		Error struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(body), &msg) != nil || msg.Error.Code != -32001 || resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("expired session: %s %q, want 404 with JSON-RPC error -32001", resp.Header.Get("Content-Type"), body)
	}
	if resp, _ := postJSON(t, url, initialize, nil); resp.Header.Get("Mcp-Session-Id") == "" {
		t.Errorf("a new session after expiry: %s", resp.Status)
	}
}

// TestStdioBadLines feeds the binary's --stdio bad lines between good ones:
// each bad line gets its error response and the binary goes on serving.
func TestStdioBadLines(t *testing.T) {
	if testing.Short() {
		t.Skip("builds examples/everything; skipped in -short mode")
	}
	cmd := exec.Command(everythingBinary(t), "--stdio", "--stdio-max-line", "4KiB")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("the binary exited with %v:\n%s", err, stderr.String())
			}
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Error("the binary did not exit when stdin closed")
		}
	}()
	out := bufio.NewScanner(stdout)
	out.Buffer(nil, 1<<20)
	next := func() string {
		t.Helper()
		got := make(chan bool, 1)
		go func() { got <- out.Scan() }()
		select {
		case ok := <-got:
			if !ok {
				t.Fatalf("stdout ended:\n%s", stderr.String())
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no answer within 10s")
		}
		return out.Text()
	}
	for _, tc := range []struct{ line, want string }{
		{`{"jsonrpc":"2.0","id":1,"method":`, `"code":-32700`},
		{`[]`, `"code":-32600`},
		{`{"jsonrpc":"2.0","id":2,"method":"ping","params":{"pad":"` + strings.Repeat("x", 8000) + `"}}`, `"code":-32600`},
		{`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`, `"serverInfo"`},
		{`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"test_simple_text","arguments":{}}}`, `This is a simple text response for testing.`},
	} {
		io.WriteString(stdin, tc.line+"\n")
		if got := next(); !strings.Contains(got, tc.want) {
			t.Errorf("%.60s: got %.300s, want %s", tc.line, got, tc.want)
		}
	}
}
