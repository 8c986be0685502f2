package connector_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/connector"
	"github.com/mcpgen/mcpgen/internal/authgate"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkCallToolAuth measures one tools/call over Streamable HTTP on
// loopback without auth and with a verified JWT access token (ES256, the
// issuer's key set already cached), in one run. CPU time per call counts
// client and server together.
//
//	go test -run '^$' -bench CallToolAuth -benchmem ./runtime/
func BenchmarkCallToolAuth(b *testing.B) {
	app := func() *connector.App {
		a := testApp(newProbe())
		a.Tools = a.Tools[:1]
		a.Tools[0].UI = ""
		a.Views = nil
		return a
	}
	args := map[string]any{"customer": "C42"}
	run := func(b *testing.B, url string, rt http.RoundTripper) {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(),
			&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: rt}}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		ctx := context.Background()
		if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "find_orders", Arguments: args}); err != nil || res.IsError {
			b.Fatalf("first call: %v %v", err, res)
		}
		b.ReportAllocs()
		b.ResetTimer()
		cpu0 := cpuTime()
		for b.Loop() {
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "find_orders", Arguments: args}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
	}
	b.Run("none", func(b *testing.B) {
		s, err := connector.NewServer(app(), connector.WithLogger(quietLogger(nil)))
		if err != nil {
			b.Fatal(err)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		ts := &httptest.Server{Listener: ln, Config: &http.Server{Handler: s.Handler()}}
		ts.Start()
		defer ts.Close()
		// The same client transport as with auth (it sets an Authorization
		// header the server ignores), so only the server side differs.
		run(b, ts.URL, &bearer{token: "unused"})
	})
	b.Run("jwt", func(b *testing.B) {
		is := newAuthIssuer(b)
		base, _ := serveAuth(b, app(), authgate.Auth{Issuer: is.URL})
		tok := is.token(b, "bench-user", base+"/mcp", "", time.Now().Add(time.Hour))
		run(b, base+"/mcp", &bearer{token: tok})
	})
}

// BenchmarkAuthGate measures what the auth gate adds to one request, alone:
// the bearer token read, its verification (remembered after the first
// call, as a client reuses its token), the identity handed to the SDK's
// session layer. The handler behind it does nothing.
//
//	go test -run '^$' -bench AuthGate -benchmem ./runtime/
func BenchmarkAuthGate(b *testing.B) {
	is := newAuthIssuer(b)
	g, err := authgate.New(authgate.Config{
		Auth: authgate.Auth{Issuer: is.URL}, PublicURL: "http://127.0.0.1:9", Logger: quietLogger(nil),
	})
	if err != nil {
		b.Fatal(err)
	}
	tok := is.token(b, "bench-user", g.Resource(), "", time.Now().Add(time.Hour))
	h := g.Wrap(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:9/mcp", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != http.StatusOK {
		b.Fatalf("status %d: %s", w.Code, w.Body)
	}
	b.ReportAllocs()
	for b.Loop() {
		h.ServeHTTP(w, req)
	}
}
