package connector_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/connector"
)

// TestStdioAnswersBeforeEOF: a client that writes its requests and closes
// its end of stdin (`printf '...' | BIN --stdio`) gets an answer to every
// one of them, including a call still running at the end of the input and
// a call that asks the client a question, which fails at once since the
// client can no longer answer; then the binary exits 0.
func TestStdioAnswersBeforeEOF(t *testing.T) {
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"sampling":{}},"clientInfo":{"name":"pipe","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"stubborn","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"sample","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":"five","method":"ping"}`,
		`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`,
		`not json`,
	}, "\n") + "\n"
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- connector.Run(context.Background(), testApp(newProbe()), []string{"--stdio"}, strings.NewReader(in), &stdout, &stderr)
	}()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d; stderr:\n%s", code, stderr.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("--stdio did not exit after the end of its input; stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	}
	answers := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader([]byte(stdout.String())))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("stdout line is not JSON: %q", sc.Text())
		}
		if m.Method == "" {
			answers[string(m.ID)] = string(m.Result) + string(m.Error)
		}
	}
	for _, id := range []string{`1`, `2`, `3`, `4`, `"five"`, `9007199254740993`, `null`} {
		if _, ok := answers[id]; !ok {
			t.Errorf("no answer to request %s; stdout:\n%s", id, stdout.String())
		}
	}
	if a := answers[`4`]; !strings.Contains(a, "closed its input") {
		t.Errorf("sample after the end of input: %s", a)
	}
}
