package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tailscale/hujson"
)

// installHome points every place a client keeps its configuration at fresh
// temporary directories and returns them, with a project directory holding
// a connector's go.mod that is also the current directory.
type installHome struct{ home, config, project string }

func newInstallHome(t *testing.T) installHome {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the expected paths below are Linux's")
	}
	root := t.TempDir()
	h := installHome{
		home:    filepath.Join(root, "home"),
		config:  filepath.Join(root, "xdg"),
		project: filepath.Join(root, "work", "acme"),
	}
	for _, d := range []string{h.home, h.config, h.project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", h.home)
	t.Setenv("XDG_CONFIG_HOME", h.config)
	t.Setenv("APPDATA", filepath.Join(root, "appdata"))
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	if err := os.WriteFile(filepath.Join(h.project, "go.mod"), []byte("module example.com/acme\n\ngo 1.26.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(h.project)
	return h
}

// installCase is one client and scope: where its file is, the key of its
// servers object, and whether entries carry "type".
type installCase struct {
	target, scope string
	file          func(h installHome) string
	key           string
	typed, jsonc  bool
}

var installCases = []installCase{
	{"claude-desktop", "", func(h installHome) string { return filepath.Join(h.config, "Claude", "claude_desktop_config.json") }, "mcpServers", false, false},
	{"claude-code", "", func(h installHome) string { return filepath.Join(h.home, ".claude.json") }, "mcpServers", true, false},
	{"claude-code", "project", func(h installHome) string { return filepath.Join(h.project, ".mcp.json") }, "mcpServers", true, false},
	{"cursor", "user", func(h installHome) string { return filepath.Join(h.home, ".cursor", "mcp.json") }, "mcpServers", false, false},
	{"cursor", "project", func(h installHome) string { return filepath.Join(h.project, ".cursor", "mcp.json") }, "mcpServers", false, false},
	{"vscode", "", func(h installHome) string { return filepath.Join(h.config, "Code", "User", "mcp.json") }, "servers", true, true},
	{"vscode", "project", func(h installHome) string { return filepath.Join(h.project, ".vscode", "mcp.json") }, "servers", true, true},
	{"mcp-json", "", func(h installHome) string { return filepath.Join(h.project, ".mcp.json") }, "mcpServers", true, false},
}

func (c installCase) args(verb string, extra ...string) []string {
	args := []string{verb, c.target}
	if c.scope != "" {
		args = append(args, "--scope", c.scope)
	}
	return append(args, extra...)
}

// seed is a configuration the user already has: another server, settings
// mcpgen does not know, in an order it must keep (and, in VS Code's files,
// comments).
func (c installCase) seed() string {
	if c.jsonc {
		return "// my MCP servers\n{\n\t\"inputs\": [],\n\t\"" + c.key + "\": {\n\t\t\"other\": {\"type\": \"stdio\", \"command\": \"other-server\"}, // keep me\n\t},\n}\n"
	}
	return "{\n  \"numStartups\": 3,\n  \"" + c.key + "\": {\n    \"other\": {\n      \"command\": \"other-server\"\n    }\n  },\n  \"zzz\": {\"nested\": [1, 2]}\n}\n"
}

// decode parses a configuration file (JSONC allowed) into a map.
func decode(t *testing.T, file string, jsonc bool) map[string]any {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !jsonc && !json.Valid(data) {
		t.Fatalf("%s is not valid JSON:\n%s", file, data)
	}
	std, err := hujson.Standardize(data)
	if err != nil {
		t.Fatalf("%s does not parse: %v\n%s", file, err, data)
	}
	var m map[string]any
	if err := json.Unmarshal(std, &m); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return m
}

func TestInstallEveryTarget(t *testing.T) {
	for _, tc := range installCases {
		t.Run(tc.target+"/"+tc.scope, func(t *testing.T) {
			h := newInstallHome(t)
			file := tc.file(h)
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				t.Fatal(err)
			}
			seed := tc.seed()
			if err := os.WriteFile(file, []byte(seed), 0o600); err != nil {
				t.Fatal(err)
			}

			out, errOut, code := runCLI(t, tc.args("install", "--dev", "--env", "API_KEY=k1")...)
			if code != 0 {
				t.Fatalf("install: exit %d\n%s%s", code, out, errOut)
			}
			if !strings.Contains(out, "added acme to "+file) {
				t.Errorf("install did not name the file it edited:\n%s", out)
			}
			m := decode(t, file, tc.jsonc)
			servers, _ := m[tc.key].(map[string]any)
			if _, ok := servers["other"]; !ok {
				t.Errorf("the other server is gone: %v", m)
			}
			if !tc.jsonc && (m["numStartups"] != 3.0 || m["zzz"] == nil) {
				t.Errorf("other settings changed: %v", m)
			}
			acme, _ := servers["acme"].(map[string]any)
			self, _ := os.Executable()
			args, _ := acme["args"].([]any)
			if acme["command"] != self || len(args) != 3 || args[0] != "dev" || args[1] != "--stdio" || args[2] != h.project {
				t.Errorf("entry = %v, want %s dev --stdio %s", acme, self, h.project)
			}
			if env, _ := acme["env"].(map[string]any); env["API_KEY"] != "k1" {
				t.Errorf("entry env = %v", acme["env"])
			}
			if _, typed := acme["type"]; typed != tc.typed {
				t.Errorf("entry type field present = %v, want %v", typed, tc.typed)
			}
			data, _ := os.ReadFile(file)
			if !strings.Contains(string(data), "keep me") && tc.jsonc {
				t.Errorf("a comment was lost:\n%s", data)
			}
			if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o600 {
				t.Errorf("mode %v, want the file's own 0600", fi.Mode().Perm())
			}
			backup, err := os.ReadFile(file + ".bak")
			if err != nil || string(backup) != seed {
				t.Errorf("backup = %q, %v; want the previous contents", backup, err)
			}

			// Again: nothing changes, not even the backup.
			os.WriteFile(file+".bak", []byte("marker"), 0o600)
			out, _, code = runCLI(t, tc.args("install", "--dev", "--env", "API_KEY=k1")...)
			after, _ := os.ReadFile(file)
			if code != 0 || !strings.Contains(out, "nothing to change") || string(after) != string(data) {
				t.Errorf("second install: exit %d, file changed %v:\n%s", code, string(after) != string(data), out)
			}
			if b, _ := os.ReadFile(file + ".bak"); string(b) != "marker" {
				t.Errorf("second install rewrote the backup")
			}

			// Uninstall restores the rest exactly.
			out, errOut, code = runCLI(t, tc.args("uninstall")...)
			if code != 0 {
				t.Fatalf("uninstall: exit %d\n%s%s", code, out, errOut)
			}
			if got, _ := os.ReadFile(file); string(got) != seed {
				t.Errorf("after uninstall:\n%s\nwant the original:\n%s", got, seed)
			}
			out, _, code = runCLI(t, tc.args("uninstall")...)
			if code != 0 || !strings.Contains(out, "nothing to change") {
				t.Errorf("second uninstall: exit %d\n%s", code, out)
			}
		})
	}
}

func TestInstallNewFileAndURL(t *testing.T) {
	for _, tc := range installCases {
		t.Run(tc.target+"/"+tc.scope, func(t *testing.T) {
			h := newInstallHome(t)
			file := tc.file(h)
			const url = "http://127.0.0.1:8080/mcp"
			out, errOut, code := runCLI(t, tc.args("install", "--url", url)...)
			if tc.target == "claude-desktop" {
				if code != ExitUsage || !strings.Contains(errOut, "cannot connect to a URL") {
					t.Errorf("claude-desktop --url: exit %d, %s", code, errOut)
				}
				if _, err := os.Stat(file); err == nil {
					t.Errorf("a refused install wrote %s", file)
				}
				return
			}
			if code != 0 {
				t.Fatalf("install --url: exit %d\n%s%s", code, out, errOut)
			}
			m := decode(t, file, tc.jsonc)
			acme, _ := m[tc.key].(map[string]any)["acme"].(map[string]any)
			if acme["url"] != url {
				t.Errorf("entry = %v", acme)
			}
			if tc.typed && acme["type"] != "http" {
				t.Errorf("entry type = %v, want http", acme["type"])
			}
			if _, err := os.Stat(file + ".bak"); err == nil {
				t.Errorf("a backup of a file that did not exist was written")
			}
			wantMode := os.FileMode(0o644) // a project's file, meant to be shared
			if tc.scope != "project" && tc.target != "mcp-json" {
				wantMode = 0o600 // the user's own
			}
			if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != wantMode {
				t.Errorf("new file mode %v, want %v", fi.Mode().Perm(), wantMode)
			}
		})
	}
}

func TestInstallDryRun(t *testing.T) {
	h := newInstallHome(t)
	file := filepath.Join(h.config, "Claude", "claude_desktop_config.json")
	os.MkdirAll(filepath.Dir(file), 0o755)
	seed := "{\n  \"mcpServers\": {}\n}\n"
	os.WriteFile(file, []byte(seed), 0o644)
	out, errOut, code := runCLI(t, "install", "claude-desktop", "--dry-run")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	bin := filepath.Join(h.project, "acme")
	for _, want := range []string{
		"would build " + bin,
		"--- " + file + "\n+++ " + file + "\n",
		"-  \"mcpServers\": {}\n",
		"+  \"mcpServers\": {\n",
		"+      \"command\": \"" + bin + "\",\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run output lacks %q:\n%s", want, out)
		}
	}
	if got, _ := os.ReadFile(file); string(got) != seed {
		t.Errorf("--dry-run wrote the file")
	}
	if _, err := os.Stat(bin); err == nil {
		t.Errorf("--dry-run built the binary")
	}
}

