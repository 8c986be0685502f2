// Package ui holds the TypeScript source of the virtual module "mcpgen/ui"
// that views import, embedded in the mcpgen binary so a project installs
// nothing beyond React. The bundler serves it to esbuild through a plugin;
// its declaration file is written into a project's ui/ directory so editors
// and tsc type-check views against it.
//
// The module speaks the MCP Apps postMessage JSON-RPC protocol (SEP-1865)
// itself, without zod or an MCP client, which keeps a view's bundle near the
// size of React.
package ui

import _ "embed"

// Source is the TypeScript source of "mcpgen/ui": the bridge to the host and
// the React hooks views call.
//
//go:embed index.ts
var Source string

// Mount is the TypeScript source of the module every generated view entry
// imports: it connects the bridge and renders the view's default export into
// #root with react-dom/client.
//
//go:embed mount.ts
var Mount string

// Declarations is the ambient declaration of "mcpgen/ui"
// (declare module "mcpgen/ui" { ... }) for editors and tsc.
//
//go:embed mcpgen-ui.d.ts
var Declarations string
