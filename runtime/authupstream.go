package runtime

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/mcpgen/mcpgen/runtime/authserver"
)

// AuthUpstream makes the connector the OAuth authorization server its MCP
// clients register with and sign in through, in front of an identity
// provider that lets no client register itself (see package authserver
// and docs/auth.md).
type AuthUpstream struct {
	// Upstream is "github", "google", "entra:TENANT" or the URL of an
	// OpenID Connect issuer (authserver.ParseUpstream).
	Upstream string
	// ClientID and ClientSecret are the connector's own OAuth client at
	// the upstream, whose redirect URI is the public URL +
	// /oauth/callback.
	ClientID, ClientSecret string
	// Scopes, when set, replace the preset's scopes asked of the upstream.
	Scopes []string
}

// WithAuthUpstream makes the connector its own authorization server in
// front of an upstream identity provider: it serves the OAuth metadata,
// registration, authorize, token and revocation endpoints, and requires
// its own access tokens on every HTTP request as WithAuth does. It needs
// the public URL (WithPublicURL) and excludes WithAuth. The flow's state
// is in the server's store (WithStore), so replicas sharing one may each
// serve a leg of a sign-in.
func WithAuthUpstream(u AuthUpstream) Option { return func(o *options) { o.authUpstream = &u } }

// setupAuthServer builds the authorization server of WithAuthUpstream and
// the Auth that accepts its tokens.
func (s *Server) setupAuthServer() error {
	u := s.opts.authUpstream
	if u == nil {
		return nil
	}
	if s.opts.auth != nil {
		return errors.New("mcpgen runtime: --auth-upstream and --auth-issuer exclude each other: with --auth-upstream the connector is the authorization server")
	}
	up, err := authserver.ParseUpstream(u.Upstream)
	if err != nil {
		return fmt.Errorf("mcpgen runtime: %v", err)
	}
	if len(u.Scopes) > 0 {
		up.Scopes = slices.Clone(u.Scopes)
	}
	as, err := authserver.New(authserver.Config{
		PublicURL: s.opts.publicURL, Upstream: up, ClientID: u.ClientID, ClientSecret: u.ClientSecret,
		Scopes: s.declaredScopes(), Store: s.state, Name: s.mcpName(), Logger: s.logger,
	})
	if err != nil {
		return fmt.Errorf("mcpgen runtime: %v", err)
	}
	s.authSrv = as
	s.opts.auth = &Auth{Issuer: as.Issuer(), Verifier: func(ctx context.Context, token string, _ *http.Request) (*Identity, error) {
		g, err := as.Verify(ctx, token)
		if err != nil {
			return nil, err
		}
		return &Identity{Subject: g.Subject, Email: g.Email, Name: g.Name, Scopes: g.Scopes, Issuer: as.Issuer(),
			ClientID: g.ClientID, Expiry: g.Expiry, Claims: g.Claims,
			upstream: func(ctx context.Context) (string, error) { return as.UpstreamToken(ctx, g.ID) }}, nil
	}}
	return nil
}
