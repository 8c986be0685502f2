//go:build mcpgendeps

// Package deps pins the project's direct dependencies while the packages that
// use them are being written. It is removed once every dependency has a user.
package deps

import (
	_ "github.com/dave/jennifer/jen"
	_ "github.com/evanw/esbuild/pkg/api"
	_ "github.com/fsnotify/fsnotify"
	_ "github.com/google/jsonschema-go/jsonschema"
	_ "github.com/modelcontextprotocol/go-sdk/mcp"
	_ "github.com/urfave/cli/v2"
	_ "github.com/yosida95/uritemplate/v3"
	_ "golang.org/x/tools/go/packages"
	_ "golang.org/x/tools/txtar"
)
