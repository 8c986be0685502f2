package testenv

import (
	"bytes"
	"os"
	"path/filepath"
)

// CopyExample copies the connector at src (one of examples/*, whose go.mod
// replaces mcpgen with "../..") into dst, so a test can generate and build
// it without touching the tree. The copy's replace points at Root. A
// node_modules directory is linked, not copied; files that are not regular
// (a socket, a symlinked binary) are left out.
func CopyExample(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			if d.Name() == "node_modules" {
				if err := os.Symlink(p, to); err != nil {
					return err
				}
				return filepath.SkipDir
			}
			return os.MkdirAll(to, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if rel == "go.mod" {
			data = bytes.ReplaceAll(data, []byte("=> ../.."), []byte("=> "+Root()))
		}
		return os.WriteFile(to, data, 0o644)
	})
}
