package cli

import (
	"net"

	ucli "github.com/urfave/cli/v2"

	"github.com/mcpgen/mcpgen/internal/dev"
)

func devCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "dev",
		Usage:     "serve the connector and rebuild it on every change, keeping host sessions alive",
		ArgsUsage: "[DIR] [--addr HOST:PORT]",
		Description: "Serves the connector in DIR (default: the current directory) over Streamable HTTP at\n" +
			"http://HOST:PORT/mcp, watches its Go files and views, and on every change regenerates,\n" +
			"rebuilds and swaps the running connector without dropping the host's session. A compile\n" +
			"error is printed at file:line:col and the last good build keeps serving. The inspector\n" +
			"at http://HOST:PORT/ calls the tools and shows the views as Claude and ChatGPT would.\n\n" +
			"Examples:\n" +
			"  mcpgen dev                                serve the current directory at 127.0.0.1:8080\n" +
			"  mcpgen dev ./acme --addr 127.0.0.1:9000   another project and address\n" +
			"  mcpgen dev --allow-host abc.trycloudflare.com\n" +
			"                                            also admit requests through a tunnel with that name",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "addr", Value: "127.0.0.1:8080", Usage: "listen on `HOST:PORT`"},
			&ucli.StringSliceFlag{
				Name:  "allow-host",
				Usage: "also accept requests whose Host or Origin is `NAME` (a tunnel's public host name; *.example.com for subdomains); repeatable, or $MCPGEN_DEV_ALLOW_HOST, comma-separated",
			},
		},
		Action: runDev,
	}
}

func runDev(c *ucli.Context) error {
	dir, err := projectDir(c)
	if err != nil {
		return err
	}
	addr := c.String("addr")
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return usagef("--addr %q: want HOST:PORT, e.g. 127.0.0.1:8080", addr)
	}
	err = dev.Run(c.Context, dev.Options{
		Dir:        dir,
		Addr:       addr,
		AllowHosts: c.StringSlice("allow-host"),
		Stdout:     c.App.Writer,
		Stderr:     c.App.ErrWriter,
	})
	if err != nil && c.Context.Err() != nil {
		return nil // interrupted: the normal way to stop the dev server
	}
	return err
}
