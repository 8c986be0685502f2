package connector_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	goruntime "runtime"
	"runtime/metrics"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcpgen/mcpgen/connector"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkCallTool measures tools/call through the mcpgen runtime against
// the same tool registered with the go-sdk's reflective mcp.AddTool, with
// the same schemas, the same in-memory client and the same arguments.
//
//	go test -run '^$' -bench CallTool -benchmem ./runtime/
func BenchmarkCallTool(b *testing.B) {
	args := map[string]any{"customer": "C42"} // limit takes its default
	want := `{"customer":"C42","limit":10,"orders":["C42-1","C42-2","C42-3"]}`
	bench := func(b *testing.B, cs *mcp.ClientSession) {
		ctx := context.Background()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "find_orders", Arguments: args})
		if err != nil || res.IsError || textOf(b, res) != want {
			b.Fatalf("unexpected result: %v %v", err, res)
		}
		b.ReportAllocs()
		b.ResetTimer()
		cpu0 := cpuTime()
		for b.Loop() {
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "find_orders", Arguments: args}); err != nil {
				b.Fatal(err)
			}
		}
		// The machine is shared: CPU time (client and server together) per
		// call is steadier than wall time.
		b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
	}
	b.Run("mcpgen", func(b *testing.B) {
		app := testApp(newProbe())
		app.Tools = app.Tools[:1]
		app.Tools[0].UI = ""
		app.Views = nil
		_, cs := connect(b, app, nil)
		bench(b, cs)
	})
	// The same call through a per-caller rate limit that never trips: the
	// cost of taking from the limiter's bucket.
	b.Run("mcpgen-ratelimit", func(b *testing.B) {
		app := testApp(newProbe())
		app.Tools = app.Tools[:1]
		app.Tools[0].UI = ""
		app.Views = nil
		_, cs := connect(b, app, nil, connector.WithRateLimit(connector.Rate{N: 1 << 30, Per: time.Second}))
		bench(b, cs)
	})
	b.Run("sdk-AddTool", func(b *testing.B) {
		s := mcp.NewServer(&mcp.Implementation{Name: "acme", Version: "1.2.3"}, nil)
		mcp.AddTool(s, &mcp.Tool{
			Name:         "find_orders",
			Description:  "FindOrders lists the orders of one customer, newest first.",
			InputSchema:  json.RawMessage(findOrdersInput),
			OutputSchema: json.RawMessage(findOrdersOutput),
		}, func(ctx context.Context, req *mcp.CallToolRequest, in FindOrdersInput) (*mcp.CallToolResult, FindOrdersOutput, error) {
			out, err := FindOrders(ctx, in)
			return nil, out, err
		})
		bench(b, connectSDK(b, s))
	})
}

// cpuTime is the CPU time (user + system) this process has used.
// gcTime is the CPU time the garbage collector has used (runtime/metrics'
// estimate: marking, assists, pauses), for a benchmark's gc-ns/op.
func gcTime() time.Duration {
	s := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}}
	metrics.Read(s)
	return time.Duration(s[0].Value.Float64() * 1e9)
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func connectSDK(b *testing.B, s *mcp.Server) *mcp.ClientSession {
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		b.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close(); ss.Wait() })
	return cs
}

