package conformance

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testenv"
)

// TestBothErasTypeScript has the official TypeScript SDK client (v2) use
// the default binary in both eras at once: one client pinned to
// 2026-07-28 (server/discover, multi-round-trip elicitation,
// subscriptions/listen) and one speaking the 2025-11-25 handshake.
func TestBothErasTypeScript(t *testing.T) {
	node := testenv.Node(t)
	modules := testenv.NodeModules(t, "@modelcontextprotocol/client")
	if testing.Short() {
		t.Skip("builds and serves examples/everything; skipped in -short mode")
	}
	url := serve(t, everythingBinary(t))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	script, _ := filepath.Abs(filepath.Join("testdata", "botheras.mjs"))
	out, err := exec.CommandContext(ctx, node, script, modules, url).CombinedOutput()
	if err != nil {
		t.Fatalf("the TypeScript clients failed: %v\n%s", err, out)
	}
	var got map[string]struct {
		Version, Server, Simple, Resource, Prompt, Elicitation string
		Tools, Elicited                                        int
		Updated                                                *string
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
		t.Fatalf("reading the clients' report: %v\n%s", err, out)
	}
	t.Logf("clients report: %s", lines[len(lines)-1])
	for era, want := range map[string]string{"modern": "2026-07-28", "legacy": "2025-11-25"} {
		c, ok := got[era]
		if !ok {
			t.Fatalf("no report for the %s client:\n%s", era, out)
		}
		if c.Version != want {
			t.Errorf("%s client: negotiated %q, want %s", era, c.Version, want)
		}
		if c.Server != "everything" || c.Tools < 14 || c.Simple != "This is a simple text response for testing." ||
			c.Resource != "This is the content of the static text resource." || !strings.Contains(c.Prompt, "arg1='a'") {
			t.Errorf("%s client: %+v", era, c)
		}
		if c.Elicited != 1 || !strings.Contains(c.Elicitation, era+"@example.com") {
			t.Errorf("%s client: asked %d questions, result %q", era, c.Elicited, c.Elicitation)
		}
		if c.Updated == nil || *c.Updated != "test://watched-resource" {
			t.Errorf("%s client: notified of %v, want test://watched-resource", era, c.Updated)
		}
	}
}

// TestLegacyTransportsTypeScript has the official TypeScript SDK's
// SSEClientTransport (HTTP+SSE, 2024-11-05) and WebSocketClientTransport
// use the default binary: tools/list, a call with progress, an
// elicitation, a resource subscription and its notification.
func TestLegacyTransportsTypeScript(t *testing.T) {
	node := testenv.Node(t)
	modules := testenv.NodeModules(t, "@modelcontextprotocol/sdk")
	if testing.Short() {
		t.Skip("builds and serves examples/everything; skipped in -short mode")
	}
	base := strings.TrimSuffix(serve(t, everythingBinary(t)), "/mcp")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	script, _ := filepath.Abs(filepath.Join("testdata", "transports.mjs"))
	out, err := exec.CommandContext(ctx, node, script, modules, base).CombinedOutput()
	if err != nil {
		t.Fatalf("the TypeScript clients failed: %v\n%s", err, out)
	}
	var got map[string]struct {
		Server, ProgressResult, Elicitation string
		Tools, Elicited                     int
		Progress                            []float64
		Updated                             *string
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
		t.Fatalf("reading the clients' report: %v\n%s", err, out)
	}
	t.Logf("clients report: %s", lines[len(lines)-1])
	for _, kind := range []string{"sse", "ws"} {
		c, ok := got[kind]
		if !ok {
			t.Fatalf("no report for the %s client:\n%s", kind, out)
		}
		if c.Server != "everything" || c.Tools < 14 {
			t.Errorf("%s client: %+v", kind, c)
		}
		// The server sends 0, 50 and 100 before the result, in order; the
		// TypeScript client runs notification handlers a microtask later
		// than it settles a result, so when the last notification and the
		// result arrive in one read it drops the last notification.
		if c.ProgressResult != "Tool with progress executed successfully" || len(c.Progress) < 2 || c.Progress[0] != 0 || c.Progress[1] != 50 {
			t.Errorf("%s client: progress %v, result %q", kind, c.Progress, c.ProgressResult)
		}
		if c.Elicited != 1 || !strings.Contains(c.Elicitation, kind+"@example.com") {
			t.Errorf("%s client: asked %d questions, result %q", kind, c.Elicited, c.Elicitation)
		}
		if c.Updated == nil || *c.Updated != "test://watched-resource" {
			t.Errorf("%s client: notified of %v, want test://watched-resource", kind, c.Updated)
		}
	}
}
