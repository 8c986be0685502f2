package connector

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/connector/store"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// plainEvents is an event store with the go-sdk's methods only.
type plainEvents struct{ mcp.EventStore }

// TestAnswerHookTellsWaits: every way an answer reaches the event store
// (Append, Record, RecordLater, on a store.Events or a plain
// mcp.EventStore) releases the request waiting for it, and a closed
// session releases the rest.
func TestAnswerHookTellsWaits(t *testing.T) {
	ctx := context.Background()
	call := func(id string) []byte {
		return []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{}}`)
	}
	answer := func(id string) []byte { return []byte(`{"jsonrpc":"2.0","id":` + id + `,"result":{}}`) }
	released := func(a *awaitedAnswer) bool {
		select {
		case <-a.done:
			return true
		default:
			return false
		}
	}
	for name, inner := range map[string]mcp.EventStore{
		"store.Events":   store.NewMemory(store.MemoryOptions{}).Events(),
		"mcp.EventStore": plainEvents{store.NewMemory(store.MemoryOptions{}).Events()},
	} {
		t.Run(name, func(t *testing.T) {
			var w answerWaits
			h := answerHook{inner, &w}
			a1, a2, a3, a4 := w.expect("s", call("1")), w.expect("s", call(`"two"`)), w.expect("s", call("3")), w.expect("s", call("4"))
			// A notification whose client has gone is not held: no
			// answer will come.
			note := w.expect("s", []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
			gone, cancel := context.WithCancel(ctx)
			cancel()
			held := make(chan struct{})
			go func() {
				w.wait(httptest.NewRequest("POST", "/mcp", nil).WithContext(gone), "s", note)
				close(held)
			}()
			select {
			case <-held:
			case <-time.After(10 * time.Second):
				t.Fatal("a notification whose client has gone is held for an answer")
			}
			if err := h.Open(ctx, "s", "a"); err != nil {
				t.Fatal(err)
			}
			h.Append(ctx, "s", "a", []byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`))
			if released(a1) {
				t.Error("a progress notification released a call")
			}
			h.Append(ctx, "s", "a", answer("1"))
			if !released(a1) || released(a2) {
				t.Errorf("Append of answer 1: released %v %v", released(a1), released(a2))
			}
			if err := h.Record(ctx, "s", "b", nil, answer(`"two"`)); err != nil {
				t.Fatal(err)
			}
			if !released(a2) {
				t.Error("Record of answer two did not release it")
			}
			done := make(chan error, 1)
			h.RecordLater(ctx, "s", "c", func(err error) { done <- err }, nil, answer("3"))
			if err := <-done; err != nil || !released(a3) {
				t.Errorf("RecordLater of answer 3: %v, released %v", err, released(a3))
			}
			if released(a4) {
				t.Fatal("call 4 released before its session closed")
			}
			h.SessionClosed(ctx, "s")
			if !released(a4) {
				t.Error("closing the session did not release call 4")
			}
		})
	}
}
