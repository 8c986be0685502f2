//go:build unix

package install

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// owner is a file's user and group; known is false where there is none to
// keep.
type owner struct {
	uid, gid int
	known    bool
}

func ownerOf(fi fs.FileInfo) owner {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return owner{}
	}
	return owner{int(st.Uid), int(st.Gid), true}
}

// give makes o the owner of the open file f (a temporary file about to
// replace one o owns). Only root can give a file away: anyone else gets an
// error rather than a configuration file that silently changed hands.
func (o owner) give(f *os.File) error {
	if !o.known {
		return nil
	}
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if ownerOf(fi) == o {
		return nil
	}
	if err := f.Chown(o.uid, o.gid); err != nil {
		return fmt.Errorf("keeping the owner of the file (uid %d, gid %d): %w; run mcpgen as that user", o.uid, o.gid, err)
	}
	return nil
}

// mkdirOwned creates dir and its missing parents. Run by root (sudo
// mcpgen install, HOME pointing at a user's home), the new directories
// belong to the owner of the nearest one that exists, as does the new file
// it returns the owner for, so the user's client can still read them.
// Otherwise they are the caller's, as the file will be.
func mkdirOwned(dir string) (owner, error) {
	var missing []string
	have := dir
	for {
		fi, err := os.Stat(have)
		if err == nil {
			if !fi.IsDir() {
				return owner{}, fmt.Errorf("%s is not a directory", have)
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return owner{}, err
		}
		missing = append(missing, have)
		parent := filepath.Dir(have)
		if parent == have {
			break
		}
		have = parent
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return owner{}, err
	}
	if os.Geteuid() != 0 {
		return owner{}, nil
	}
	fi, err := os.Stat(have)
	if err != nil {
		return owner{}, err
	}
	o := ownerOf(fi)
	for _, d := range missing {
		if err := os.Lchown(d, o.uid, o.gid); err != nil {
			return owner{}, err
		}
	}
	return o, nil
}
