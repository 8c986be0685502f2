package connector_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/connector"
	"github.com/mcpgen/mcpgen/connector/store"
)

// countingBody is a request body of spaces that counts what was read.
type countingBody struct{ n int64 }

func (c *countingBody) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	c.n += int64(len(p))
	return len(p), nil
}

func (*countingBody) Close() error { return nil }

// TestSharedStoreBodyBound: with a shared store, the middleware that
// records and adopts sessions reads a POST's body for what it is before
// the endpoint does; it reads no more than --max-body, and answers 413,
// whether the request names a session or not. (It once read the whole
// body into memory, however large.)
func TestSharedStoreBodyBound(t *testing.T) {
	const limit = 4 << 10
	st := sharedMemory{store.NewMemory(store.MemoryOptions{})}
	s, err := connector.NewServer(testApp(newProbe()), connector.WithStore(st), connector.WithMaxBodyBytes(limit))
	if err != nil {
		t.Fatal(err)
	}
	h := s.Handler()
	for _, sid := range []string{"", "some-session"} {
		body := &countingBody{}
		// A body that starts as a request would and goes on for 64 MB.
		r := httptest.NewRequest(http.MethodPost, "/mcp", io.NopCloser(io.MultiReader(strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"x":"`), io.LimitReader(body, 64<<20))))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		r.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		if sid != "" {
			r.Header.Set("Mcp-Session-Id", sid)
		}
		done := make(chan *httptest.ResponseRecorder, 1)
		go func() {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			done <- w
		}()
		w := <-done
		if w.Code != http.StatusRequestEntityTooLarge {
			t.Errorf("session %q: status %d, want 413; body %q", sid, w.Code, w.Body.String())
		}
		if body.n > 4*limit {
			t.Errorf("session %q: %d bytes read from the body, want at most about %d", sid, body.n, limit)
		}
	}
}
