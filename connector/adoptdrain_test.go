package connector_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/connector"
	"github.com/mcpgen/mcpgen/connector/store"
	"github.com/mcpgen/mcpgen/internal/wire"
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

// goneClientCall serves a tool that answers once released, on a store
// shared as replicas share one (with opts), opens a session declaring
// caps, calls the tool, leaves while it runs, then releases it. It
// returns what note recorded once the call's request has ended ("request
// ended"), and fails the test when it does not end.
func goneClientCall(t *testing.T, caps string, note func(string), events func() []string, opts ...connector.Option) []string {
	t.Helper()
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
	s, err := connector.NewServer(app, append([]connector.Option{connector.WithLogger(quietLogger(nil))}, opts...)...)
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
	hdr := replicaSession(t, ts.URL, caps)
	drop := callInBackground(ts.URL, hdr, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"slow","arguments":{}}}`)
	<-started
	drop() // the client leaves while the call runs
	time.Sleep(100 * time.Millisecond)
	close(release)
	waitFor(t, "the call's request to end", func() bool {
		return strings.Contains(strings.Join(events(), ","), "request ended")
	})
	return events()
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
	got := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), events...)
	}
	st := sharedMemory{store.NewMemory(store.MemoryOptions{})}
	// A client that can be asked questions: its calls take the go-sdk's
	// path, which ends the request when the client leaves.
	goneClientCall(t, `{"elicitation":{}}`, note, got, connector.WithStore(st), connector.WithEventStore(slowAnswers{st.Events(), note}))
	waitFor(t, "the answer to be stored", func() bool { return len(got()) == 2 })
	if e := strings.Join(got(), ","); e != "answer stored,request ended" {
		t.Errorf("events %q: the call's request ended before its answer was stored", e)
	}
}

// TestFastPathRecordsThroughTheHook: with a shared store, the fast path's
// session answers that go out on an event stream at once (those larger
// than a plain JSON answer may be) still reach the store in one step
// (store.Events' RecordLater, one round trip shared with other answers on
// Redis) through the hook that tells waiting requests of stored answers
// (adoptdrain.go): a hook that hid it made each answer three round trips.
// A small answer is sent as plain JSON and not stored at all.
func TestFastPathRecordsThroughTheHook(t *testing.T) {
	var mu sync.Mutex
	var events []string
	note := func(e string) {
		mu.Lock()
		events = append(events, e)
		mu.Unlock()
	}
	mem := store.NewMemory(store.MemoryOptions{})
	st := recordingStore{sharedMemory{mem}, recordingEvents{mem.Events(), note}}
	url := serveReplica(t, testApp(newProbe()), st)
	h := replicaSession(t, url, `{}`)
	resp := post(t, url, `{"jsonrpc":"2.0","id":101,"method":"tools/call","params":{"name":"find_orders","arguments":{"customer":"`+bigCustomer+`"}}}`, h)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("a large answer: Content-Type %q, want an event stream", ct)
	}
	readSSE(t, resp.Body)
	small := post(t, url, `{"jsonrpc":"2.0","id":102,"method":"tools/call","params":{"name":"find_orders","arguments":{"customer":"C1"}}}`, h)
	if ct := small.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("a small answer: Content-Type %q, want application/json", ct)
	}
	readSSE(t, small.Body)
	waitFor(t, "the large answer to be recorded", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return slices.Contains(events, "recorded later 101")
	})
	mu.Lock()
	defer mu.Unlock()
	for _, e := range events {
		if strings.HasSuffix(e, " 100") || strings.HasSuffix(e, " 102") {
			t.Errorf("a small answer sent as plain JSON was stored: %q", events)
		}
	}
}

// recordingStore is a shared store whose events note each answer recorded
// with RecordLater.
type recordingStore struct {
	sharedMemory
	events recordingEvents
}

func (s recordingStore) Events() store.Events { return s.events }

type recordingEvents struct {
	store.Events
	note func(string)
}

func (e recordingEvents) RecordLater(ctx context.Context, sid, stream string, done func(error), data ...[]byte) {
	for _, d := range data {
		if id := wire.AnswerID(d); id != nil {
			e.note("recorded later " + string(id))
		}
	}
	e.Events.RecordLater(ctx, sid, stream, done, data...)
}

// TestCancelledCallsOfGoneClientsEnd: a call whose client left and then
// cancelled it gets no answer, so its request, held for the answer, is let
// go at the cancel rather than at maxAnswerWait (which would also hold a
// stopping replica's drain), on the fast path and through the go-sdk.
func TestCancelledCallsOfGoneClientsEnd(t *testing.T) {
	for _, tc := range []struct{ name, caps string }{
		{"fast path", `{}`},
		{"go-sdk", `{"elicitation":{}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newProbe()
			s, err := connector.NewServer(testApp(p), connector.WithLogger(quietLogger(nil)),
				connector.WithStore(sharedMemory{store.NewMemory(store.MemoryOptions{})}))
			if err != nil {
				t.Fatal(err)
			}
			h := s.Handler()
			ended := make(chan struct{})
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				r.Body = io.NopCloser(bytes.NewReader(body))
				h.ServeHTTP(w, r)
				if bytes.Contains(body, []byte(`"tools/call"`)) {
					close(ended)
				}
			}))
			// Not waited for: a request still held would hold Close.
			defer func() { go ts.Close() }()
			hdr := replicaSession(t, ts.URL, tc.caps)
			drop := callInBackground(ts.URL, hdr, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"wait","arguments":{}}}`)
			<-p.started
			drop()
			time.Sleep(100 * time.Millisecond)
			if resp := post(t, ts.URL, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`, hdr); resp.StatusCode != http.StatusAccepted {
				t.Fatalf("notifications/cancelled: %s", resp.Status)
			}
			select {
			case <-ended:
			case <-time.After(5 * time.Second):
				t.Fatal("the cancelled call's request was still held 5s after the cancel")
			}
		})
	}
}

// callInBackground POSTs body to url in the session hdr names, reading
// the answer in the background; drop makes the client leave.
func callInBackground(url string, hdr map[string]string, body string) (drop func()) {
	ctx, drop := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(body))
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
	return drop
}
