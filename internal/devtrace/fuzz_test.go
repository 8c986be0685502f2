package devtrace

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// FuzzReceive: whatever an export carries, the receiver answers it (200,
// 400 or 415) without panicking, and keeps no more than its bounds.
func FuzzReceive(f *testing.F) {
	f.Add(export(0xab, &tracepb.Span{SpanId: []byte{1}, Name: "s"}))
	f.Add([]byte{0x0a, 0xff})
	f.Fuzz(func(t *testing.T, body []byte) {
		c := New()
		req := httptest.NewRequest("POST", ReceivePath, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/x-protobuf")
		req.Header.Set(TokenHeader, c.Token())
		w := httptest.NewRecorder()
		c.ReceiveHandler().ServeHTTP(w, req)
		if w.Code != http.StatusOK && w.Code != http.StatusBadRequest {
			t.Fatalf("status %d", w.Code)
		}
		if len(c.traces) > maxTraces {
			t.Fatalf("%d traces kept", len(c.traces))
		}
		for _, spans := range c.traces {
			if len(spans) > maxSpansPerTrace {
				t.Fatalf("%d spans kept in one trace", len(spans))
			}
		}
	})
}
