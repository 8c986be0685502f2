// Package watch turns file-system events under a connector project into
// debounced batches of changed files, each classified by what it asks the
// dev loop for: a view rebundle or a Go rebuild.
package watch

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Kind says what a changed file asks for.
type Kind uint8

const (
	None Kind = 0
	View Kind = 1 << iota // a view source under ui/: rebundle
	Go                    // Go source or module files: regenerate and rebuild
)

// Debouncing: a save arrives as a burst of events (truncate, write, chmod,
// an editor's rename of a temp file), and a formatter or a branch switch
// adds more. A burst ends after a quiet window with no event, or at the
// latest maxWait after its first event. Views are cheap to rebuild, so their
// window is short (an editor's burst lasts a few milliseconds; the view
// latency budget is 100 ms); Go builds are expensive, so they wait longer
// for a formatter's rewrite to land.
const (
	viewQuiet   = 20 * time.Millisecond
	viewMaxWait = 50 * time.Millisecond
	goQuiet     = 100 * time.Millisecond
	goMaxWait   = 400 * time.Millisecond
)

// Batch is one debounced set of changes.
type Batch struct {
	Kind  Kind
	Files []string // relative to the project, slash-separated, sorted
}

// Merge returns a with the changes of b added: both kinds, and b's files
// not already in a.
func Merge(a, b Batch) Batch {
	a.Kind |= b.Kind
	seen := map[string]bool{}
	for _, f := range a.Files {
		seen[f] = true
	}
	for _, f := range b.Files {
		if !seen[f] {
			a.Files = append(a.Files, f)
		}
	}
	return a
}

// Watcher watches a project tree and delivers debounced batches.
type Watcher struct {
	dir string
	w   *fsnotify.Watcher
	out chan Batch
	err chan error
}

// New watches dir and every directory below it that is not skipped (see
// SkipDir), including directories created later.
func New(dir string) (*Watcher, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	wa := &Watcher{dir: dir, w: fw, out: make(chan Batch, 4), err: make(chan error, 1)}
	if err := wa.addTree(dir); err != nil {
		fw.Close()
		return nil, err
	}
	go wa.run()
	return wa, nil
}

// Batches delivers the debounced batches; it is closed when the watcher
// stops.
func (wa *Watcher) Batches() <-chan Batch { return wa.out }

// Errors delivers the file-system watcher's errors, dropping those that
// arrive while one is waiting to be read.
func (wa *Watcher) Errors() <-chan error { return wa.err }

// Close stops watching.
func (wa *Watcher) Close() error { return wa.w.Close() }

// SkipDir reports whether a directory is never watched: VCS data, npm
// packages, and (as the go tool does) directories starting with . or _.
func SkipDir(name string) bool {
	return name == "node_modules" || name == "testdata" ||
		(len(name) > 1 && (name[0] == '.' || name[0] == '_'))
}

// addTree watches dir and every directory below it.
func (wa *Watcher) addTree(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil // vanished while walking
		}
		if !d.IsDir() {
			return nil
		}
		if p != dir && SkipDir(d.Name()) {
			return filepath.SkipDir
		}
		return wa.w.Add(p)
	})
}

// Classify says what a change to the file at rel (slash-separated,
// relative to the project) asks for.
func Classify(rel string) Kind {
	base := filepath.Base(rel)
	switch {
	case base == "4913", strings.HasPrefix(base, ".#"), strings.HasPrefix(base, "."),
		strings.HasSuffix(base, "~"), strings.HasSuffix(base, ".swp"),
		strings.HasSuffix(base, ".swx"), strings.HasSuffix(base, ".tmp"):
		return None // editor temp files
	case base == "mcpgen_gen.go", base == "mcpgen_views_gen.go", rel == "ui/mcpgen.d.ts":
		return None // written by mcpgen itself
	}
	for _, part := range strings.Split(filepath.ToSlash(filepath.Dir(rel)), "/") {
		if part != "." && SkipDir(part) {
			return None
		}
	}
	if strings.HasPrefix(filepath.ToSlash(rel), "ui/") {
		switch filepath.Ext(base) {
		case ".tsx", ".ts", ".jsx", ".js", ".css", ".json", ".svg", ".png":
			return View
		}
		return None
	}
	switch {
	case strings.HasSuffix(base, "_test.go"):
		return None // tests are not part of the connector binary
	case strings.HasSuffix(base, ".go"), base == "go.mod", base == "go.sum", base == "go.work",
		filepath.ToSlash(rel) == "mcpgen.json": // the project file: the server card's title, the lint findings
		return Go
	}
	return None
}

func (wa *Watcher) run() {
	defer close(wa.out)
	var (
		pending = map[string]Kind{}
		timer   *time.Timer
		fire    <-chan time.Time
		kinds   Kind
		first   time.Time // first event of the current burst
	)
	arm := func() {
		now := time.Now()
		if fire == nil {
			first = now
		}
		quiet, limit := viewQuiet, viewMaxWait
		if kinds&Go != 0 {
			quiet, limit = goQuiet, goMaxWait
		}
		d := quiet
		if left := first.Add(limit).Sub(now); left < d {
			d = max(left, 0)
		}
		if timer == nil {
			timer = time.NewTimer(d)
		} else {
			timer.Stop()
			timer.Reset(d)
		}
		fire = timer.C
	}
	for {
		select {
		case ev, ok := <-wa.w.Events:
			if !ok {
				return
			}
			if ev.Has(fsnotify.Create) {
				if fi, err := os.Stat(ev.Name); err == nil && fi.IsDir() {
					if !SkipDir(fi.Name()) {
						_ = wa.addTree(ev.Name)
						// Files may have landed before the watch was added.
						_ = filepath.WalkDir(ev.Name, func(p string, d fs.DirEntry, err error) error {
							if err == nil && !d.IsDir() {
								if rel, err := filepath.Rel(wa.dir, p); err == nil {
									if k := Classify(rel); k != None {
										pending[rel] |= k
										kinds |= k
									}
								}
							}
							return nil
						})
						if kinds != 0 {
							arm()
						}
					}
					continue
				}
			}
			if ev.Op == fsnotify.Chmod {
				continue
			}
			rel, err := filepath.Rel(wa.dir, ev.Name)
			if err != nil {
				continue
			}
			k := Classify(rel)
			if k == None {
				continue
			}
			pending[rel] |= k
			kinds |= k
			arm()
		case err, ok := <-wa.w.Errors:
			if !ok {
				return
			}
			select {
			case wa.err <- err:
			default:
			}
		case <-fire:
			fire = nil
			b := Batch{Kind: kinds}
			for f := range pending {
				b.Files = append(b.Files, filepath.ToSlash(f))
			}
			sort.Strings(b.Files)
			pending, kinds = map[string]Kind{}, 0
			wa.out <- b
		}
	}
}
