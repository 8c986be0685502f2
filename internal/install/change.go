package install

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Change is one edit of one configuration file, computed but not yet
// written.
type Change struct {
	// File is the configuration file (symbolic links resolved, so the file
	// a link points at is edited and the link stays).
	File string
	// Old and New are its contents before and after; Old is nil when the
	// file does not exist.
	Old, New []byte
	// Changed is false when New equals Old: writing does nothing.
	Changed bool
	// Existed is whether the file was there.
	Existed bool
	// Mode is the file's permissions: its own when it exists; for a new
	// file 0644, which the caller may tighten before Write (a user's own
	// configuration can hold secrets in env).
	Mode fs.FileMode
}

// Add computes the change that registers entry as the server name in file.
func Add(file string, s Servers, name string, entry any) (*Change, error) {
	c, err := read(file)
	if err != nil {
		return nil, err
	}
	c.New, c.Changed, err = s.Edit(c.Old, name, entry)
	if err != nil {
		return nil, fileError(c.File, err)
	}
	return c, nil
}

// Delete computes the change that removes the server name from file; a
// missing file or server is no change.
func Delete(file string, s Servers, name string) (*Change, error) {
	c, err := read(file)
	if err != nil {
		return nil, err
	}
	if !c.Existed {
		c.New = nil
		return c, nil
	}
	c.New, c.Changed, err = s.Remove(c.Old, name)
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
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	c := &Change{File: abs, Mode: 0o644}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return c, nil
	case err != nil:
		return nil, err
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("%s is not a regular file", abs)
	}
	c.Old, err = os.ReadFile(abs)
	if err != nil {
		return nil, err
	}
	c.Existed, c.Mode = true, fi.Mode().Perm()
	return c, nil
}

// fileError names the file (and the line and column) in an edit's error.
func fileError(file string, err error) error {
	var se *SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("%s:%d:%d: %s; the file was left as it is: fix it there and run again", file, se.Line, se.Column, se.Msg)
	}
	var sh *ShapeError
	if errors.As(err, &sh) {
		return fmt.Errorf("%s: %v; the file was left as it is", file, sh)
	}
	return fmt.Errorf("%s: %w", file, err)
}

// Backup returns the backup file Write keeps of File.
func (c *Change) Backup() string { return c.File + ".bak" }

// Write commits the change: it keeps the previous contents in Backup (one
// backup, replaced each time), then replaces File atomically (a temporary
// file in the same directory, synced, given File's mode, renamed over it)
// so a crash leaves the old file or the new, never half of one. It writes
// nothing when nothing changed. It refuses when the file changed since it
// was read.
func (c *Change) Write() error {
	if !c.Changed {
		return nil
	}
	now, err := os.ReadFile(c.File)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !c.Existed:
	case err != nil:
		return err
	case !c.Existed || !bytes.Equal(now, c.Old):
		return fmt.Errorf("%s changed while mcpgen was editing it; nothing was written: run again", c.File)
	}
	if err := os.MkdirAll(filepath.Dir(c.File), 0o755); err != nil {
		return err
	}
	if c.Existed {
		if err := writeFile(c.Backup(), c.Old, c.Mode); err != nil {
			return fmt.Errorf("writing the backup: %w", err)
		}
	}
	return writeFile(c.File, c.New, c.Mode)
}

// writeFile replaces name with data atomically and durably.
func writeFile(name string, data []byte, mode fs.FileMode) (err error) {
	dir := filepath.Dir(name)
	f, err := os.CreateTemp(dir, "."+filepath.Base(name)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(mode); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, name); err != nil {
		return err
	}
	// Make the rename itself durable. Directories cannot be synced
	// everywhere (Windows); the file is in place either way.
	if d, derr := os.Open(dir); derr == nil {
		d.Sync()
		d.Close()
	}
	return nil
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
