// Command mcpgen scaffolds, generates, builds and serves MCP connectors
// written as annotated Go functions. See `mcpgen help`.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcpgen/mcpgen/internal/cli"
)

func main() {
	ctx, _ := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	os.Exit(cli.Run(ctx, os.Args, os.Stdout, os.Stderr))
}
