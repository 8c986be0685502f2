package bundler

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/mcpgen/mcpgen/generator/diag"
)

// Entry is one view found under ui/.
type Entry struct {
	Name string // the view name: NAME of ui/NAME.tsx or ui/NAME/index.tsx
	File string // the source file, relative to the module root, with forward slashes
}

var viewName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)

// Discover lists the views of the module rooted at dir: every ui/NAME.tsx and
// every ui/NAME/index.tsx, sorted by name; names starting with "." or "_"
// are skipped, so helpers can sit beside the views. A project without a ui directory
// has no views. Problems (two files for one name, a name that cannot be a
// URI segment) are returned as a *diag.ListError.
func Discover(dir string) ([]Entry, error) {
	uiDir := filepath.Join(dir, "ui")
	des, err := os.ReadDir(uiDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var (
		entries []Entry
		diags   diag.List
		seen    = map[string]string{}
	)
	add := func(name, file string) {
		abs := filepath.Join(dir, filepath.FromSlash(file))
		if !viewName.MatchString(name) {
			diags.Errorf(diag.Pos{File: abs, Line: 1, Col: 1}, "bad-view-name", hintBadViewName, msgBadViewName, file, name)
			return
		}
		if prev, ok := seen[name]; ok {
			diags.Errorf(diag.Pos{File: abs, Line: 1, Col: 1}, "duplicate-view", hintDuplicateView, msgDuplicateView, name, prev, file)
			return
		}
		seen[name] = file
		entries = append(entries, Entry{Name: name, File: file})
	}
	for _, de := range des {
		n := de.Name()
		if strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") {
			continue // ui/_shared.tsx, ui/_lib/: helpers, not views
		}
		if de.IsDir() {
			if _, err := os.Stat(filepath.Join(uiDir, n, "index.tsx")); err == nil {
				add(n, "ui/"+n+"/index.tsx")
			}
			continue
		}
		if strings.HasSuffix(n, ".tsx") && !strings.HasSuffix(n, ".d.tsx") {
			add(strings.TrimSuffix(n, ".tsx"), "ui/"+n)
		}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	if err := diags.Err(dir); err != nil {
		return entries, err
	}
	return entries, nil
}