func TestInstallRefusesBrokenFile(t *testing.T) {
	h := newInstallHome(t)
	file := filepath.Join(h.home, ".claude.json")
	broken := "{\n  \"mcpServers\": {\n    \"other\": {\"command\": \"x\",}\n  }\n}\n"
	os.WriteFile(file, []byte(broken), 0o644)
	_, errOut, code := runCLI(t, "install", "claude-code", "--dev")
	if code != ExitFailed || !strings.Contains(errOut, file+":3:30: ") {
		t.Errorf("exit %d, want 1 and the file:line:col of the trailing comma:\n%s", code, errOut)
	}
	if got, _ := os.ReadFile(file); string(got) != broken {
		t.Errorf("a file that does not parse was rewritten")
	}
	if _, err := os.Stat(file + ".bak"); err == nil {
		t.Errorf("a backup was written")
	}
}

func TestInstallUsage(t *testing.T) {
	newInstallHome(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"install"}, "takes a TARGET"},
		{[]string{"install", "claude-dekstop"}, `unknown target "claude-dekstop"; did you mean "claude-desktop"?`},
		{[]string{"install", "claude-desktop", "--scope", "project"}, `--scope "project": Claude Desktop has user`},
		{[]string{"install", "cursor", "--name", "a.b"}, `--name "a.b"`},
		{[]string{"install", "cursor", "--env", "NOVALUE"}, `--env "NOVALUE": want NAME=VALUE`},
		{[]string{"install", "cursor", "--url", "http://x/mcp", "--dev"}, "give one"},
		{[]string{"install", "cursor", "--url", "localhost:8080"}, "want http://"},
		{[]string{"install", "cursor", "--url", "http://x/mcp", "--env", "A=1"}, "--env applies to a server the client starts"},
		{[]string{"install", "claude-code", "--transport", "sse"}, "--transport sse applies to a server reached by --url"},
		{[]string{"install", "claude-code", "--url", "http://x", "--transport", "wss"}, `--transport "wss"; did you mean "ws"?; valid: http, sse, ws`},
		{[]string{"install", "cursor", "--url", "http://x/mcp", "--transport", "sse"}, `Cursor reaches a server by URL over http, not "sse"`},
		{[]string{"install", "claude-code", "--url", "ws://x/ws"}, "want http://"},
	} {
		_, errOut, code := runCLI(t, tc.args...)
		if code != ExitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, want 2 and %q:\n%s", tc.args, code, tc.want, errOut)
		}
	}
}

