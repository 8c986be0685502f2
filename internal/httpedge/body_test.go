package httpedge

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestReadBody: the body within the limit comes back and stays readable
// for the next handler, without a second read of the connection; past the
// limit the request is answered 413 naming it, and no more than the limit
// is read.
func TestReadBody(t *testing.T) {
	t.Run("within", func(t *testing.T) {
		r := httptest.NewRequest("POST", "/mcp", strings.NewReader(`{"a":1}`))
		w := httptest.NewRecorder()
		b, ok := ReadBody(w, r, 16)
		if !ok || string(b) != `{"a":1}` {
			t.Fatalf("ReadBody = %q, %v", b, ok)
		}
		again, ok := BodyBytes(r.Body)
		if !ok || &again[0] != &b[0] {
			t.Error("the next handler does not get the same bytes")
		}
		if b2, ok := ReadBody(w, r, 16); !ok || &b2[0] != &b[0] {
			t.Error("a second ReadBody read the body again")
		}
		if rest, _ := io.ReadAll(r.Body); string(rest) != `{"a":1}` {
			t.Errorf("the body read by a plain reader: %q", rest)
		}
	})
	t.Run("beyond", func(t *testing.T) {
		src := &countingReader{}
		r := httptest.NewRequest("POST", "/mcp", io.LimitReader(src, 1<<20))
		w := httptest.NewRecorder()
		if _, ok := ReadBody(w, r, 100); ok {
			t.Fatal("a body over the limit was accepted")
		}
		if w.Code != http.StatusRequestEntityTooLarge || !strings.Contains(w.Body.String(), "exceeds 100 bytes") {
			t.Errorf("answer %d %q", w.Code, w.Body.String())
		}
		if src.n > 64<<10 {
			t.Errorf("%d bytes read for a limit of 100", src.n)
		}
	})
	t.Run("held body over a smaller limit", func(t *testing.T) {
		r := httptest.NewRequest("POST", "/mcp", nil)
		r.Body = NewBody([]byte(strings.Repeat("x", 200)))
		w := httptest.NewRecorder()
		if _, ok := ReadBody(w, r, 100); ok || w.Code != http.StatusRequestEntityTooLarge {
			t.Errorf("ok %v, status %d", ok, w.Code)
		}
	})
	t.Run("none", func(t *testing.T) {
		r := httptest.NewRequest("GET", "/mcp", nil)
		if b, ok := ReadBody(httptest.NewRecorder(), r, 100); !ok || len(b) != 0 {
			t.Errorf("ReadBody = %q, %v", b, ok)
		}
	})
}

type countingReader struct{ n int }

func (c *countingReader) Read(p []byte) (int, error) {
	c.n += len(p)
	return len(p), nil
}

// FuzzReadBody: whatever the body and the limit, a body within the limit
// is what every later handler reads, byte for byte, and read once (what
// the adopt layer checks is what the endpoint dispatches); a body over it
// is refused 413 without being handed on.
func FuzzReadBody(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`), int64(64))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`), int64(8))
	f.Add([]byte{}, int64(0))
	f.Fuzz(func(t *testing.T, body []byte, limit int64) {
		if limit < 0 || limit > 1<<20 {
			return
		}
		r := httptest.NewRequest("POST", "/mcp", strings.NewReader(string(body)))
		w := httptest.NewRecorder()
		got, ok := ReadBody(w, r, limit)
		if int64(len(body)) > limit {
			if ok || w.Code != http.StatusRequestEntityTooLarge {
				t.Fatalf("%d bytes over a limit of %d: ok %v, status %d", len(body), limit, ok, w.Code)
			}
			return
		}
		if !ok || string(got) != string(body) {
			t.Fatalf("ReadBody = %q, %v; want the body %q", got, ok, body)
		}
		again, ok := ReadBody(httptest.NewRecorder(), r, limit)
		if !ok || string(again) != string(body) {
			t.Fatalf("a later handler read %q, %v", again, ok)
		}
		if rest, _ := io.ReadAll(r.Body); string(rest) != string(body) {
			t.Fatalf("a plain reader after them read %q", rest)
		}
	})
}
