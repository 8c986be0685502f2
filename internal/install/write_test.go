package install

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

var mcpServers = Servers{Path: []string{"mcpServers"}}

// servers decodes file's mcpServers object and its other top-level keys.
func servers(t *testing.T, file string) (map[string]json.RawMessage, map[string]json.RawMessage) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		t.Fatalf("%s: %v\n%s", file, err, data)
	}
	var s map[string]json.RawMessage
	if raw, ok := top["mcpServers"]; ok {
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
	}
	return s, top
}

// TestWriteConcurrent runs installs of different servers into one file at
// once, as two terminals (or a script) would: every one that reports
// success is in the file.
func TestWriteConcurrent(t *testing.T) {
	t.Parallel()
	const writers, rounds = 8, 10
	for round := range rounds {
		file := filepath.Join(t.TempDir(), "config.json")
		os.WriteFile(file, []byte("{\n  \"numStartups\": 1\n}\n"), 0o644)
		var wg sync.WaitGroup
		errs := make([]error, writers)
		for i := range writers {
			wg.Go(func() {
				c, err := Add(file, mcpServers, fmt.Sprintf("s%d", i), acme)
				if err == nil {
					err = c.Write()
				}
				errs[i] = err
			})
		}
		wg.Wait()
		got, top := servers(t, file)
		for i, err := range errs {
			if err != nil {
				t.Errorf("round %d: install s%d: %v", round, i, err)
			} else if got[fmt.Sprintf("s%d", i)] == nil {
				t.Errorf("round %d: s%d reported added, missing from the file", round, i)
			}
		}
		if string(top["numStartups"]) != "1" {
			t.Errorf("round %d: another setting was lost: %s", round, top["numStartups"])
		}
		if _, err := os.Stat(LockFile(file)); err == nil {
			t.Errorf("round %d: the lock file was left behind", round)
		}
	}
}

// TestWriteEditsWhatIsThereNow: the client saved its file between the
// change being computed (install builds the connector meanwhile) and
// written. The edit is made on the client's new contents; nothing the
// client wrote is lost and nothing fails.
func TestWriteEditsWhatIsThereNow(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "config.json")
	os.WriteFile(file, []byte("{\"numStartups\": 1}\n"), 0o600)
	c, err := Add(file, mcpServers, "acme", acme)
	if err != nil {
		t.Fatal(err)
	}
	client := []byte("{\"numStartups\": 2, \"tipsHistory\": {}}\n")
	os.WriteFile(file, client, 0o600)
	if err := c.Write(); err != nil {
		t.Fatal(err)
	}
	got, top := servers(t, file)
	if got["acme"] == nil || string(top["numStartups"]) != "2" || top["tipsHistory"] == nil {
		t.Errorf("after the write:\n%s", c.New)
	}
	if b, _ := os.ReadFile(c.Backup()); string(b) != string(client) {
		t.Errorf("backup = %q, want the contents replaced, %q", b, client)
	}
}

// TestWriteLooksAgainBeforeRename: the client saves its file after mcpgen
// read it, while mcpgen prepares the new contents. mcpgen must notice just
// before the rename and edit the client's contents instead of writing its
// stale copy over them.
func TestWriteLooksAgainBeforeRename(t *testing.T) {
	// Not parallel: it sets the package's hook.
	file := filepath.Join(t.TempDir(), "config.json")
	os.WriteFile(file, []byte("{\"numStartups\": 1}\n"), 0o644)
	c, err := Add(file, mcpServers, "acme", acme)
	if err != nil {
		t.Fatal(err)
	}
	saves := 0
	testHook = func(point, name string) {
		if point == hookLastLook && saves < 3 {
			saves++
			os.WriteFile(file, fmt.Appendf(nil, "{\"numStartups\": %d}\n", 1+saves), 0o644)
		}
	}
	defer func() { testHook = nil }()
	if err := c.Write(); err != nil {
		t.Fatal(err)
	}
	got, top := servers(t, file)
	if got["acme"] == nil || string(top["numStartups"]) != "4" {
		t.Errorf("the client's last save or the entry is lost:\n%s", mustRead(t, file))
	}

	// A client that never stops gets a clear error, not a lost update.
	os.WriteFile(file, []byte("{}"), 0o644)
	c, err = Add(file, mcpServers, "acme2", acme)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	testHook = func(point, _ string) {
		if point != hookLastLook {
			return
		}
		n++
		os.WriteFile(file, fmt.Appendf(nil, "{\"n\": %d}", n), 0o644)
	}
	if err := c.Write(); err == nil || n != writeAttempts {
		t.Errorf("Write against a client saving all the time: %v after %d attempts", err, n)
	}
	if _, top := servers(t, file); string(top["n"]) != fmt.Sprint(n) {
		t.Errorf("the client's last save was overwritten:\n%s", mustRead(t, file))
	}
}

