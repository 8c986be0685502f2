// Command weather is the connector the distribution tests bundle: one tool
// that reads the settings mcpgen.json declares from the environment.
package main

import (
	"os"

	"github.com/mcpgen/mcpgen"
)

func main() { os.Exit(mcpgen.Main(mcpgenApp())) }
