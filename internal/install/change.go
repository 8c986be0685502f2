package install

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Change is one edit of one configuration file, computed but not yet
// written.
type Change struct {
	// File is the configuration file (symbolic links resolved, so the file
	// a link points at is edited and the link stays).
	File string
	// Old and New are its contents before and after; Old is nil when the
	// file does not exist. Write updates them to what it found and wrote.
	Old, New []byte
	// Changed is false when New equals Old: writing does nothing.
	Changed bool
	// Existed is whether the file was there.
	Existed bool
	// Mode is the file's permissions: its own when it exists; for a new
	// file 0644, which the caller may tighten before Write (a user's own
	// configuration can hold secrets in env).
	Mode fs.FileMode
	// ClientLock makes Write also take the lock the client itself takes
	// while it saves the file (see ClientLock), as Claude Code does.
	ClientLock bool

	// owner is the file's owner and group, kept by Write.
	owner owner
	// edit is the pure edit, applied again by Write to what the file holds
	// then.
	edit func(old []byte) (new []byte, changed bool, err error)
}

// Add computes the change that registers entry as the server name in file.
func Add(file string, s Servers, name string, entry any) (*Change, error) {
	return compute(file, func(old []byte) ([]byte, bool, error) { return s.Edit(old, name, entry) })
}

// Delete computes the change that removes the server name from file; a
// missing file or server is no change.
func Delete(file string, s Servers, name string) (*Change, error) {
	return compute(file, func(old []byte) ([]byte, bool, error) {
		if old == nil {
			return nil, false, nil
		}
		return s.Remove(old, name)
	})
}

func compute(file string, edit func([]byte) ([]byte, bool, error)) (*Change, error) {
	c, err := read(file)
	if err != nil {
		return nil, err
	}
	c.edit = edit
	c.New, c.Changed, err = edit(c.Old)
	if err != nil {
		return nil, fileError(c.File, err)
	}
	return c, nil
}

func read(file string) (*Change, error) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, err
	}
	abs, err = resolve(abs)
	if err != nil {
		return nil, err
	}
	c := &Change{File: abs, Mode: 0o644}
	// A FIFO would block the open.
	if fi, err := os.Stat(abs); err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file: name the configuration file itself", abs)
	}
	// Mode, owner and contents from one open file, so that they belong
	// together even while another program replaces the file.
	f, err := os.Open(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file: name the configuration file itself", abs)
	}
	if c.Old, err = io.ReadAll(f); err != nil {
		return nil, err
	}
	c.Existed, c.Mode, c.owner = true, fi.Mode().Perm(), ownerOf(fi)
	return c, nil
}

// maxLinks bounds the symbolic links followed to a file (Linux's limit).
const maxLinks = 40

// resolve returns the file that file's path leads to once the symbolic
// links at its end are followed. That file need not exist: a dangling link
// (a dotfile manager's, before its first sync) leads to the file to create,
// so the link stays a link and the file appears where it points.
func resolve(file string) (string, error) {
	for range maxLinks {
		dir, base := filepath.Split(file)
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			dir = real
		}
		file = filepath.Join(dir, base)
		fi, err := os.Lstat(file)
		if errors.Is(err, fs.ErrNotExist) || (err == nil && fi.Mode()&fs.ModeSymlink == 0) {
			return file, nil
		}
		if err != nil {
			return "", err
		}
		target, err := os.Readlink(file)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(dir, target)
		}
		file = target
	}
	return "", fmt.Errorf("%s: more than %d symbolic links in a row (a loop?): point it at a file", file, maxLinks)
}

// fileError names the file (and the line and column) in an edit's error.
func fileError(file string, err error) error {
	var se *SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("%s:%d:%d: %s; the file was left as it is: fix it there and run again", file, se.Line, se.Column, se.Msg)
	}
	var de *DuplicateError
	if errors.As(err, &de) {
		return fmt.Errorf("%s:%v; the file was left as it is", file, de)
	}
	var sh *ShapeError
	if errors.As(err, &sh) {
		return fmt.Errorf("%s: %v; the file was left as it is", file, sh)
	}
	return fmt.Errorf("%s: %w", file, err)
}

