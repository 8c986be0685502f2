//go:build !unix

package install

import (
	"io/fs"
	"os"
)

// owner is a file's user and group: nothing mcpgen keeps here (Windows
// files inherit their access from the directory).
type owner struct{}

func ownerOf(fs.FileInfo) owner { return owner{} }

func (owner) give(*os.File) error { return nil }

func mkdirOwned(dir string) (owner, error) { return owner{}, os.MkdirAll(dir, 0o755) }
