package connector_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/connector"
	"github.com/mcpgen/mcpgen/internal/wire"
)

// noteApp is a connector with one tool that has a side effect: each call
// commits a note, counted in notes.
func noteApp(notes *atomic.Int64) *connector.App {
	return &connector.App{
		Name: "notes", Version: "1",
		Tools: []connector.Tool{{
			Name: "add_note", Description: "Adds a note.", InputSchema: emptyInput, Result: connector.ResultText,
			Handler: noInput(func(ctx context.Context) (any, error) {
				n := notes.Add(1)
				time.Sleep(time.Millisecond) // a call takes a moment
				return fmt.Sprintf("note %d", n), nil
			}),
		}},
	}
}

// drainTally counts what keep-alive clients got during a drain.
type drainTally struct {
	answers, refused, failed atomic.Int64
	mu                       sync.Mutex
	bad                      []string
}

func (d *drainTally) badf(format string, args ...any) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.bad) < 10 {
		d.bad = append(d.bad, fmt.Sprintf(format, args...))
	}
}

// hammer calls add_note over one keep-alive connection until the server
// is gone, counting the answers, the refusals and the failures.
func (d *drainTally) hammer(url string, session bool, stop <-chan struct{}) {
	tr := &http.Transport{MaxIdleConnsPerHost: 1, MaxConnsPerHost: 1}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr, Timeout: 20 * time.Second}
	do := func(body string, h map[string]string) (*http.Response, []byte, error) {
		req, _ := http.NewRequest("POST", url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range h {
			req.Header.Set(k, v)
		}
		resp, err := hc.Do(req)
		if err != nil {
			return nil, nil, err
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, b, err
	}
	h := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "add_note"}
	meta := "," + meta2026
	if session {
		resp, _, err := do(initBody, nil)
		if err != nil || resp.Header.Get("Mcp-Session-Id") == "" {
			d.badf("initialize: %v", err)
			return
		}
		h = map[string]string{"Mcp-Session-Id": resp.Header.Get("Mcp-Session-Id"), "Mcp-Protocol-Version": "2025-11-25"}
		meta = ""
		do(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, h)
	}
	for id := 1; ; id++ {
		select {
		case <-stop:
			return
		default:
		}
		resp, b, err := do(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"add_note","arguments":{}%s}}`, id, meta), h)
		if err != nil {
			d.failed.Add(1)
			if strings.Contains(err.Error(), "connection refused") {
				return // the server is gone
			}
			continue
		}
		data := string(b)
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			data = sseData(data)
		}
		var r rpcReply
		switch {
		case resp.StatusCode == http.StatusOK && json.Unmarshal([]byte(data), &r) == nil && r.Result != nil && string(r.ID) == fmt.Sprint(id):
			d.answers.Add(1)
		case resp.StatusCode == http.StatusServiceUnavailable:
			d.refused.Add(1)
			if resp.Header.Get("Retry-After") == "" || !resp.Close || json.Unmarshal(b, &r) != nil || r.Error == nil || r.Error.Code != wire.CodeRetryLater {
				d.badf("a refusal without Retry-After, Connection: close and a JSON-RPC error: %v %s", resp.Header, b)
			}
		case resp.StatusCode == http.StatusNotFound:
			// A session the shutdown closed: nothing ran.
			d.refused.Add(1)
		default:
			d.failed.Add(1)
			d.badf("unexpected answer: %s %.200s", resp.Status, b)
		}
	}
}

// sseData returns the data of the last message event of an event stream.
func sseData(s string) string {
	last := ""
	for line := range strings.SplitSeq(s, "\n") {
		if d, ok := strings.CutPrefix(line, "data: "); ok && strings.TrimSpace(d) != "" {
			last = d
		}
	}
	return last
}

// TestDrainAnswersWhatRan is the attack on the drain: keep-alive clients
// (in sessions and without) call a tool with a side effect as fast as they
// can while the server gets SIGTERM. Every call that ran must have its
// answer reach its client; a call refused while draining (503, retryable)
// must not have run. Several rounds, since the race is at one moment.
func TestDrainAnswersWhatRan(t *testing.T) {
	t.Parallel()
	for round := range 40 {
		var notes atomic.Int64
		var stderr syncBuffer
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan int, 1)
		go func() {
			done <- connector.Run(ctx, noteApp(&notes), []string{"--addr", "127.0.0.1:0", "--drain", "10s"}, strings.NewReader(""), io.Discard, &stderr)
		}()
		url := waitURL(t, &stderr)
		var tally drainTally
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for i := range 16 {
			wg.Go(func() { tally.hammer(url, i%2 == 0, stop) })
		}
		waitFor(t, "calls to be answered", func() bool { return tally.answers.Load() >= 200 })
		cancel()
		var code int
		select {
		case code = <-done:
		case <-time.After(30 * time.Second):
			t.Fatal("the server did not stop")
		}
		close(stop)
		wg.Wait()
		if code != 0 {
			t.Errorf("round %d: exit code %d", round, code)
		}
		for _, b := range tally.bad {
			t.Errorf("round %d: %s", round, b)
		}
		ran := notes.Load()
		t.Logf("round %d: %d calls ran, %d answered, %d refused, %d failed", round, ran, tally.answers.Load(), tally.refused.Load(), tally.failed.Load())
		if ran != tally.answers.Load() {
			t.Errorf("round %d: %d calls ran but %d answers reached the clients", round, ran, tally.answers.Load())
		}
	}
}
