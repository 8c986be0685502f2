package dev

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// changeKind says what a changed file asks for.
type changeKind uint8

const (
	changeNone changeKind = 0
	changeView changeKind = 1 << iota // a view source under ui/: rebundle
	changeGo                          // Go source or module files: regenerate and rebuild
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

// batch is one debounced set of changes.
type batch struct {
	kind  changeKind
	files []string // relative to the project, sorted
}

// watcher watches a project tree and delivers debounced batches.
type watcher struct {
	dir string
	w   *fsnotify.Watcher
	out chan batch
	err chan error
}

func newWatcher(dir string) (*watcher, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	wa := &watcher{dir: dir, w: fw, out: make(chan batch, 4), err: make(chan error, 1)}
	if err := wa.addTree(dir); err != nil {
		fw.Close()
		return nil, err
	}
	go wa.run()
	return wa, nil
}

func (wa *watcher) Close() error { return wa.w.Close() }

// skipDir reports whether a directory is never watched: VCS data, npm
// packages, and (as the go tool does) directories starting with . or _.
func skipDir(name string) bool {
	return name == "node_modules" || name == "testdata" ||
		(len(name) > 1 && (name[0] == '.' || name[0] == '_'))
}

// addTree watches dir and every directory below it.
func (wa *watcher) addTree(dir string) error {
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
		if p != dir && skipDir(d.Name()) {
			return filepath.SkipDir
		}
		return wa.w.Add(p)
	})
}

// classify says what a change to the file at rel (slash-separated,
// relative to the project) asks for.
func classify(rel string) changeKind {
	base := filepath.Base(rel)
	switch {
	case base == "4913", strings.HasPrefix(base, ".#"), strings.HasPrefix(base, "."),
		strings.HasSuffix(base, "~"), strings.HasSuffix(base, ".swp"),
		strings.HasSuffix(base, ".swx"), strings.HasSuffix(base, ".tmp"):
		return changeNone // editor temp files
	case base == "mcpgen_gen.go", base == "mcpgen_views_gen.go", rel == "ui/mcpgen.d.ts":
		return changeNone // written by mcpgen itself
	}
	for _, part := range strings.Split(filepath.ToSlash(filepath.Dir(rel)), "/") {
		if part != "." && skipDir(part) {
			return changeNone
		}
	}
	if strings.HasPrefix(filepath.ToSlash(rel), "ui/") {
		switch filepath.Ext(base) {
		case ".tsx", ".ts", ".jsx", ".js", ".css", ".json", ".svg", ".png":
			return changeView
		}
		return changeNone
	}
	switch {
	case strings.HasSuffix(base, "_test.go"):
		return changeNone // tests are not part of the connector binary
	case strings.HasSuffix(base, ".go"), base == "go.mod", base == "go.sum", base == "go.work",
		filepath.ToSlash(rel) == "mcpgen.json": // the project file: the server card's title, the lint findings
		return changeGo
	}
	return changeNone
}

func (wa *watcher) run() {
	defer close(wa.out)
	var (
		pending = map[string]changeKind{}
		timer   *time.Timer
		fire    <-chan time.Time
		kinds   changeKind
		first   time.Time // first event of the current burst
	)
	arm := func() {
		now := time.Now()
		if fire == nil {
			first = now
		}
		quiet, limit := viewQuiet, viewMaxWait
		if kinds&changeGo != 0 {
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
					if !skipDir(fi.Name()) {
						_ = wa.addTree(ev.Name)
						// Files may have landed before the watch was added.
						_ = filepath.WalkDir(ev.Name, func(p string, d fs.DirEntry, err error) error {
							if err == nil && !d.IsDir() {
								if rel, err := filepath.Rel(wa.dir, p); err == nil {
									if k := classify(rel); k != changeNone {
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
			k := classify(rel)
			if k == changeNone {
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
			b := batch{kind: kinds}
			for f := range pending {
				b.files = append(b.files, filepath.ToSlash(f))
			}
			sort.Strings(b.files)
			pending, kinds = map[string]changeKind{}, 0
			wa.out <- b
		}
	}
}
