package pipeline

import "github.com/mcpgen/mcpgen/generator/ir"

// declarations returns the TypeScript declarations of the project's tools
// for ui/mcpgen.d.ts, or nil while no declaration generator is available.
func declarations(*ir.Project) []byte { return nil }
