package stdioframe

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/wire"
)

// syncBuffer is a bytes.Buffer safe for the framing's concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
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

// serve frames input for a stand-in SDK that answers each request it
// reads with an empty result (a batch with an empty one), and returns the lines the SDK read and what
// the client got.
func serve(t *testing.T, input string, cfg Config) (read []string, client string) {
	t.Helper()
	var w syncBuffer
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.MaxLine == 0 {
		cfg.MaxLine = 1 << 20
	}
	if cfg.Drain == 0 {
		cfg.Drain = time.Minute
	}
	in, out := Frame(context.Background(), strings.NewReader(input), &w, cfg)
	sc := bufio.NewScanner(in)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		read = append(read, sc.Text())
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		switch {
		case strings.HasPrefix(sc.Text(), "["):
			out.Write([]byte("[]\n")) // a batch's answer, enough for the count
		case json.Unmarshal(sc.Bytes(), &m) == nil && m.ID != nil && m.Method != "":
			out.Write([]byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{}}` + "\n"))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return read, w.String()
}

// Lines the SDK cannot take are answered here, each with the JSON-RPC
// error the client can act on, and the lines after them still go through;
// an id the SDK would round comes back to the client as sent.
func TestFrameAnswersBadLines(t *testing.T) {
	input := strings.Join([]string{
		`not json`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`,
		`[{"jsonrpc":"2.0","id":2,"method":"ping"}]`,
		`[]`,
		`{"jsonrpc":"2.0","id":3}`,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		`{"jsonrpc":"1.0","id":"x","method":"ping"}`,
		`{"jsonrpc":"2.0","id":4,"method":"ping","params":{"pad":"` + strings.Repeat("x", 100) + `"}}`,
		``,
		`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	}, "\n") + "\n"
	read, client := serve(t, input, Config{MaxLine: 100})
	if len(read) != 3 || !strings.Contains(read[0], `"initialize"`) || strings.Contains(read[1], "9007199254740993,") || !strings.Contains(read[2], "notifications/initialized") {
		t.Errorf("the SDK read %d lines:\n%s", len(read), strings.Join(read, "\n"))
	}
	want := []string{
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: line 1 is not one JSON value"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: line 3 is a JSON-RPC batch, which protocol versions from 2025-06-18 do not allow"}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: line 4 is an empty or malformed batch"}}`,
		`{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"Invalid Request: line 5: a message with an id needs a method (a request), or a result or an error (a response)"}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: line 6: a request's id must be a string or a number, not null (a notification has no id at all)"}}`,
		`{"jsonrpc":"2.0","id":"x","error":{"code":-32600,"message":"Invalid Request: line 7 is not a JSON-RPC 2.0 message: `,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: line 8 is longer than the 100-byte limit (--stdio-max-line); it was skipped"}}`,
		`{"jsonrpc":"2.0","id":9007199254740993,"result":{}}`,
	}
	// The filter answers a bad line as it reads it, while the SDK answers
	// the good ones on its own goroutine: the two kinds interleave in any
	// order, so each answer is looked for wherever it is.
	got := strings.Split(strings.TrimSuffix(client, "\n"), "\n")
	if len(got) != len(want) {
		t.Fatalf("the client got %d lines, want %d:\n%s", len(got), len(want), client)
	}
	for _, w := range want {
		i := slices.IndexFunc(got, func(g string) bool { return strings.HasPrefix(g, w) })
		if i < 0 {
			t.Errorf("the client did not get\n%s\nin:\n%s", w, client)
			continue
		}
		got = slices.Delete(got, i, i+1)
	}
}

// Before an initialize that names 2025-06-18 or later, a batch goes
// through as one line.
func TestFrameBatchBeforeNewVersions(t *testing.T) {
	input := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}` + "\n" +
		`[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"}]` + "\n"
	read, _ := serve(t, input, Config{})
	if len(read) != 2 || !strings.HasPrefix(read[1], "[") {
		t.Errorf("the SDK read:\n%s", strings.Join(read, "\n"))
	}
}

