package cli

import (
	"net"
	"os"
	"strings"

	"github.com/mcpgen/mcpgen/connector/authserver"

	ucli "github.com/urfave/cli/v2"

	"github.com/mcpgen/mcpgen/connector"
	"github.com/mcpgen/mcpgen/connector/oauth"
	"github.com/mcpgen/mcpgen/internal/authgate"
	"github.com/mcpgen/mcpgen/internal/cmdline"
	"github.com/mcpgen/mcpgen/internal/dev"
	"github.com/mcpgen/mcpgen/internal/ratespec"
)

func devCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "dev",
		Usage:     "serve the connector and rebuild it on every change, keeping host sessions alive",
		ArgsUsage: "[DIR] [--addr HOST:PORT] [--stdio]",
		Description: "Serves the connector in DIR (default: the current directory) over Streamable HTTP at\n" +
			"http://HOST:PORT/mcp, watches its Go files and views, and on every change regenerates,\n" +
			"rebuilds and swaps the running connector without dropping the host's session. A compile\n" +
			"error is printed at file:line:col and the last good build keeps serving. The inspector\n" +
			"at http://HOST:PORT/ calls the tools and shows the views as Claude and ChatGPT would.\n\n" +
			"Examples:\n" +
			"  mcpgen dev                                serve the current directory at 127.0.0.1:8080\n" +
			"  mcpgen dev ./acme --addr 127.0.0.1:9000   another project and address\n" +
			"  mcpgen dev --allow-host abc.trycloudflare.com\n" +
			"                                            also admit requests through a tunnel with that name\n" +
			"  mcpgen dev --stdio ./acme                 for a host that starts its servers itself\n" +
			"                                            (mcpgen install claude-desktop --dev writes this)\n" +
			"  mcpgen dev --auth-issuer https://tenant.example.com/\n" +
			"                                            require the bearer tokens a built connector would\n" +
			"                                            (see docs/auth.md); handlers get mcpgen.Auth(ctx)",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "addr", Value: "127.0.0.1:8080", Usage: "listen on `HOST:PORT` (with --stdio: only when given)"},
			&ucli.BoolFlag{Name: "stdio", Usage: "serve the host over stdin/stdout (JSON-RPC only; progress and errors go to stderr); exits when stdin closes"},
			&ucli.StringSliceFlag{
				Name:  "allow-host",
				Usage: "also accept requests whose Host or Origin is `NAME` (a tunnel's public host name; *.example.com for subdomains); repeatable, or $MCPGEN_DEV_ALLOW_HOST, comma-separated",
			},
			&ucli.StringFlag{Name: "auth-issuer", EnvVars: []string{"MCPGEN_AUTH_ISSUER"}, Usage: "accept only bearer tokens from the authorization server `URL`, as a built connector does"},
			&ucli.StringFlag{Name: "auth-audience", EnvVars: []string{"MCPGEN_AUTH_AUDIENCE"}, Usage: "require `AUD` in the tokens' aud claim instead of the public URL + /mcp"},
			&ucli.StringFlag{Name: "auth-introspection", EnvVars: []string{"MCPGEN_AUTH_INTROSPECTION"}, Usage: "verify opaque tokens at this RFC 7662 `URL` ($MCPGEN_AUTH_CLIENT_ID, $MCPGEN_AUTH_CLIENT_SECRET)"},
			&ucli.StringFlag{Name: "auth-introspection-limit", EnvVars: []string{"MCPGEN_AUTH_INTROSPECTION_LIMIT"},
				Usage: "ask the introspection endpoint about new tokens at most `N/DURATION` times in all (default " + ratespec.Rate(oauth.DefaultIntrospectionLimit).String() + "); over it, 503"},
			&ucli.StringFlag{Name: "auth-introspection-caller-limit", EnvVars: []string{"MCPGEN_AUTH_INTROSPECTION_CALLER_LIMIT"},
				Usage: "ask the introspection endpoint about new tokens from one client address at most `N/DURATION` times (default " + ratespec.Rate(oauth.DefaultIntrospectionCallerLimit).String() + "); over it, 429"},
			&ucli.StringFlag{Name: "auth-scopes", EnvVars: []string{"MCPGEN_AUTH_SCOPES"}, Usage: "require these space-separated `SCOPES` on every request"},
			&ucli.StringFlag{Name: "auth-upstream", EnvVars: []string{"MCPGEN_AUTH_UPSTREAM"}, Usage: "be the OAuth authorization server in front of the identity `PROVIDER` (github, google, entra:TENANT or an OpenID issuer URL), as a built connector does; register PUBLIC_URL/oauth/callback there"},
			&ucli.StringFlag{Name: "auth-client-id", EnvVars: []string{"MCPGEN_AUTH_CLIENT_ID"}, Usage: "the connector's OAuth client `ID` at the --auth-upstream provider"},
			&ucli.StringFlag{Name: "auth-client-secret", EnvVars: []string{"MCPGEN_AUTH_CLIENT_SECRET"}, Usage: "that client's `SECRET`, or @FILE"},
			&ucli.StringFlag{Name: "auth-upstream-scopes", EnvVars: []string{"MCPGEN_AUTH_UPSTREAM_SCOPES"}, Usage: "ask the provider for these space-separated `SCOPES` instead of the preset's"},
			&ucli.StringFlag{Name: "public-url", EnvVars: []string{"MCPGEN_PUBLIC_URL"}, Usage: "the `URL` hosts reach the dev server at (a tunnel's); names the OAuth resource (default: the --addr URL)"},
			&ucli.StringFlag{Name: "rate-limit", EnvVars: []string{"MCPGEN_RATE_LIMIT"}, Usage: "allow each caller at most `N/DURATION` tool calls, such as 120/1m"},
			&ucli.BoolFlag{Name: "no-typecheck", Usage: "do not type-check the views (ui/) in the background with the project's TypeScript compiler"},
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
	a, err := devAuth(c)
	if err != nil {
		return err
	}
	up, err := devAuthUpstream(c, a != nil)
	if err != nil {
		return err
	}
	var stdio *dev.Stdio
	if c.Bool("stdio") {
		stdio = &dev.Stdio{In: c.App.Reader, Out: c.App.Writer}
		if !c.IsSet("addr") {
			if a != nil || up != nil {
				return usagef("--auth-* protect the HTTP front; with --stdio, give --addr to serve one")
			}
			addr = "" // a second dev server must not need the port
		}
	}
	err = dev.Run(c.Context, dev.Options{
		Dir:          dir,
		Addr:         addr,
		Stdio:        stdio,
		AllowHosts:   c.StringSlice("allow-host"),
		Auth:         a,
		AuthUpstream: up,
		PublicURL:    c.String("public-url"),
		RateLimit:    c.String("rate-limit"),
		NoTypeCheck:  c.Bool("no-typecheck"),
		Stdout:       c.App.Writer,
		Stderr:       c.App.ErrWriter,
	})
	if err != nil && c.Context.Err() != nil {
		return nil // interrupted: the normal way to stop the dev server
	}
	return err
}

