package telemetry

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// TestPostPartsRetried posts a request body made of parts, without
// joining them, to a receiver that answers 503 once: both attempts carry
// the whole body, and the parts are reported free for reuse once
// net/http has closed every body it was given.
func TestPostPartsRetried(t *testing.T) {
	var (
		mu     sync.Mutex
		bodies [][]byte
	)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, b)
		first := len(bodies) == 1
		mu.Unlock()
		if r.ContentLength != int64(len(b)) {
			t.Errorf("Content-Length %d for %d bytes", r.ContentLength, len(b))
		}
		if first {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer recv.Close()
	c := tracesClient(t, recv.URL)
	head, spans, tail := []byte("head-"), bytes.Repeat([]byte("span."), 20000), []byte("-tail")
	want := append(append(append([]byte(nil), head...), spans...), tail...)
	done, err := c.postParts(context.Background(), head, spans, []byte{}, tail)
	if err != nil {
		t.Fatal(err)
	}
	if !done {
		t.Error("the parts are not reported free once the request is answered")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(bodies) != 2 {
		t.Fatalf("%d requests, want 2 (a 503, then its retry)", len(bodies))
	}
	for i, b := range bodies {
		if !bytes.Equal(b, want) {
			t.Errorf("request %d: %d bytes, want the %d of the parts in order", i+1, len(b), len(want))
		}
	}
	if !bytes.Equal(spans, bytes.Repeat([]byte("span."), 20000)) {
		t.Error("the parts were changed by sending them")
	}
}

// tracesClient is the traces exporter's client of a connector whose
// OTEL_EXPORTER_OTLP_ENDPOINT is url.
func tracesClient(t testing.TB, url string) *otlpClient {
	t.Helper()
	c, err := newOTLPClient(func(k string) string {
		if k == "OTEL_EXPORTER_OTLP_ENDPOINT" {
			return url
		}
		return ""
	}, "traces")
	if err != nil {
		t.Fatal(err)
	}
	return c
}
