package parse

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mcpgen/mcpgen/generator/directive"
	"github.com/mcpgen/mcpgen/generator/ir"
)

// DiscoverViews lists the views of the module at dir: every ui/NAME.tsx and
// ui/NAME/index.tsx, sorted by name. Only names and files are filled in;
// bundling them is the bundler's job.
func DiscoverViews(dir string) []ir.View {
	entries, err := os.ReadDir(filepath.Join(dir, "ui"))
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	var views []ir.View
	for _, e := range entries {
		n := e.Name()
		if strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") {
			continue
		}
		var name, file string
		if e.IsDir() {
			if _, err := os.Stat(filepath.Join(dir, "ui", n, "index.tsx")); err != nil {
				continue
			}
			name, file = n, "ui/"+n+"/index.tsx"
		} else if base, ok := strings.CutSuffix(n, ".tsx"); ok {
			name, file = base, "ui/"+n
		} else {
			continue
		}
		if !directive.ViewName(name) || seen[name] {
			continue
		}
		seen[name] = true
		views = append(views, ir.View{Name: name, File: file})
	}
	sort.Slice(views, func(i, j int) bool { return views[i].Name < views[j].Name })
	return views
}
