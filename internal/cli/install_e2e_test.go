package cli_test

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestInstallBuildsAndRegisters installs examples/notes into Claude
// Desktop's configuration in a temporary home with the real mcpgen, then
// starts the server exactly as the client would, from the entry written, and
// lists its tools over stdio.
func TestInstallBuildsAndRegisters(t *testing.T) {
	mcpgen := mcpgenBinary(t)
	dir := copyExample(t, "notes")
	root := t.TempDir()
	env := append(goCaches(t), "HOME="+filepath.Join(root, "home"), "XDG_CONFIG_HOME="+filepath.Join(root, "xdg"), "APPDATA="+filepath.Join(root, "appdata"))
	file := filepath.Join(root, "xdg", "Claude", "claude_desktop_config.json")
	data := filepath.Join(root, "notes.json")

	out, errOut, code := run(t, dir, env, mcpgen, "install", "claude-desktop", "--env", "NOTES_FILE="+data)
	if code != 0 {
		t.Fatalf("install: exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "built "+filepath.Join(dir, "notes")) || !strings.Contains(out, "added notes to "+file) {
		t.Errorf("install output:\n%s", out)
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		MCPServers map[string]struct {
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Env     map[string]string `json:"env"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(raw, &cfg); err != nil {
		t.Fatalf("%s: %v\n%s", file, err, raw)
	}
	e, ok := cfg.MCPServers["notes"]
	if !ok {
		t.Fatalf("no notes server in %s:\n%s", file, raw)
	}

	// Start it as Claude Desktop does: the command, its args, its env.
	cmd := exec.Command(e.Command, e.Args...)
	cmd.Dir = root // not the project: the binary needs no files beside itself
	cmd.Env = os.Environ()
	for k, v := range e.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stderr = io.Discard
	cs := connect(t, &mcp.CommandTransport{Command: cmd})
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	if !slices.Contains(names, "add_note") {
		t.Errorf("tools = %v, want add_note among them", names)
	}

	out, _, code = run(t, dir, env, mcpgen, "uninstall", "claude-desktop")
	if code != 0 {
		t.Fatalf("uninstall: exit %d\n%s", code, out)
	}
	if raw, _ := os.ReadFile(file); strings.Contains(string(raw), "notes") {
		t.Errorf("uninstall left the entry:\n%s", raw)
	}
}

// goCaches pins the go command's module and build caches to this machine's,
// so that a test that moves HOME does not download and compile every
// module again under the temporary home.
func goCaches(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOPATH", "GOMODCACHE", "GOCACHE").Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	v := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(v) != 3 {
		t.Fatalf("go env printed %q", out)
	}
	return []string{"GOPATH=" + v[0], "GOMODCACHE=" + v[1], "GOCACHE=" + v[2]}
}
