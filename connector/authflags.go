package connector

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mcpgen/mcpgen/connector/authserver"
	"github.com/mcpgen/mcpgen/internal/cmdline"
	"github.com/mcpgen/mcpgen/internal/devlink"
	"github.com/mcpgen/mcpgen/internal/ratespec"

	"github.com/mcpgen/mcpgen/connector/oauth"
)

// authFlags are a connector binary's OAuth resource-server and rate-limit
// flags.
type authFlags struct {
	issuer, audience, introspection, scopes, rateLimit *string
	introspectionLimit, introspectionCallerLimit       *string
	upstream, clientID, clientSecret, upstreamScopes   *string
	lookup                                             func(string) (string, bool)
}

func declareAuthFlags(c *cmdline.Set) *authFlags {
	return &authFlags{
		issuer: c.String("auth-issuer", "MCPGEN_AUTH_ISSUER", "",
			"accept only bearer tokens from the authorization server `URL` (its issuer);\nneeds --public-url, which names this resource"),
		audience: c.String("auth-audience", "MCPGEN_AUTH_AUDIENCE", "",
			"require `AUD` in the tokens' aud claim instead of the public URL + /mcp\n(for providers that put an API identifier there)"),
		introspection: c.String("auth-introspection", "MCPGEN_AUTH_INTROSPECTION", "",
			"verify opaque tokens at this RFC 7662 introspection `URL`, authenticating with\n$MCPGEN_AUTH_CLIENT_ID and $MCPGEN_AUTH_CLIENT_SECRET"),
		introspectionLimit: c.String("auth-introspection-limit", "MCPGEN_AUTH_INTROSPECTION_LIMIT", "",
			"ask the introspection endpoint about new tokens at most `N/DURATION` times in all\n(default "+limitString(oauth.DefaultIntrospectionLimit)+"); over it, 503"),
		introspectionCallerLimit: c.String("auth-introspection-caller-limit", "MCPGEN_AUTH_INTROSPECTION_CALLER_LIMIT", "",
			"ask the introspection endpoint about new tokens from one client address at most\n`N/DURATION` times (default "+limitString(oauth.DefaultIntrospectionCallerLimit)+"); over it, 429"),
		scopes: c.String("auth-scopes", "MCPGEN_AUTH_SCOPES", "",
			"require these space-separated `SCOPES` on every request"),
		rateLimit: c.String("rate-limit", "MCPGEN_RATE_LIMIT", "",
			"allow each caller (token subject, or client address without auth) at most\n`N/DURATION` tool calls, such as 120/1m"),
		upstream: c.String("auth-upstream", "MCPGEN_AUTH_UPSTREAM", "",
			"be the OAuth authorization server MCP clients sign in through, in front of the\nidentity `PROVIDER`: github, google, entra:TENANT or an OpenID issuer URL;\nneeds --public-url, --auth-client-id and --auth-client-secret"),
		clientID: c.String("auth-client-id", "MCPGEN_AUTH_CLIENT_ID", "",
			"the connector's OAuth client `ID` at the --auth-upstream provider (or at the\n--auth-introspection endpoint)"),
		clientSecret: c.String("auth-client-secret", "MCPGEN_AUTH_CLIENT_SECRET", "",
			"that client's `SECRET`, or @FILE to read it from a file"),
		upstreamScopes: c.String("auth-upstream-scopes", "MCPGEN_AUTH_UPSTREAM_SCOPES", "",
			"ask the --auth-upstream provider for these space-separated `SCOPES` instead of\nthe preset's (such as \"read:user repo\" for GitHub)"),
		lookup: c.Lookup,
	}
}

// upstreamOptions checks the --auth-upstream flags and turns them into
// WithAuthUpstream.
func (f *authFlags) upstreamOptions(publicURL string) (Option, error) {
	if *f.issuer != "" {
		return nil, errors.New("--auth-upstream and --auth-issuer exclude each other: with --auth-upstream the connector is the authorization server; with --auth-issuer another one is")
	}
	for name, v := range map[string]string{"--auth-audience": *f.audience, "--auth-introspection": *f.introspection} {
		if v != "" {
			return nil, fmt.Errorf("%s applies to --auth-issuer, not --auth-upstream (the connector checks its own tokens)", name)
		}
	}
	if _, err := authserver.ParseUpstream(*f.upstream); err != nil {
		return nil, err
	}
	if publicURL == "" {
		return nil, errors.New("--auth-upstream needs --public-url (or $MCPGEN_PUBLIC_URL): the connector's public URL is its issuer and the base of the callback URL to register at the provider, such as https://mcp.example.com")
	}
	if *f.clientID == "" {
		return nil, errors.New("--auth-upstream needs --auth-client-id (or $MCPGEN_AUTH_CLIENT_ID): the client id of the OAuth app registered for this connector at the provider")
	}
	secret, err := cmdline.ReadSecret("--auth-client-secret", *f.clientSecret)
	if err != nil {
		return nil, err
	}
	if secret == "" {
		return nil, errors.New("--auth-upstream needs --auth-client-secret (or $MCPGEN_AUTH_CLIENT_SECRET, or @FILE): the secret of the OAuth app registered for this connector at the provider")
	}
	return WithAuthUpstream(AuthUpstream{Upstream: *f.upstream, ClientID: *f.clientID, ClientSecret: secret,
		Scopes: strings.Fields(*f.upstreamScopes)}), nil
}

