package cli

import (
	"fmt"
	"path/filepath"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/mcpgen/mcpgen/internal/pipeline"
)

func buildCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "build",
		Usage:     "generate, bundle the views and build one self-contained binary",
		ArgsUsage: "[DIR] [-o FILE]",
		Description: "Runs `mcpgen generate` on the module in DIR (default: the current directory), with\n" +
			"minified view bundles, then `go build` there. The binary needs no files beside itself:\n" +
			"tools, schemas, views and the runtime are inside. It is static (CGO_ENABLED=0, so it\n" +
			"runs on any Linux and in a scratch or distroless image) and trimmed (-trimpath,\n" +
			"-ldflags \"-s -w\"). Its --version prints --version V, or else the version the Go\n" +
			"toolchain records from version control. Compiler errors are printed as the Go\n" +
			"toolchain prints them (file:line:col). When the project has a tsconfig.json, its\n" +
			"TypeScript compiler type-checks the views too, and type errors fail the build\n" +
			"(--no-typecheck skips that).\n\n" +
			"Examples:\n" +
			"  mcpgen build                       build ./<dirname> from the current directory\n" +
			"  mcpgen build ./acme -o bin/acme    build the connector in ./acme into bin/acme\n" +
			"  mcpgen build --version v1.2.0      stamp a release version\n" +
			"  mcpgen build --os darwin --arch arm64 -o acme-mac    for a Mac with Apple silicon\n" +
			"  mcpgen build --os windows          ./<dirname>.exe for Windows (GOOS/GOARCH work too)\n" +
			"  mcpgen build --mcpb --version v1.2.0              ./<dirname>.mcpb, an MCP Bundle for Claude Desktop\n" +
			"  mcpgen build --mcpb --server-json --version v1.2.0    the bundle and server.json for the MCP Registry\n\n" +
			"Distribute it (docs/distribute.md): --mcpb builds a binary for every platform\n" +
			"(macOS arm64 and amd64, Linux amd64 and arm64, Windows amd64) into one .mcpb that\n" +
			"users double-click; its name, description, author, icon and the settings users fill\n" +
			"in (API keys ...) come from mcpgen.json. --server-json writes DIR/server.json, the\n" +
			"MCP Registry's entry, from the same file.\n\n" +
			"Run the result:\n" +
			"  bin/acme                           Streamable HTTP at http://127.0.0.1:8080/mcp\n" +
			"  bin/acme --addr 127.0.0.1:9000     another address\n" +
			"  bin/acme --stdio                   JSON-RPC over stdin/stdout, for hosts that spawn it",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the binary to `FILE` (default: DIR/<name of DIR>, .exe for Windows)"},
			&ucli.BoolFlag{Name: "no-typecheck", Usage: "do not type-check the views (ui/) with the project's TypeScript compiler"},
			&ucli.StringFlag{Name: "version", Usage: "stamp `VERSION` (such as v1.2.0) into the binary (default: from version control)"},
			&ucli.StringFlag{Name: "os", Usage: "build for operating system `GOOS` (linux, darwin, windows ...; default: $GOOS or this one)"},
			&ucli.StringFlag{Name: "arch", Usage: "build for architecture `GOARCH` (amd64, arm64 ...; default: $GOARCH or this one)"},
			&ucli.BoolFlag{Name: "mcpb", Usage: "write an MCP Bundle for Claude Desktop, a binary for every platform inside (-o: the .mcpb; default DIR/<name of DIR>.mcpb)"},
			&ucli.BoolFlag{Name: "server-json", Usage: "write DIR/server.json for the MCP Registry (with --mcpb it carries the bundle's SHA-256)"},
			&ucli.StringFlag{Name: "platforms", Usage: "with --mcpb, only these `OS/ARCH,...` (default: " + platformList() + ")"},
		},
		Action: runBuild,
	}
}

func runBuild(c *ucli.Context) error {
	dir, err := projectDir(c)
	if err != nil {
		return err
	}
	out := c.String("output")
	if out != "" {
		// -o is relative to where mcpgen runs, not to DIR. A trailing
		// slash (a directory to put the binary in) survives.
		dirOnly := strings.HasSuffix(out, "/") || strings.HasSuffix(out, string(filepath.Separator))
		if out, err = filepath.Abs(out); err != nil {
			return err
		}
		if dirOnly {
			out += string(filepath.Separator)
		}
	}
	if _, _, err := pipeline.BuildCommand(c.String("version"), "", ""); err != nil {
		return usagef("%v", err)
	}
	if c.Bool("mcpb") || c.Bool("server-json") {
		return runDistribute(c, dir, out)
	}
	if c.IsSet("platforms") {
		return usagef("--platforms goes with --mcpb")
	}
	stdout, stderr := c.App.Writer, c.App.ErrWriter
	rep, err := pipeline.Build(c.Context, pipeline.Options{
		Dir: dir, Minify: true, Stdout: stdout, Stderr: stderr,
		TypeCheck: !c.Bool("no-typecheck"),
		Version:   c.String("version"), GOOS: c.String("os"), GOARCH: c.String("arch"),
	}, out)
	if rep != nil && err == nil {
		printDiagnostics(stderr, rep.Dir, rep.Diagnostics)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "built %s%s\n", rep.Binary, contents(rep))
	return nil
}

// contents summarises what a connector serves: ": 5 tools, 1 view".
func contents(rep *pipeline.Report) string {
	p := rep.Project
	if p == nil {
		return ""
	}
	var parts []string
	for _, c := range []struct {
		n    int
		what string
	}{{len(p.Tools), "tool"}, {len(p.Resources), "resource"}, {len(p.Prompts), "prompt"}, {len(rep.Views), "view"}} {
		if c.n > 0 {
			parts = append(parts, plural(c.n, c.what))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return ": " + strings.Join(parts, ", ")
}
