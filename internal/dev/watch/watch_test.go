package watch

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestClassify(t *testing.T) {
	for rel, want := range map[string]Kind{
		"main.go":                 Go,
		"internal/orders/db.go":   Go,
		"go.mod":                  Go,
		"go.sum":                  Go,
		"mcpgen.json":             Go,
		"sub/mcpgen.json":         None,
		"ui/card.tsx":             View,
		"ui/card/index.tsx":       View,
		"ui/card.css":             View,
		"ui/lib/format.ts":        View,
		"mcpgen_gen.go":           None,
		"mcpgen_views_gen.go":     None,
		"ui/mcpgen.d.ts":          None,
		"main.go~":                None,
		".main.go.swp":            None,
		"ui/.card.tsx.swp":        None,
		"4913":                    None,
		".#main.go":               None,
		"node_modules/react/x.js": None,
		".git/index":              None,
		"testdata/x.go":           None,
		"README.md":               None,
		"hello_test.go":           None,
		"ui/README.md":            None,
	} {
		if got := Classify(filepath.FromSlash(rel)); got != want {
			t.Errorf("Classify(%q) = %v, want %v", rel, got, want)
		}
	}
}

// TestWatcher drives the real watcher with file operations: a burst is one
// batch, a directory created later is watched, and editor droppings and
// generated files are ignored.
func TestWatcher(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, s string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module x\n")
	wa, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer wa.Close()
	// expect reads batches until it has seen exactly the files want (a
	// slow machine may split one save into two batches).
	expect := func(kind Kind, want ...string) {
		t.Helper()
		seen := map[string]bool{}
		for len(seen) < len(want) {
			select {
			case b := <-wa.Batches():
				if b.Kind != kind {
					t.Fatalf("batch %+v, want kind %v", b, kind)
				}
				for _, f := range b.Files {
					if !slices.Contains(want, f) {
						t.Fatalf("batch %+v has %s, want only %v", b, f, want)
					}
					seen[f] = true
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("no batch with %v", want)
			}
		}
	}

	// One save as editors do it: a temp file, a backup, the file itself.
	write("4913", "")
	write("main.go~", "old")
	write(".main.go.swp", "swap")
	write("mcpgen_gen.go", "package main")
	write("main.go", "package main")
	write("main.go", "package main\n")
	expect(Go, "main.go")

	// A new directory and a file in it, then a view.
	write("orders/orders.go", "package orders")
	expect(Go, "orders/orders.go")
	write("ui/card.tsx", "export default 1")
	expect(View, "ui/card.tsx")
	write("node_modules/react/index.js", "")
	write("ui/mcpgen.d.ts", "")
	write("main_test.go", "package main")
	select {
	case b := <-wa.Batches():
		t.Fatalf("unexpected batch %+v", b)
	case <-time.After(300 * time.Millisecond):
	}
}