// Lines longer than the reading buffer go through whole up to the limit;
// one beyond it is skipped, and the next line is read as usual.
func TestFrameLongLines(t *testing.T) {
	pad := func(n int) string {
		return `{"jsonrpc":"2.0","method":"notifications/x","params":{"pad":"` + strings.Repeat("x", n) + `"}}`
	}
	input := pad(80<<10) + "\n" + pad(200<<10) + "\n" + `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"
	read, client := serve(t, input, Config{MaxLine: 100 << 10})
	if len(read) != 2 || len(read[0]) != len(pad(80<<10)) || !strings.Contains(read[1], `"ping"`) {
		t.Errorf("the SDK read %d lines", len(read))
	}
	want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: line 2 is longer than the 102400-byte limit (--stdio-max-line); it was skipped"}}` + "\n" +
		`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"
	if client != want {
		t.Errorf("the client got:\n%s\nwant:\n%s", client, want)
	}
}

// At the end of the input, OnEOF runs and the SDK's reader ends only once
// every request passed on is answered, or when the drain time is up.
func TestFrameDrain(t *testing.T) {
	var w syncBuffer
	eof := make(chan struct{})
	in, out := Frame(context.Background(), strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), &w,
		Config{MaxLine: 1 << 20, Drain: time.Minute, Logger: slog.New(slog.DiscardHandler), OnEOF: func() { close(eof) }})
	br := bufio.NewReader(in)
	if line, err := br.ReadString('\n'); err != nil || !strings.Contains(line, `"ping"`) {
		t.Fatalf("read %q, %v", line, err)
	}
	<-eof
	ended := make(chan error, 1)
	go func() {
		_, err := br.ReadByte()
		ended <- err
	}()
	select {
	case err := <-ended:
		t.Fatalf("the reader ended (%v) before the answer", err)
	case <-time.After(100 * time.Millisecond):
	}
	out.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"))
	select {
	case err := <-ended:
		if err != io.EOF {
			t.Errorf("ended with %v, want EOF", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the reader did not end after the answer")
	}

	var logs syncBuffer
	in, _ = Frame(context.Background(), strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n"), io.Discard,
		Config{MaxLine: 1 << 20, Drain: 50 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	start := time.Now()
	if _, err := io.ReadAll(in); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 50*time.Millisecond || d > 10*time.Second {
		t.Errorf("an unanswered request held the reader %v, want the 50ms drain", d)
	}
	if !strings.Contains(logs.String(), "requests still running after the drain time are dropped") {
		t.Errorf("no warning:\n%s", logs.String())
	}
}

// An answer to a request the client cancelled is not written; it still
// counts as answered.
func TestFrameDropsCancelledAnswers(t *testing.T) {
	var w syncBuffer
	in, out := Frame(context.Background(), strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`+"\n"), &w,
		Config{MaxLine: 1 << 20, Drain: time.Minute, Logger: slog.New(slog.DiscardHandler)})
	br := bufio.NewReader(in)
	if _, err := br.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	res, err := json.Marshal(wire.CancelledResult("tools/call"))
	if err != nil {
		t.Fatal(err)
	}
	out.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":` + string(res) + "}\n"))
	done := make(chan struct{})
	go func() {
		io.ReadAll(br)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the dropped answer did not count as one")
	}
	if w.String() != "" {
		t.Errorf("written: %s", w.String())
	}
}

// FuzzStdioLine checks that the stdio filter answers or passes on any line
// without panicking, and that what it passes on is one JSON value the SDK
// accepts.
func FuzzStdioLine(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, `{`, `[]`, `42`, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":12345678901234567890}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		lf := &lineFilter{out: &lineWriter{w: io.Discard}, max: 1 << 10, logger: slog.New(slog.DiscardHandler)}
		wire.IsAnswer(line) // never panics
		out, ok := lf.check(line, len(line) > lf.max)
		if ok && !json.Valid(bytes.TrimSpace(out)) {
			t.Fatalf("passed on invalid JSON %q", out)
		}
	})
}
