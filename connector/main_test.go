package connector_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/connector"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestRunFlags(t *testing.T) {
	for _, tc := range []struct {
		args           []string
		code           int
		stdout, stderr string
	}{
		{[]string{"--version"}, 0, "acme 1.2.3\n", ""},
		{[]string{"--help"}, 0, "", "--stateless"},
		{[]string{"--bogus"}, 2, "", "flag provided but not defined: -bogus"},
		{[]string{"extra"}, 2, "", `unexpected argument "extra"`},
		{[]string{"--addr", "256.0.0.1:x"}, 1, "", "cannot listen on 256.0.0.1:x"},
		{[]string{"--help"}, 0, "", "\n  --session-idle DURATION"},
		{[]string{"--help"}, 0, "", "\n  --stdio-max-line BYTES"},
		{[]string{"--help"}, 0, "", "(default 16MiB)"},
		{[]string{"--help"}, 0, "", "\n  --client-timeout DURATION"},
		{[]string{"--help"}, 0, "", "\n  --addr HOST:PORT"},
		{[]string{"--stdio-max-line", "lots"}, 2, "", `want a positive size such as 16MiB`},
		{[]string{"--stdio-max-line", "0"}, 2, "", `want a positive size`},
		{[]string{"--session-idle", "soon"}, 2, "", `-session-idle`},
		{[]string{"--help"}, 0, "", "-metrics-addr HOST:PORT"},
		{[]string{"--metrics-addr", "256.0.0.1:x"}, 1, "", "cannot listen on --metrics-addr 256.0.0.1:x"},
	} {
		var stdout, stderr bytes.Buffer
		code := connector.Run(context.Background(), testApp(newProbe()), tc.args, strings.NewReader(""), &stdout, &stderr)
		if code != tc.code || stdout.String() != tc.stdout || !strings.Contains(stderr.String(), tc.stderr) {
			t.Errorf("%v: code %d stdout %q stderr %q", tc.args, code, stdout.String(), stderr.String())
		}
	}
	// --help spells every flag as the docs do, --addr, never -addr.
	var stderr bytes.Buffer
	connector.Run(context.Background(), testApp(newProbe()), []string{"--help"}, strings.NewReader(""), io.Discard, &stderr)
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.HasPrefix(line, "  -") && !strings.HasPrefix(line, "  --") {
			t.Errorf("--help shows a flag with one dash: %q", line)
		}
	}
}

// jsonLines checks that everything written to it is newline-delimited
// JSON-RPC, while passing it on.
type jsonLines struct {
	w   io.Writer
	mu  sync.Mutex
	buf bytes.Buffer
}

func (j *jsonLines) Write(p []byte) (int, error) {
	j.mu.Lock()
	j.buf.Write(p)
	j.mu.Unlock()
	return j.w.Write(p)
}

func (j *jsonLines) check(t *testing.T) {
	j.mu.Lock()
	defer j.mu.Unlock()
	lines := strings.Split(strings.TrimSuffix(j.buf.String(), "\n"), "\n")
	if len(lines) < 2 {
		t.Errorf("stdout has %d lines", len(lines))
	}
	for _, l := range lines {
		var msg struct {
			JSONRPC string `json:"jsonrpc"`
		}
		if err := json.Unmarshal([]byte(l), &msg); err != nil || msg.JSONRPC != "2.0" {
			t.Errorf("stdout line is not JSON-RPC: %q", l)
		}
	}
}

func TestRunStdio(t *testing.T) {
	serverIn, clientOut := io.Pipe()
	clientIn, serverOutPipe := io.Pipe()
	serverOut := &jsonLines{w: serverOutPipe}
	var stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- connector.Run(context.Background(), testApp(newProbe()), []string{"--stdio"}, serverIn, serverOut, &stderr)
		serverOutPipe.Close()
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "stdio-client", Version: "1"}, nil).
		Connect(context.Background(), &mcp.IOTransport{Reader: clientIn, Writer: clientOut}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := call(t, cs, "find_orders", map[string]any{"customer": "C5", "limit": 2})
	if res.IsError || textOf(t, res) != `{"customer":"C5","limit":2,"orders":["C5-1","C5-2"]}` {
		t.Errorf("find_orders over stdio: %s", textOf(t, res))
	}
	res = call(t, cs, "boom", nil)
	if !res.IsError {
		t.Error("boom: no isError")
	}
	cs.Close()
	clientOut.Close()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit code %d; stderr:\n%s", code, stderr.String())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return when stdin closed")
	}
	serverOut.check(t)
	// Logs went to stderr, never stdout.
	if !strings.Contains(stderr.String(), "panic in tool") {
		t.Errorf("stderr lacks the panic log:\n%s", stderr.String())
	}
}

func TestRunHTTP(t *testing.T) {
	var stderr syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- connector.Run(ctx, testApp(newProbe()), []string{"--addr", "127.0.0.1:0"}, strings.NewReader(""), io.Discard, &stderr)
	}()
	urlRE := regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+/mcp`)
	var url string
	waitFor(t, "the URL on stderr", func() bool { url = urlRE.FindString(stderr.String()); return url != "" })
	cs := httpClient(t, url, "", nil)
	if res := call(t, cs, "find_orders", map[string]any{"customer": "C9"}); res.IsError {
		t.Error(textOf(t, res))
	}
	// A session holding a GET stream open must not block shutdown.
	cs2 := httpClient(t, url, "2025-11-25", nil)
	call(t, cs2, "log", nil)
	start := time.Now()
	cancel() // as SIGINT/SIGTERM does
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit code %d; stderr:\n%s", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after cancellation")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("shutdown took %s", d)
	}
	if _, err := http.Get(url); err == nil {
		t.Error("still serving after shutdown")
	}
}