// Backup returns the backup file Write keeps of File.
func (c *Change) Backup() string { return c.File + ".bak" }

// writeAttempts bounds how often Write starts over because another program
// changed the file while it was editing it.
const writeAttempts = 10

// Write commits the change. Under an advisory lock (LockFile) that
// serialises every mcpgen editing File (and the client's own lock, with
// ClientLock), it reads File again and applies the
// edit to what it holds now, so nothing another program wrote since the
// change was computed is lost. It keeps the contents it replaces in Backup
// (one backup, replaced each time) and replaces File atomically (a
// temporary file in the same directory, synced, given File's mode, renamed
// over it, the directory synced; owned by File's owner and group, when root
// runs it) so a crash leaves the old file or the new,
// never half of one. Just before the rename it compares File with what the
// edit was made from: a program that does not take the lock (the client
// itself, saving its own settings) may have written it meanwhile, and then
// the edit is made again on those contents. After the rename it reads File
// back, at once and after settle, and makes the edit again if a program
// wrote its older copy over it. It writes nothing when nothing changed,
// and gives up with an error after a bounded number of attempts.
func (c *Change) Write() error {
	if !c.Changed {
		return nil
	}
	newOwner, err := mkdirOwned(filepath.Dir(c.File))
	if err != nil {
		return err
	}
	unlock, err := lock(c.File)
	if err != nil {
		return err
	}
	defer unlock()
	if c.ClientLock {
		unlockClient, err := lockClient(c.File)
		if err != nil {
			return err
		}
		defer unlockClient()
	}
	for range writeAttempts {
		cur, err := read(c.File)
		if err != nil {
			return err
		}
		cur.New, cur.Changed, err = c.edit(cur.Old)
		if err != nil {
			return fileError(c.File, err)
		}
		if !cur.Changed {
			// Already as wanted (another mcpgen made the same edit).
			c.Old, c.New, c.Existed = cur.Old, cur.New, cur.Existed
			return nil
		}
		mode := c.Mode
		if cur.Existed {
			mode = cur.Mode
		} else {
			cur.owner = newOwner
		}
		done, err := replace(cur, mode)
		if err != nil {
			return err
		}
		if !done {
			continue // changed under us: edit what is there now
		}
		if testHook != nil {
			testHook(hookRenamed, c.File)
		}
		// Read back, at once and once more a moment later: a program that
		// read the file before the rename and writes its copy back now (or
		// after its own work on it) has removed the edit again.
		held, err := c.holds()
		if err == nil && held {
			time.Sleep(settle)
			if testHook != nil {
				testHook(hookSettled, c.File)
			}
			held, err = c.holds()
		}
		if err != nil {
			return err
		}
		if held {
			c.Old, c.New, c.Existed, c.Mode = cur.Old, cur.New, cur.Existed, mode
			return nil
		}
	}
	return fmt.Errorf("%s kept changing while mcpgen was editing it (%d attempts): another program keeps rewriting it; close it (the client?) and run again", c.File, writeAttempts)
}

// settle is how long after its rename Write reads the file back a second
// time: longer than a client takes to read, change and write back its file.
var settle = 100 * time.Millisecond

// holds reports whether the file holds the edit (making it again changes
// nothing).
func (c *Change) holds() (bool, error) {
	after, err := os.ReadFile(c.File)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	_, again, err := c.edit(after)
	return err == nil && !again, nil
}

