package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkCall is the floor's tools/call without a session in process:
// the handler called directly, no network, as the runtime's
// BenchmarkCallToolSessionless calls the connector's.
//
//	go test -run '^$' -bench Call -benchmem ./floorserver/
func BenchmarkCall(b *testing.B) {
	s := &server{}
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"find_orders","arguments":{"customer":"C42","status":"shipped"}}}`
	post := func() *httptest.ResponseRecorder {
		req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(body))
		req.RemoteAddr = "127.0.0.1:1234"
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		return rec
	}
	if rec := post(); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"limit":10`) {
		b.Fatalf("unexpected answer: %d %s", rec.Code, rec.Body)
	}
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		post()
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