// BenchmarkNewServer measures start-up: registering the test App's 14
// tools, 4 resources, 2 prompts, 2 completions and a view. Input schemas
// are resolved on a tool's first call, not here.
func BenchmarkNewServer(b *testing.B) {
	app := testApp(newProbe())
	b.ReportAllocs()
	for b.Loop() {
		if _, err := connector.NewServer(app, connector.WithLogger(quietLogger(nil))); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkResolveSchema measures what resolving one input schema costs
// (once per tool, on its first call).
func BenchmarkResolveSchema(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		var s jsonschema.Schema
		if err := json.Unmarshal([]byte(findOrdersInput), &s); err != nil {
			b.Fatal(err)
		}
		if _, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCallToolSessionless measures a tools/call without a session on
// the runtime's fast path (what bench/load's sessionless modes send), in
// process: the connector's handler called directly, no network. The
// arguments take one default (as in bench/load) or give every field.
// The "session" variant makes the same call in a session at 2025-11-25
// (bench/load's sessions mode), with the server's default options.
//
//	go test -run '^$' -bench CallToolSessionless -benchmem ./connector/
func BenchmarkCallToolSessionless(b *testing.B) {
	app := testApp(newProbe())
	app.Tools = app.Tools[:1]
	app.Tools[0].UI = ""
	app.Tools[0].NeverAsks = true
	app.Views = nil
	newHandler := func(opts ...connector.Option) http.Handler {
		s, err := connector.NewServer(app, append([]connector.Option{connector.WithLogger(quietLogger(nil))}, opts...)...)
		if err != nil {
			b.Fatal(err)
		}
		return s.Handler()
	}
	post := func(h http.Handler, body, sid string) *httptest.ResponseRecorder {
		req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(body))
		req.RemoteAddr = "127.0.0.1:1234"
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	stateless := newHandler(connector.WithStateless(true))
	sessions := newHandler()
	rec := post(sessions, initBody, "")
	sid := rec.Header().Get("Mcp-Session-Id")
	if sid == "" {
		b.Fatalf("initialize: no session: %d %s", rec.Code, rec.Body)
	}
	if rec := post(sessions, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, sid); rec.Code != http.StatusAccepted {
		b.Fatalf("notifications/initialized: %d %s", rec.Code, rec.Body)
	}
	for _, tc := range []struct {
		name, args, want string
		h                http.Handler
		sid              string
	}{
		{"default", `{"customer":"C42"}`, `"limit":10`, stateless, ""},
		{"all", `{"customer":"C42","limit":3}`, `"limit":3`, stateless, ""},
		{"session", `{"customer":"C42"}`, `"limit":10`, sessions, sid},
	} {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"find_orders","arguments":` + tc.args + `}}`
		b.Run(tc.name, func(b *testing.B) {
			if rec := post(tc.h, body, tc.sid); rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "application/json" || !strings.Contains(rec.Body.String(), tc.want) {
				b.Fatalf("unexpected answer: %d %s %s", rec.Code, rec.Header().Get("Content-Type"), rec.Body)
			}
			b.ReportAllocs()
			cpu0 := cpuTime()
			for b.Loop() {
				post(tc.h, body, tc.sid)
			}
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkIdleSession opens b.N sessions over HTTP (initialize and
// notifications/initialized, as a 2025-11-25 client does) and leaves them
// idle, then reports what each one keeps: live heap, goroutine stack and
// goroutines, after a collection.
//
//	go test -run '^$' -bench IdleSession -benchtime 2000x ./connector/
func BenchmarkIdleSession(b *testing.B) {
	s, err := connector.NewServer(testApp(newProbe()), connector.WithLogger(quietLogger(nil)), connector.WithMaxSessions(-1, -1))
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	post := func(body, sid string) (*http.Response, error) {
		req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		}
		resp, err := hc.Do(req)
		if err != nil {
			return nil, err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp, nil
	}
	open := func() {
		resp, err := post(initBody, "")
		if err != nil || resp.Header.Get("Mcp-Session-Id") == "" {
			b.Fatalf("initialize: %v", err)
		}
		if _, err := post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, resp.Header.Get("Mcp-Session-Id")); err != nil {
			b.Fatal(err)
		}
	}
	open() // the first session's one-off costs
	settle := func() (heap, stack uint64, g int) {
		var m goruntime.MemStats
		for range 3 {
			goruntime.GC()
		}
		goruntime.ReadMemStats(&m)
		return m.HeapAlloc, m.StackInuse, goruntime.NumGoroutine()
	}
	time.Sleep(50 * time.Millisecond)
	h0, s0, g0 := settle()
	b.ResetTimer()
	for range b.N {
		open()
	}
	b.StopTimer()
	time.Sleep(50 * time.Millisecond)
	h1, s1, g1 := settle()
	n := float64(b.N)
	b.ReportMetric(float64(h1-h0)/n, "heap-B/session")
	b.ReportMetric(float64(s1-s0)/n, "stack-B/session")
	b.ReportMetric(float64(g1-g0)/n, "goroutines/session")
}