// replace writes cur.New over cur.File unless the file no longer holds
// cur.Old (done is then false and nothing was written but the backup).
func replace(cur *Change, mode fs.FileMode) (done bool, err error) {
	dir := filepath.Dir(cur.File)
	tmp, err := tempFile(dir, filepath.Base(cur.File), cur.New, mode, cur.owner)
	if err != nil {
		return false, err
	}
	defer func() {
		if !done {
			os.Remove(tmp)
		}
	}()
	if cur.Existed {
		if err := writeFile(cur.Backup(), cur.Old, mode, cur.owner); err != nil {
			return false, fmt.Errorf("writing the backup: %w", err)
		}
	}
	if testHook != nil {
		testHook(hookLastLook, cur.File)
	}
	// The last look, as close to the rename as can be.
	now, err := os.ReadFile(cur.File)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if cur.Existed {
			return false, nil
		}
	case err != nil:
		return false, err
	case !cur.Existed || !bytes.Equal(now, cur.Old):
		return false, nil
	}
	if err := os.Rename(tmp, cur.File); err != nil {
		return false, err
	}
	syncDir(dir)
	return true, nil
}

// testHook, when set by a test, runs at the points of Write where another
// program's write is the hardest to notice: just before the last look
// (hookLastLook), just after the rename (hookRenamed) and before the
// second read-back (hookSettled).
var testHook func(point, file string)

const (
	hookLastLook = "last look"
	hookRenamed  = "renamed"
	hookSettled  = "settled"
)

// writeFile replaces name with data atomically and durably.
func writeFile(name string, data []byte, mode fs.FileMode, own owner) error {
	dir := filepath.Dir(name)
	tmp, err := tempFile(dir, filepath.Base(name), data, mode, own)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, name); err != nil {
		os.Remove(tmp)
		return err
	}
	syncDir(dir)
	return nil
}

// tempFile writes data to a new file in dir, with mode and owner, synced,
// and returns its name.
func tempFile(dir, base string, data []byte, mode fs.FileMode, own owner) (name string, err error) {
	f, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return "", err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		return "", err
	}
	if err = own.give(f); err != nil {
		return "", err
	}
	// After the chown, which may clear mode bits.
	if err = f.Chmod(mode); err != nil {
		return "", err
	}
	if err = f.Sync(); err != nil {
		return "", err
	}
	return f.Name(), f.Close()
}

// syncDir makes a rename in dir durable. Directories cannot be synced
// everywhere (Windows); the file is in place either way.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// Diff returns the change as a unified diff ("" when nothing changed).
func (c *Change) Diff() string {
	if !c.Changed {
		return ""
	}
	from := c.File
	if !c.Existed {
		from = "/dev/null"
	}
	return unified(from, c.File, c.Old, c.New)
}

// unified renders a unified diff of a and b with three lines of context.
// mcpgen's edits touch one stretch of a file, so the lines between the
// common head and the common tail form a single hunk.
func unified(fromName, toName string, a, b []byte) string {
	al, bl := lines(a), lines(b)
	head := 0
	for head < len(al) && head < len(bl) && al[head] == bl[head] {
		head++
	}
	tail := 0
	for tail < len(al)-head && tail < len(bl)-head && al[len(al)-1-tail] == bl[len(bl)-1-tail] {
		tail++
	}
	const context = 3
	start := max(0, head-context)
	aEnd := min(len(al), len(al)-tail+context)
	bEnd := min(len(bl), len(bl)-tail+context)
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", fromName, toName)
	fmt.Fprintf(&sb, "@@ -%s +%s @@\n", span(start, aEnd-start), span(start, bEnd-start))
	for _, l := range al[start:head] {
		sb.WriteString(" " + l)
	}
	for _, l := range al[head : len(al)-tail] {
		sb.WriteString("-" + l)
	}
	for _, l := range bl[head : len(bl)-tail] {
		sb.WriteString("+" + l)
	}
	for _, l := range al[len(al)-tail : aEnd] {
		sb.WriteString(" " + l)
	}
	return sb.String()
}

func span(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// lines splits b into lines that each end in "\n" (a missing final newline
// is marked as diff marks it).
func lines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	s := string(b)
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s+"\n\\ No newline at end of file\n")
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}
