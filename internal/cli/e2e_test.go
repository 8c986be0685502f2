package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpgen/mcpgen/internal/testenv"
)

// These tests drive the real mcpgen binary, the real Go toolchain and the
// connector binaries it builds, and question those with the go-sdk client
// over Streamable HTTP and stdio, as a host does.

// mcpgenBinary builds cmd/mcpgen once per test process.
func mcpgenBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds binaries; skipped with -short")
	}
	bin, err := testenv.MCPGen()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

func TestMain(m *testing.M) {
	code := m.Run()
	testenv.RemoveMCPGen()
	os.Exit(code)
}

// run runs a command in dir and returns its stdout, stderr and exit code.
func run(t *testing.T, dir string, env []string, name string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return stdout.String(), stderr.String(), code
}

// copyExample copies examples/NAME into a temporary directory, pointing its
// replace directive at this checkout, so building it leaves the tree alone.
func copyExample(t *testing.T, name string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name)
	if err := testenv.CopyExample(filepath.Join(testenv.Root(), "examples", name), dst); err != nil {
		t.Fatal(err)
	}
	return dst
}

// serveHTTP starts a connector binary on a free port and returns its
// endpoint; the process is interrupted when the test ends.
func serveHTTP(t *testing.T, bin string, env []string) string {
	t.Helper()
	return testenv.ServeConnector(t, bin, env...)
}

func connectHTTP(t *testing.T, endpoint string) *mcp.ClientSession {
	t.Helper()
	return connect(t, &mcp.StreamableClientTransport{Endpoint: endpoint, MaxRetries: -1})
}

func connectStdio(t *testing.T, bin string, env []string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(bin, "--stdio")
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = io.Discard
	return connect(t, &mcp.CommandTransport{Command: cmd})
}

func connect(t *testing.T, tr mcp.Transport) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "mcpgen-e2e", Version: "v0.0.1"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// schema is a decoded JSON Schema with $ref resolution against its root.
type schema struct {
	root map[string]any
	m    map[string]any
}

func newSchema(t *testing.T, v any) schema {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("schema %s: %v", b, err)
	}
	return schema{root: m, m: m}
}

// resolve follows $ref (to #/$defs/...) and unwraps a nullable anyOf/oneOf.
func (s schema) resolve() schema {
	for range 8 {
		if ref, ok := s.m["$ref"].(string); ok {
			name := strings.TrimPrefix(ref, "#/$defs/")
			defs, _ := s.root["$defs"].(map[string]any)
			d, _ := defs[name].(map[string]any)
			if d == nil {
				return s
			}
			s.m = d
			continue
		}
		for _, key := range []string{"anyOf", "oneOf"} {
			if alts, ok := s.m[key].([]any); ok {
				for _, a := range alts {
					if am, ok := a.(map[string]any); ok && am["type"] != "null" {
						s.m = am
						break
					}
				}
			}
		}
		if _, ok := s.m["$ref"]; !ok {
			return s
		}
	}
	return s
}

// prop returns the property called name.
func (s schema) prop(t *testing.T, name string) schema {
	t.Helper()
	s = s.resolve()
	props, _ := s.m["properties"].(map[string]any)
	p, ok := props[name].(map[string]any)
	if !ok {
		t.Fatalf("no property %q in %v", name, s.m)
	}
	return schema{root: s.root, m: p}.resolve()
}

func (s schema) strings(key string) []string {
	var out []string
	list, _ := s.resolve().m[key].([]any)
	for _, v := range list {
		out = append(out, fmt.Sprint(v))
	}
	slices.Sort(out)
	return out
}

func (s schema) num(key string) (float64, bool) {
	v, ok := s.resolve().m[key].(float64)
	return v, ok
}

func (s schema) str(key string) string {
	v, _ := s.resolve().m[key].(string)
	return v
}

// hasType reports whether the schema's type is typ or a list holding it
// (["array", "null"] for a Go slice, which may be nil).
func (s schema) hasType(typ string) bool {
	switch v := s.resolve().m["type"].(type) {
	case string:
		return v == typ
	case []any:
		for _, t := range v {
			if t == typ {
				return true
			}
		}
	}
	return false
}

func tools(t *testing.T, cs *mcp.ClientSession) map[string]*mcp.Tool {
	t.Helper()
	out := map[string]*mcp.Tool{}
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		out[tool.Name] = tool
	}
	return out
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): %v", name, args, err)
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func structured(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	if res.IsError {
		t.Fatalf("unexpected tool error: %s", text(res))
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("structuredContent %s: %v", b, err)
	}
	// The text content carries the same object, for hosts that read text only.
	var copy map[string]any
	if err := json.Unmarshal([]byte(text(res)), &copy); err != nil {
		t.Errorf("text content is not the JSON copy of structuredContent: %q", text(res))
	}
	return m
}

func wantError(t *testing.T, res *mcp.CallToolResult, substr string) {
	t.Helper()
	if !res.IsError {
		t.Errorf("want isError, got %s", text(res))
		return
	}
	if !strings.Contains(strings.ToLower(text(res)), strings.ToLower(substr)) {
		t.Errorf("error text %q does not mention %q", text(res), substr)
	}
}
