package dev_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/testenv"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testenv.RemoveMCPGen()
	os.Exit(code)
}

// TestStdioTypeScriptClient runs the real mcpgen binary as `mcpgen dev
// --stdio` under the official TypeScript SDK's stdio client, which starts
// it as a host does, and goes through a view edit and a handler edit in one
// session. stdout must carry nothing but JSON-RPC; the build output and the
// terminal summary go to stderr.
func TestStdioTypeScriptClient(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a connector")
	}
	node := testenv.Node(t)
	nm := testenv.NodeModules(t, "@modelcontextprotocol/sdk")
	mcpgen, err := testenv.MCPGen()
	if err != nil {
		t.Fatal(err)
	}
	dir := scaffold(t)

	cmd := exec.Command(node, filepath.Join("testdata", "stdio-client.cjs"))
	cmd.Env = append(os.Environ(), "NODE_MODULES="+nm, "MCPGEN="+mcpgen, "PROJECT="+dir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("stdio client: %v\n%s\n%s", err, stderr.String(), stdout.String())
	}
	var got struct {
		Errors                           []string
		URI1, URI2                       string
		View1, View2                     bool
		Call1, Call2, Description        string
		ToolsNotified, ResourcesNotified int
		Stdout, Stderr                   string
	}
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("client output: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	t.Logf("mcpgen dev's stderr:\n%s", got.Stderr)
	if len(got.Errors) > 0 {
		t.Errorf("the client reported errors (a stray line on stdout is one): %q", got.Errors)
	}
	if !got.View1 || got.Call1 != "hello ada v1" {
		t.Errorf("before the edits: view has card v1 = %v, hello = %q", got.View1, got.Call1)
	}
	if got.URI2 == got.URI1 || !got.View2 || got.ResourcesNotified == 0 {
		t.Errorf("after the view edit: URI %s -> %s, view has card v2 = %v, resources/list_changed %d",
			got.URI1, got.URI2, got.View2, got.ResourcesNotified)
	}
	if got.ToolsNotified == 0 || !strings.Contains(got.Description, "warmly") || got.Call2 != "hello ada v2" {
		t.Errorf("after the handler edit: tools/list_changed %d, description %q, hello = %q",
			got.ToolsNotified, got.Description, got.Call2)
	}

	// Nothing but JSON-RPC on stdout, line by line.
	lines := strings.Split(strings.TrimSuffix(got.Stdout, "\n"), "\n")
	if len(lines) < 8 {
		t.Errorf("only %d lines on stdout: %q", len(lines), got.Stdout)
	}
	for i, line := range lines {
		var msg struct {
			JSONRPC string `json:"jsonrpc"`
		}
		if err := json.Unmarshal([]byte(line), &msg); err != nil || msg.JSONRPC != "2.0" {
			t.Errorf("stdout line %d is not a JSON-RPC message: %q", i+1, line)
		}
	}
	// What people read went to stderr.
	for _, want := range []string{"mcpgen dev", "serving the host over stdio", "card.tsx", "hello.go"} {
		if !strings.Contains(got.Stderr, want) {
			t.Errorf("stderr lacks %q", want)
		}
	}
}
