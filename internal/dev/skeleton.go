package dev

import (
	"crypto/sha256"
	"encoding/hex"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/internal/dev/watch"
)

// skeletons fingerprints what the generator reads from a module: its Go
// files with every function body cut out, go.mod, go.sum, mcpgen.json and
// the names of its views. Generated code depends on directives, doc comments, signatures
// and types, never on what a function does, so when the fingerprint is
// the one of the last successful generation, generating again would write
// the same files and only `go build` is needed. That is the commonest edit
// (a handler's body), and generating type-checks the whole program.
type skeletons struct {
	files map[string]skeletonFile // by absolute path
}

type skeletonFile struct {
	mod  time.Time
	size int64
	sum  string
}

// fingerprint returns the module's fingerprint.
func (s *skeletons) fingerprint(dir string) (string, error) {
	if s.files == nil {
		s.files = map[string]skeletonFile{}
	}
	var lines []string
	seen := map[string]bool{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != dir && (watch.SkipDir(name) || exists(filepath.Join(p, "go.mod"))) {
				return filepath.SkipDir // not watched, or another module
			}
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case rel == "go.mod" || rel == "go.sum" || rel == "go.work" || rel == "mcpgen.json":
		case strings.HasPrefix(rel, "ui/"):
			if isViewEntry(rel) {
				lines = append(lines, "view "+rel)
			}
			return nil
		case strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") && watch.Classify(rel) == watch.Go:
		default:
			return nil
		}
		sum, err := s.sum(p, rel)
		if err != nil {
			return err
		}
		seen[p] = true
		lines = append(lines, rel+" "+sum)
		return nil
	})
	if err != nil {
		return "", err
	}
	for p := range s.files {
		if !seen[p] {
			delete(s.files, p)
		}
	}
	sort.Strings(lines)
	h := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return hex.EncodeToString(h[:]), nil
}

// sum returns the hash of one file's skeleton, reusing the last one while
// the file's size and modification time are unchanged.
func (s *skeletons) sum(p, rel string) (string, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return "", err
	}
	if f, ok := s.files[p]; ok && f.mod.Equal(fi.ModTime()) && f.size == fi.Size() {
		return f.sum, nil
	}
	src, err := os.ReadFile(p)
	if err != nil {
		return "", err
	}
	if strings.HasSuffix(rel, ".go") {
		src = skeleton(src)
	}
	h := sha256.Sum256(src)
	sum := hex.EncodeToString(h[:])
	s.files[p] = skeletonFile{mod: fi.ModTime(), size: fi.Size(), sum: sum}
	return sum, nil
}

// skeleton returns src without the insides of its function bodies. A file
// that does not parse is returned whole: the generator will report it.
func skeleton(src []byte) []byte {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.SkipObjectResolution)
	if err != nil {
		return src
	}
	var out []byte
	last := 0
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		open := fset.Position(fd.Body.Lbrace).Offset + 1
		close := fset.Position(fd.Body.Rbrace).Offset
		if open < last || close < open || close > len(src) {
			return src
		}
		out = append(out, src[last:open]...)
		last = close
	}
	return append(out, src[last:]...)
}

// isViewEntry reports whether rel (under ui/) names a view:
// ui/NAME.tsx or ui/NAME/index.tsx.
func isViewEntry(rel string) bool {
	parts := strings.Split(rel, "/")
	return (len(parts) == 2 && strings.HasSuffix(parts[1], ".tsx")) ||
		(len(parts) == 3 && parts[2] == "index.tsx")
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
