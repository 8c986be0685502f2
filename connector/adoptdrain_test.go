package connector_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/connector"
	"github.com/mcpgen/mcpgen/connector/store"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// slowAnswers is an event store whose append of the answer to request 9
// takes a while, as over a network, and which notes when it is stored.
type slowAnswers struct {
	mcp.EventStore
	note func(string)
}

func (s slowAnswers) Append(ctx context.Context, sid, stream string, data []byte) error {
	if !bytes.Contains(data, []byte(`"id":9,"result"`)) {
		return s.EventStore.Append(ctx, sid, stream, data)
	}
	time.Sleep(200 * time.Millisecond)
	err := s.EventStore.Append(ctx, sid, stream, data)
	s.note("answer stored")
	return err
}

// TestStoppingWaitsForAnswersOfGoneClients: a session call whose client
// has dropped its response stream keeps its HTTP request (which a stopping
// replica's drain waits for) until the call's answer is in the shared
// event store, where the client resuming on another replica finds it.
// Before, the request ended when the client left, so a replica stopping
// while the call ran could exit before the answer was stored.
func TestStoppingWaitsForAnswersOfGoneClients(t *testing.T) {
	var mu sync.Mutex
	var events []string
	note := func(e string) {
		mu.Lock()
		events = append(events, e)
		mu.Unlock()
	}
	st := sharedMemory{store.NewMemory(store.MemoryOptions{})}
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	app := &connector.App{Name: "slow", Tools: []connector.Tool{{
		Name: "slow", Description: "Answers once released.", InputSchema: emptyInput, Result: connector.ResultText,
		Handler: noInput(func(ctx context.Context) (any, error) {
			started <- struct{}{}
			<-release
			return "done", nil
		}),
	}}}
	s, err := connector.NewServer(app, connector.WithLogger(quietLogger(nil)), connector.WithStore(st),
		connector.WithEventStore(slowAnswers{st.Events(), note}))
	if err != nil {
		t.Fatal(err)
	}
	h := s.Handler()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(w, r)
		if bytes.Contains(body, []byte(`"tools/call"`)) {
			note("request ended")
		}
	}))
	defer ts.Close()
	// A client that can be asked questions: its calls take the go-sdk's
	// path, which ends the request when the client leaves.
	hdr := replicaSession(t, ts.URL, `{"elicitation":{}}`)

	ctx, drop := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL, strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"slow","arguments":{}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	go func() {
		if resp, err := http.DefaultClient.Do(req); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	<-started
	drop() // the client leaves while the call runs
	time.Sleep(100 * time.Millisecond)
	close(release)
	waitFor(t, "the answer to be stored and the call's request to end", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(events) == 2
	})
	mu.Lock()
	defer mu.Unlock()
	if got := strings.Join(events, ","); got != "answer stored,request ended" {
		t.Errorf("events %q: the call's request ended before its answer was stored", got)
	}
}
