//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package install

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// removeLockFile: an open file can be removed, so the lock file is gone
// once the edit is over.
const removeLockFile = true

func tryLock(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EWOULDBLOCK):
			return errLocked
		}
		return err
	}
}

func unlockFile(f *os.File) { unix.Flock(int(f.Fd()), unix.LOCK_UN) }
