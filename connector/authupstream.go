package connector

import (
	"errors"
	"fmt"
	"slices"

	"github.com/mcpgen/mcpgen/connector/authserver"
	"github.com/mcpgen/mcpgen/internal/authgate"
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
	// Provider, when set, names the upstream's endpoints directly instead
	// of Upstream (such as a GitHub Enterprise Server's).
	Provider *authserver.Upstream
}

// Resolve returns the upstream's endpoints and scopes: Provider when set,
// else the preset or issuer Upstream names, with Scopes in place of the
// preset's when given.
func (u AuthUpstream) Resolve() (authserver.Upstream, error) {
	var up authserver.Upstream
	if u.Provider != nil {
		up = *u.Provider
	} else {
		var err error
		if up, err = authserver.ParseUpstream(u.Upstream); err != nil {
			return up, fmt.Errorf("mcpgen runtime: %v", err)
		}
	}
	if len(u.Scopes) > 0 {
		up.Scopes = slices.Clone(u.Scopes)
	}
	return up, nil
}

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
	up, err := u.Resolve()
	if err != nil {
		return err
	}
	as, err := authserver.New(authserver.Config{
		PublicURL: s.opts.publicURL, Upstream: up, ClientID: u.ClientID, ClientSecret: u.ClientSecret,
		Declared: s.declaredScopes, Store: s.state, Name: s.mcpName(), Logger: s.logger,
	})
	if err != nil {
		return fmt.Errorf("mcpgen runtime: %v", err)
	}
	a := authgate.ForServer(as)
	s.authSrv, s.opts.auth = as, &a
	return nil
}
