package install

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"time"
)

// lockWait bounds how long Write waits for another mcpgen editing the same
// file; an edit holds the lock for milliseconds.
const lockWait = 30 * time.Second

// errLocked is what tryLock returns while another process holds the lock.
var errLocked = errors.New("locked")

// LockFile returns the advisory lock file of the configuration file file:
// beside it, so every mcpgen editing the file, whoever runs it, agrees on
// it. It is not file+".lock": Claude Code keeps a directory of that name
// while it saves ~/.claude.json (npm's proper-lockfile), and a file there
// would make its lock fail.
func LockFile(file string) string { return file + ".mcpgen-lock" }

// lock takes the exclusive advisory lock of file and returns the function
// that releases it. The lock file exists only while it is held: the holder
// removes it before unlocking, so a waiter that locked a file that is no
// longer at the path (removed, or replaced by a newer one) tries again.
func lock(file string) (unlock func(), err error) {
	name := LockFile(file)
	deadline := time.Now().Add(lockWait)
	wait := time.Millisecond
	for {
		// Read-only is enough to lock, and lets one user's mcpgen lock a
		// file another user's left behind after a crash.
		f, err := os.OpenFile(name, os.O_RDONLY|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("locking %s: %w", file, err)
		}
		err = tryLock(f)
		if err == nil {
			fi, ferr := f.Stat()
			pi, perr := os.Stat(name)
			if ferr == nil && perr == nil && os.SameFile(fi, pi) {
				return func() {
					if removeLockFile {
						os.Remove(name)
					}
					unlockFile(f)
					f.Close()
				}, nil
			}
			// The previous holder removed it as we locked it: again.
			unlockFile(f)
			f.Close()
			continue
		}
		f.Close()
		if !errors.Is(err, errLocked) {
			return nil, fmt.Errorf("locking %s: %w", file, err)
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s: another mcpgen has been editing it for %v (it holds %s); if none is running, delete that file and run again", file, lockWait, name)
		}
		// Jittered, so waiters do not wake in step.
		time.Sleep(wait/2 + rand.N(wait))
		wait = min(2*wait, 50*time.Millisecond)
	}
}

// clientLockStale is when a client's lock directory counts as left behind
// by a crashed process: npm's proper-lockfile (which Claude Code uses)
// refreshes its lock's modification time every 5 s and calls one older
// than 10 s stale.
const clientLockStale = 10 * time.Second

// ClientLock returns the lock a client takes while it saves file: a
// directory, created to lock and removed to unlock (npm's proper-lockfile).
func ClientLock(file string) string { return file + ".lock" }

// lockClient takes the client's own lock of file (ClientLock), waiting
// while the client holds it, so the client's read-modify-write of its file
// and mcpgen's never interleave. A lock directory older than
// clientLockStale is removed as its owner would remove it; a file of that
// name is someone else's convention and left alone (nothing is locked).
func lockClient(file string) (unlock func(), err error) {
	name := ClientLock(file)
	deadline := time.Now().Add(lockWait)
	wait := time.Millisecond
	for {
		err := os.Mkdir(name, 0o755)
		if err == nil {
			return func() { os.Remove(name) }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("taking the client's lock %s: %w", name, err)
		}
		fi, serr := os.Lstat(name)
		switch {
		case errors.Is(serr, fs.ErrNotExist):
			continue // released meanwhile
		case serr != nil:
			return nil, fmt.Errorf("taking the client's lock %s: %w", name, serr)
		case !fi.IsDir():
			return func() {}, nil
		case time.Since(fi.ModTime()) > clientLockStale:
			os.Remove(name)
			continue
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s: the client has held its lock %s for %v; close it and run again", file, name, lockWait)
		}
		time.Sleep(wait/2 + rand.N(wait))
		wait = min(2*wait, 50*time.Millisecond)
	}
}