func mustRead(t *testing.T, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestWriteTakesClientLock: while Claude Code holds its lock (the directory
// FILE.lock) the edit waits, and it is made once the lock is released; a
// lock left by a crashed client (older than clientLockStale) is taken over.
func TestWriteTakesClientLock(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), ".claude.json")
	os.WriteFile(file, []byte("{}\n"), 0o600)
	lock := ClientLock(file)
	if err := os.Mkdir(lock, 0o755); err != nil {
		t.Fatal(err)
	}
	c, err := Add(file, mcpServers, "acme", acme)
	if err != nil {
		t.Fatal(err)
	}
	c.ClientLock = true
	done := make(chan error)
	go func() { done <- c.Write() }()
	time.Sleep(50 * time.Millisecond)
	// The client saves under its lock; whenever Write runs, it is after.
	os.WriteFile(file, []byte("{\"numStartups\": 7}\n"), 0o600)
	if got, _ := servers(t, file); got["acme"] != nil {
		t.Fatal("written while the client held its lock")
	}
	os.Remove(lock)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got, top := servers(t, file); got["acme"] == nil || string(top["numStartups"]) != "7" {
		t.Errorf("after the client released its lock:\n%s", mustRead(t, file))
	}
	if _, err := os.Stat(lock); err == nil {
		t.Errorf("mcpgen left the client's lock behind")
	}

	// A stale lock.
	os.Mkdir(lock, 0o755)
	old := time.Now().Add(-2 * clientLockStale)
	os.Chtimes(lock, old, old)
	c, _ = Add(file, mcpServers, "acme2", acme)
	c.ClientLock = true
	if err := c.Write(); err != nil {
		t.Fatal(err)
	}
	if got, _ := servers(t, file); got["acme2"] == nil {
		t.Errorf("not written past a stale lock")
	}
}

// TestWriteChecksAfter: the client read its file before mcpgen's rename
// and writes that stale copy just after it, or a moment later, removing the
// entry. The read-backs notice and the edit is made again.
func TestWriteChecksAfter(t *testing.T) {
	// Not parallel: it sets the package's hook.
	for _, at := range []string{hookRenamed, hookSettled} {
		file := filepath.Join(t.TempDir(), "config.json")
		stale := []byte("{\"numStartups\": 1}\n")
		os.WriteFile(file, stale, 0o644)
		c, err := Add(file, mcpServers, "acme", acme)
		if err != nil {
			t.Fatal(err)
		}
		renames, overwritten := 0, false
		testHook = func(point, name string) {
			if point == hookRenamed {
				renames++
			}
			if point == at && !overwritten {
				overwritten = true
				os.WriteFile(file, stale, 0o644)
			}
		}
		err = c.Write()
		testHook = nil
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := servers(t, file); got["acme"] == nil || renames != 2 {
			t.Errorf("stale copy at %s: after %d renames, the entry is not there:\n%s", at, renames, mustRead(t, file))
		}
	}
}

func TestMain(m *testing.M) {
	// Many writes here; TestWriteChecksAfter covers the second read-back.
	settle = time.Millisecond
	os.Exit(m.Run())
}
