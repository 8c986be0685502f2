// Command gendoc writes docs/lint.md from the lint rules:
//
//	go generate ./generator/lint
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/mcpgen/mcpgen/generator/lint"
)

func main() {
	out := flag.String("o", "docs/lint.md", "the file to write")
	flag.Parse()
	if err := os.WriteFile(*out, lint.Markdown(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gendoc:", err)
		os.Exit(1)
	}
}
