// Command sales is an MCP connector that analyses the sales of a coffee
// equipment shop (two years of orders in four regions, bundled with the
// binary): totals, a revenue series by week, month or quarter, the best
// selling products and a drill-down into any one of them, shown in an
// interactive dashboard view.
//
//	sales                   serve Streamable HTTP at http://127.0.0.1:8080/mcp
//	sales --stdio           serve JSON-RPC on stdin/stdout
package main

import (
	"os"

	"github.com/mcpgen/mcpgen"
)

//go:generate go tool mcpgen generate

func main() {
	os.Exit(mcpgen.Main(mcpgenApp()))
}
