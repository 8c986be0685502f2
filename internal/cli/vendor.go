package cli

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// mcpgenCopyDir is where `mcpgen new` copies the mcpgen source checkout it
// uses, relative to the new project: inside the project, so that everything
// a build needs travels with it (a container image build sees only its
// context; a teammate or CI has no checkout at the path of yours).
const mcpgenCopyDir = "third_party/mcpgen"

// copyModule copies what a build of the module in src needs into dst: its
// go.mod and go.sum, its license, and for every package the Go files of
// every platform (tests left out) and the files it embeds. Test data,
// examples (modules of their own), npm packages and documentation stay
// behind.
func copyModule(ctx context.Context, src, dst string) error {
	list := exec.CommandContext(ctx, "go", "list", "-e", "-f",
		`{{range .GoFiles}}{{$.Dir}}/{{.}}{{"\n"}}{{end}}`+
			`{{range .IgnoredGoFiles}}{{$.Dir}}/{{.}}{{"\n"}}{{end}}`+
			`{{range .EmbedFiles}}{{$.Dir}}/{{.}}{{"\n"}}{{end}}`, "./...")
	list.Dir = src
	// Read-only: listing must never rewrite the checkout's go.mod; and
	// the checkout alone, not a go.work around it.
	list.Env = append(os.Environ(), "GOFLAGS=-mod=readonly", "GOWORK=off")
	var out, errOut bytes.Buffer
	list.Stdout, list.Stderr = &out, &errOut
	if err := list.Run(); err != nil {
		return fmt.Errorf("listing the packages of %s: %v\n%s", src, err, errOut.String())
	}
	files := []string{"go.mod", "go.sum", "LICENSE"}
	s := bufio.NewScanner(&out)
	for s.Scan() {
		rel, err := filepath.Rel(src, s.Text())
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		if strings.HasSuffix(rel, "_test.go") || strings.Contains(filepath.ToSlash(rel), "node_modules/") {
			continue
		}
		files = append(files, rel)
	}
	for _, rel := range files {
		b, err := os.ReadFile(filepath.Join(src, rel))
		if os.IsNotExist(err) && rel == "LICENSE" {
			continue
		}
		if err != nil {
			return err
		}
		p := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