// devAuth reads the auth flags of mcpgen dev: the same as a connector
// binary's, checked the same way (an auth flag without --auth-issuer is a
// mistake, not "no auth").
func devAuth(c *ucli.Context) (*authgate.Auth, error) {
	if c.String("rate-limit") != "" {
		if _, err := ratespec.ParseRate(c.String("rate-limit")); err != nil {
			return nil, usagef("--rate-limit: %v", err)
		}
	}
	issuer := c.String("auth-issuer")
	if issuer == "" {
		for _, f := range []string{"auth-audience", "auth-introspection", "auth-scopes", "auth-introspection-limit", "auth-introspection-caller-limit"} {
			if c.String(f) != "" {
				return nil, usagef("--%s needs --auth-issuer (the authorization server whose tokens are accepted)", f)
			}
		}
		return nil, nil
	}
	a := &authgate.Auth{
		Issuer:           issuer,
		Audience:         c.String("auth-audience"),
		IntrospectionURL: c.String("auth-introspection"),
		Scopes:           strings.Fields(c.String("auth-scopes")),
		ClientID:         os.Getenv("MCPGEN_AUTH_CLIENT_ID"),
		ClientSecret:     os.Getenv("MCPGEN_AUTH_CLIENT_SECRET"),
	}
	// The bounds on introspection calls, as a built connector reads them.
	for _, l := range []struct {
		flag string
		dst  *ratespec.Rate
	}{
		{"auth-introspection-limit", &a.IntrospectionLimit},
		{"auth-introspection-caller-limit", &a.IntrospectionCallerLimit},
	} {
		v := c.String(l.flag)
		if v == "" {
			continue
		}
		if a.IntrospectionURL == "" {
			return nil, usagef("--%s bounds calls to the introspection endpoint: it needs --auth-introspection", l.flag)
		}
		r, err := ratespec.ParseRate(v)
		if err != nil {
			return nil, usagef("invalid --%s: %v", l.flag, err)
		}
		*l.dst = r
	}
	return a, nil
}

// devAuthUpstream reads --auth-upstream and its client flags, checked as a
// connector binary checks them (the public URL defaults to the front's).
func devAuthUpstream(c *ucli.Context, issuer bool) (*connector.AuthUpstream, error) {
	name := c.String("auth-upstream")
	if name == "" {
		if c.String("auth-upstream-scopes") != "" {
			return nil, usagef("--auth-upstream-scopes needs --auth-upstream")
		}
		return nil, nil
	}
	if issuer {
		return nil, usagef("--auth-upstream and --auth-issuer exclude each other: with --auth-upstream the dev server is the authorization server")
	}
	if _, err := authserver.ParseUpstream(name); err != nil {
		return nil, usagef("%v", err)
	}
	secret, err := cmdline.ReadSecret("--auth-client-secret", c.String("auth-client-secret"))
	if err != nil {
		return nil, usagef("%v", err)
	}
	if c.String("auth-client-id") == "" || secret == "" {
		return nil, usagef("--auth-upstream needs --auth-client-id and --auth-client-secret: the OAuth app registered for this connector at the provider, with the callback URL PUBLIC_URL/oauth/callback")
	}
	return &connector.AuthUpstream{Upstream: name, ClientID: c.String("auth-client-id"), ClientSecret: secret,
		Scopes: strings.Fields(c.String("auth-upstream-scopes"))}, nil
}
