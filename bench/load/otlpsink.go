package main

import (
	"io"
	"net"
	"net/http"
	"sync"
)

var (
	sinkOnce sync.Once
	sinkURL  string
	sinkErr  error
)

// otlpSink starts, once, an OTLP/HTTP endpoint in the load generator that
// accepts every export and drops it, and returns its base URL: the
// mcpgen-otel server exports its spans and metrics there, so what
// telemetry costs the server (recording, batching, encoding, sending) is
// in its CPU per call, and the receiving is not.
func otlpSink() (string, error) {
	sinkOnce.Do(func() {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			sinkErr = err
			return
		}
		sinkURL = "http://" + ln.Addr().String()
		go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/x-protobuf")
			w.WriteHeader(http.StatusOK) // an empty body is an empty Export*ServiceResponse
		}))
	})
	return sinkURL, sinkErr
}