// TestInstallConfigAndSymlink edits the file --config names, through a
// symbolic link (as dotfile managers keep them), leaving the link a link.
func TestInstallConfigAndSymlink(t *testing.T) {
	h := newInstallHome(t)
	real := filepath.Join(h.home, "dotfiles", "cursor.json")
	os.MkdirAll(filepath.Dir(real), 0o755)
	os.WriteFile(real, []byte("{}\n"), 0o644)
	link := filepath.Join(h.home, "link.json")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runCLI(t, "install", "cursor", "--config", link, "--dev", "--name", "mine")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced by a file")
	}
	if m := decode(t, real, false); m["mcpServers"].(map[string]any)["mine"] == nil {
		t.Errorf("entry not written through the link: %v", m)
	}
}

// TestInstallDanglingSymlink: a dotfile manager links the configuration
// to a file in its repository that does not exist yet. install writes
// through the link, creating the file where it points, and the link stays
// a link (a relative one, through a second link).
func TestInstallDanglingSymlink(t *testing.T) {
	h := newInstallHome(t)
	dots := filepath.Join(h.home, "dotfiles")
	os.MkdirAll(filepath.Join(dots, "cursor"), 0o755)
	os.MkdirAll(filepath.Join(h.home, ".cursor"), 0o755)
	link := filepath.Join(h.home, ".cursor", "mcp.json")
	if err := os.Symlink("../dotfiles/cursor/mcp.json", link); err != nil {
		t.Fatal(err)
	}
	// dotfiles/cursor/mcp.json -> mcp.real.json, which does not exist.
	if err := os.Symlink("mcp.real.json", filepath.Join(dots, "cursor", "mcp.json")); err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(dots, "cursor", "mcp.real.json")
	_, errOut, code := runCLI(t, "install", "cursor", "--dev", "--name", "mine")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, l := range []string{link, filepath.Join(dots, "cursor", "mcp.json")} {
		if fi, err := os.Lstat(l); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("the link %s was replaced by a file", l)
		}
	}
	if m := decode(t, real, false); m["mcpServers"].(map[string]any)["mine"] == nil {
		t.Errorf("entry not written to the link's target: %v", m)
	}

	// A link loop is an error naming the file, not a hang or a file.
	loop := filepath.Join(h.home, "loop.json")
	os.Symlink("loop.json", loop)
	_, errOut, code = runCLI(t, "install", "cursor", "--config", loop, "--dev", "--name", "mine")
	if code == 0 || !strings.Contains(errOut, "symbolic links") {
		t.Errorf("a link loop: exit %d, %s", code, errOut)
	}
}

