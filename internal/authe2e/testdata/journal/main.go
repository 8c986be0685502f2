// Command journal is the connector of mcpgen's OAuth end-to-end tests.
package main

import (
	"os"

	"github.com/mcpgen/mcpgen/runtime"
)

func main() { os.Exit(runtime.Main(mcpgenApp())) }
