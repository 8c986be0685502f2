//go:build unix

package install

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func uidGid(t *testing.T, name string) (int, int) {
	t.Helper()
	fi, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	return int(st.Uid), int(st.Gid)
}

// TestWriteKeepsOwner: root (sudo mcpgen install, HOME at a user's home)
// edits a user's file. The file, its backup and any file or directory it
// creates stay the user's, or the user's client could no longer read its
// own configuration (mode 0600).
func TestWriteKeepsOwner(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("giving files to another user needs root")
	}
	const uid, gid = 4321, 8765 // a user and group that need not exist
	home := t.TempDir()
	if err := os.Chown(home, uid, gid); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(home, ".claude.json")
	os.WriteFile(file, []byte("{}\n"), 0o600)
	if err := os.Chown(file, uid, gid); err != nil {
		t.Fatal(err)
	}
	c, err := Add(file, mcpServers, "acme", acme)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Write(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{file, c.Backup()} {
		if u, g := uidGid(t, name); u != uid || g != gid {
			t.Errorf("%s is owned by %d:%d, want the user's %d:%d", name, u, g, uid, gid)
		}
		if fi, _ := os.Stat(name); fi.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v, want 0600", name, fi.Mode().Perm())
		}
	}

	// A new file in a new directory of the user's home.
	file = filepath.Join(home, ".cursor", "sub", "mcp.json")
	c, err = Add(file, mcpServers, "acme", acme)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Write(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{file, filepath.Dir(file), filepath.Join(home, ".cursor")} {
		if u, g := uidGid(t, name); u != uid || g != gid {
			t.Errorf("new %s is owned by %d:%d, want the user's %d:%d", name, u, g, uid, gid)
		}
	}
}