// TestInstallRefusesDuplicateKeys: ~/.claude.json with "mcpServers" twice
// (a hand merge gone wrong). Claude Code reads the second; an entry added
// to the first would never be seen, so install refuses at the second's
// line and column and writes nothing.
func TestInstallRefusesDuplicateKeys(t *testing.T) {
	h := newInstallHome(t)
	file := filepath.Join(h.home, ".claude.json")
	doc := "{\n  \"mcpServers\": {},\n  \"numStartups\": 4,\n  \"mcpServers\": {\n    \"other\": {\"type\": \"stdio\", \"command\": \"x\"}\n  }\n}\n"
	os.WriteFile(file, []byte(doc), 0o600)
	_, errOut, code := runCLI(t, "install", "claude-code", "--dev")
	want := file + `:4:3: "mcpServers" appears twice in the top-level object (first at 2:3)`
	if code != ExitFailed || !strings.Contains(errOut, want) || !strings.Contains(errOut, "merge the two into one") {
		t.Errorf("exit %d, want 1 and %q naming the fix:\n%s", code, want, errOut)
	}
	if got, _ := os.ReadFile(file); string(got) != doc {
		t.Errorf("the file was rewritten:\n%s", got)
	}
}

// TestInstallTransport registers a running connector with Claude Code over
// each transport: the entry's "type" names it and its URL is the endpoint
// the connector serves it at, whichever endpoint --url gave.
func TestInstallTransport(t *testing.T) {
	for _, tc := range []struct {
		args          []string
		wantType, url string
	}{
		{nil, "http", "http://127.0.0.1:8080/mcp"},
		{[]string{"--transport", "http"}, "http", "http://127.0.0.1:8080/mcp"},
		{[]string{"--transport", "sse"}, "sse", "http://127.0.0.1:8080/sse"},
		{[]string{"--transport", "ws"}, "ws", "ws://127.0.0.1:8080/ws"},
	} {
		t.Run(tc.wantType+fmt.Sprint(len(tc.args)), func(t *testing.T) {
			h := newInstallHome(t)
			args := append([]string{"install", "claude-code", "--url", "http://127.0.0.1:8080/mcp"}, tc.args...)
			_, errOut, code := runCLI(t, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			m := decode(t, filepath.Join(h.home, ".claude.json"), false)
			acme, _ := m["mcpServers"].(map[string]any)["acme"].(map[string]any)
			if acme["type"] != tc.wantType || acme["url"] != tc.url || len(acme) != 2 {
				t.Errorf("entry = %v, want type %s, url %s", acme, tc.wantType, tc.url)
			}
		})
	}
}
