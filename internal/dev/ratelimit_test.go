package dev_test

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpgen/mcpgen/internal/dev"
)

// TestRateLimitPerClientAddr: without auth, the connector's per-caller
// limits key callers by the address of the client mcpgen dev serves, not
// by the front's own address, so one client over its limit does not limit
// another. (127.0.0.1 and 127.0.0.2 are both loopback on Linux.)
func TestRateLimitPerClientAddr(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a connector")
	}
	dir := scaffold(t)
	ds := startDev(t, dir, func(o *dev.Options) { o.RateLimit = "2/1h" })
	from := func(ip string) *mcp.ClientSession {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
		tr := &http.Transport{DialContext: d.DialContext}
		t.Cleanup(tr.CloseIdleConnections)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "client-" + ip, Version: "1"}, nil).Connect(context.Background(),
			&mcp.StreamableClientTransport{Endpoint: ds.url, HTTPClient: &http.Client{Transport: tr}},
			&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatalf("connect from %s: %v", ip, err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	call := func(cs *mcp.ClientSession) (bool, string) {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "hello", Arguments: map[string]any{"name": "ann"}})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return res.IsError, b.String()
	}
	one, two := from("127.0.0.1"), from("127.0.0.2")
	for i := range 2 {
		if isErr, text := call(one); isErr {
			t.Fatalf("call %d from 127.0.0.1: %s", i+1, text)
		}
	}
	if isErr, text := call(one); !isErr || !strings.Contains(text, "Retry in") {
		t.Errorf("third call from 127.0.0.1 = %v %q; want an isError result with a retry time", isErr, text)
	}
	if isErr, text := call(two); isErr {
		t.Errorf("127.0.0.2 was limited by 127.0.0.1's calls: %s", text)
	}
}