// options checks the auth flags and turns them into server options. Over
// stdio there are no tokens (the host that spawned the process is the
// caller), so the auth flags are dropped with a notice on w.
// publicURL is the --public-url value, which auth needs to name the
// protected resource.
func (f *authFlags) options(stdio bool, publicURL, name string, w io.Writer) ([]Option, error) {
	var opts []Option
	if stdio && (*f.issuer != "" || *f.upstream != "" || *f.audience != "" || *f.introspection != "" || *f.scopes != "" ||
		*f.introspectionLimit != "" || *f.introspectionCallerLimit != "") {
		fmt.Fprintf(w, "%s: --auth-* flags apply to HTTP only; ignored with --stdio\n", name)
		*f.issuer, *f.audience, *f.introspection, *f.scopes = "", "", "", ""
		*f.upstream, *f.upstreamScopes = "", ""
		*f.introspectionLimit, *f.introspectionCallerLimit = "", ""
	}
	if *f.rateLimit != "" {
		r, err := ratespec.ParseRate(*f.rateLimit)
		if err != nil {
			return nil, fmt.Errorf("invalid --rate-limit: %v", err)
		}
		opts = append(opts, WithRateLimit(r))
	}
	if key, _ := f.lookup(devlink.KeyEnv); key != "" {
		// Behind mcpgen dev's front, which checked the auth flags and
		// does the authorization itself: the connector takes the identity
		// it forwards, and auth variables it inherits are not its own.
		return append(opts, withDevFront(key)), nil
	}
	if *f.upstream != "" {
		o, err := f.upstreamOptions(publicURL)
		if err != nil {
			return nil, err
		}
		if *f.scopes != "" {
			return nil, errors.New("--auth-scopes applies to --auth-issuer; with --auth-upstream declare scopes on tools (scope=)")
		}
		return append(opts, o), nil
	}
	if *f.upstreamScopes != "" {
		return nil, errors.New("--auth-upstream-scopes needs --auth-upstream")
	}
	if *f.issuer == "" {
		// Any other auth flag without an issuer is a mistake that would
		// leave the connector open: refuse to start.
		for name, v := range map[string]string{"--auth-audience": *f.audience, "--auth-introspection": *f.introspection, "--auth-scopes": *f.scopes,
			"--auth-introspection-limit": *f.introspectionLimit, "--auth-introspection-caller-limit": *f.introspectionCallerLimit} {
			if v != "" {
				return nil, fmt.Errorf("%s needs --auth-issuer (the authorization server whose tokens are accepted)", name)
			}
		}
		return opts, nil
	}
	// Checked here, not only when the server starts, so that a mistake
	// on the command line is a usage error (exit 2) like every other.
	if err := oauth.CheckServerURL("--auth-issuer", *f.issuer); err != nil {
		return nil, errors.New(strings.TrimPrefix(err.Error(), "oauth: "))
	}
	if *f.introspection != "" {
		if err := oauth.CheckServerURL("--auth-introspection", *f.introspection); err != nil {
			return nil, errors.New(strings.TrimPrefix(err.Error(), "oauth: "))
		}
	}
	if publicURL == "" {
		return nil, errors.New("--auth-issuer needs --public-url (or $MCPGEN_PUBLIC_URL): the connector's public URL names the protected resource, such as https://mcp.example.com")
	}
	a := Auth{
		Issuer:           *f.issuer,
		Audience:         *f.audience,
		IntrospectionURL: *f.introspection,
		Scopes:           strings.Fields(*f.scopes),
	}
	if a.IntrospectionURL != "" {
		a.ClientID, a.ClientSecret = *f.clientID, *f.clientSecret
		if a.ClientID == "" {
			return nil, errors.New("--auth-introspection needs client credentials: --auth-client-id and --auth-client-secret ($MCPGEN_AUTH_CLIENT_ID and $MCPGEN_AUTH_CLIENT_SECRET)")
		}
	}
	for _, l := range []struct {
		flag string
		v    string
		dst  *Rate
	}{
		{"--auth-introspection-limit", *f.introspectionLimit, &a.IntrospectionLimit},
		{"--auth-introspection-caller-limit", *f.introspectionCallerLimit, &a.IntrospectionCallerLimit},
	} {
		if l.v == "" {
			continue
		}
		if a.IntrospectionURL == "" {
			return nil, fmt.Errorf("%s bounds calls to the introspection endpoint: it needs --auth-introspection", l.flag)
		}
		r, err := ratespec.ParseRate(l.v)
		if err != nil {
			return nil, fmt.Errorf("invalid %s: %v", l.flag, err)
		}
		*l.dst = r
	}
	return append(opts, WithAuth(a)), nil
}

// limitString writes l as a flag value (N/DURATION).
func limitString(l oauth.Limit) string { return Rate(l).String() }
