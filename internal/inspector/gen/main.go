// Command gen writes internal/inspector/index.html from the inspector's
// source in internal/inspector/app (run by `go generate ./internal/inspector`
// after scripts/setup.sh has installed app/node_modules).
package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mcpgen/mcpgen/internal/inspector/appbundle"
)

func main() {
	dir := appbundle.AppDir()
	doc, err := appbundle.Build(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "inspector:", err)
		os.Exit(1)
	}
	out := filepath.Join(dir, "..", "index.html")
	if old, err := os.ReadFile(out); err == nil && bytes.Equal(old, doc) {
		return
	}
	if err := os.WriteFile(out, doc, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "inspector:", err)
		os.Exit(1)
	}
	fmt.Printf("inspector: wrote %s (%d KiB)\n", out, len(doc)/1024)
}
