package mcpgen

import "github.com/mcpgen/mcpgen/connector"

// App is a connector's tools, resources, prompts and views; the generated
// mcpgenApp() in mcpgen_gen.go returns one.
type App = connector.App

// Main runs a connector binary: a connector's main.go is
//
//	func main() { os.Exit(mcpgen.Main(mcpgenApp())) }
//
// It parses the command line (every flag also reads an MCPGEN_ variable;
// see --help), serves until SIGINT or SIGTERM, drains, and returns the exit
// code. Package connector has Run and NewServer for embedding.
func Main(app *App, opts ...connector.Option) int { return connector.Main(app, opts...) }
