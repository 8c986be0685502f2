// Command journal is the connector of mcpgen's OAuth end-to-end tests.
package main

import (
	"os"

	"github.com/mcpgen/mcpgen"
)

func main() { os.Exit(mcpgen.Main(mcpgenApp())) }
