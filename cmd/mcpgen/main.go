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
	// The first interrupt cancels ctx, so commands stop cleanly; restoring
	// the default handling then lets a second interrupt end mcpgen at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	context.AfterFunc(ctx, stop)
	os.Exit(cli.Run(ctx, os.Args, os.Stdout, os.Stderr))
}
