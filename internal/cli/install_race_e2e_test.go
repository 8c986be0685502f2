package cli_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// configServers decodes a configuration file's top level and its
// mcpServers object.
func configServers(t *testing.T, file string) (top map[string]json.RawMessage, servers map[string]json.RawMessage) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &top); err != nil {
		t.Fatalf("%s: %v\n%s", file, err, data)
	}
	json.Unmarshal(top["mcpServers"], &servers)
	return top, servers
}

// installAll runs one real `mcpgen install` process per name at once and
// checks every one of them exits 0.
func installAll(t *testing.T, mcpgen string, env []string, names []string, args ...string) {
	t.Helper()
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() {
			a := append([]string{"install"}, args...)
			a = append(a, "--name", name, "--url", fmt.Sprintf("http://127.0.0.1:%d/mcp", 9000+i))
			out, errOut, code := run(t, t.TempDir(), env, mcpgen, a...)
			if code != 0 {
				t.Errorf("install %s: exit %d\n%s%s", name, code, out, errOut)
			}
		})
	}
	wg.Wait()
}

// TestInstallConcurrentProcesses runs several mcpgen install processes on
// one file at once: each that says "added" has its entry in the file.
func TestInstallConcurrentProcesses(t *testing.T) {
	t.Parallel()
	mcpgen := mcpgenBinary(t)
	const procs, rounds = 6, 5
	for round := range rounds {
		file := filepath.Join(t.TempDir(), "mcp.json")
		os.WriteFile(file, []byte("{\"theme\": \"dark\"}\n"), 0o644)
		var names []string
		for i := range procs {
			names = append(names, fmt.Sprintf("s%d", i))
		}
		installAll(t, mcpgen, nil, names, "cursor", "--config", file)
		top, servers := configServers(t, file)
		for _, n := range names {
			if servers[n] == nil {
				t.Errorf("round %d: %s missing after its install exited 0:\n%s", round, n, mustReadFile(t, file))
			}
		}
		if string(top["theme"]) != `"dark"` {
			t.Errorf("round %d: a setting was lost", round)
		}
	}
}

// TestInstallRacesClaudeCode installs into ~/.claude.json while a program
// saves it over and over as Claude Code does: it takes the lock
// ~/.claude.json.lock (a directory, npm's proper-lockfile), reads the
// file, changes a setting of its own and writes the file back. Every
// setting it saved and every server installed must be in the file at the
// end: no stale copy was written over another's save.
func TestInstallRacesClaudeCode(t *testing.T) {
	t.Parallel()
	mcpgen := mcpgenBinary(t)
	home := t.TempDir()
	env := append(goCaches(t), "HOME="+home, "CLAUDE_CONFIG_DIR=")
	file := filepath.Join(home, ".claude.json")
	os.WriteFile(file, []byte("{\"numStartups\": 1}\n"), 0o600)

	stop := make(chan struct{})
	saves := make(chan int)
	go func() { saves <- saveLikeClaudeCode(t, file, stop) }()

	var names []string
	for round := range 4 {
		batch := []string{fmt.Sprintf("a%d", round), fmt.Sprintf("b%d", round), fmt.Sprintf("c%d", round)}
		installAll(t, mcpgen, env, batch, "claude-code")
		names = append(names, batch...)
	}
	close(stop)
	n := <-saves

	top, servers := configServers(t, file)
	for _, name := range names {
		if servers[name] == nil {
			t.Errorf("server %s missing after its install exited 0", name)
		}
	}
	for i := range n {
		if top[fmt.Sprintf("save%d", i)] == nil {
			t.Errorf("the client's save %d of %d was overwritten by a stale copy", i, n)
		}
	}
	t.Logf("the client saved its file %d times during the installs", n)
	if t.Failed() {
		t.Logf("%s:\n%s", file, mustReadFile(t, file))
	}
	if _, err := os.Stat(file + ".lock"); err == nil {
		t.Errorf("the client's lock was left behind")
	}
}

// saveLikeClaudeCode saves file until stop, each save under the client's
// lock adding the setting saveN, and returns how many it made.
func saveLikeClaudeCode(t *testing.T, file string, stop <-chan struct{}) int {
	lock := file + ".lock"
	for n := 0; ; n++ {
		select {
		case <-stop:
			return n
		default:
		}
		for {
			err := os.Mkdir(lock, 0o755)
			if err == nil {
				break
			}
			if !errors.Is(err, fs.ErrExist) {
				t.Error(err)
				return n
			}
			time.Sleep(100 * time.Microsecond)
		}
		data, err := os.ReadFile(file)
		var top map[string]any
		if err == nil {
			err = json.Unmarshal(data, &top)
		}
		if err != nil {
			t.Errorf("the client read its file: %v\n%s", err, data)
			os.Remove(lock)
			return n
		}
		top[fmt.Sprintf("save%d", n)] = n
		data, _ = json.MarshalIndent(top, "", "  ")
		tmp := fmt.Sprintf("%s.tmp.%d", file, n)
		os.WriteFile(tmp, data, 0o600)
		os.Rename(tmp, file)
		os.Remove(lock)
	}
}

func mustReadFile(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
