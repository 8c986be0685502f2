package connector

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"

	"github.com/mcpgen/mcpgen/connector/authserver"
	"github.com/mcpgen/mcpgen/connector/store"
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

// AuthServerConfig says what NewAuthServer builds.
type AuthServerConfig struct {
	Upstream  AuthUpstream
	PublicURL string      // the connector's public URL: the issuer
	Name      string      // the connector's name, on the consent page
	Store     store.Store // the flow's state and keys
	Logger    *slog.Logger
	// Declared returns the scopes tools, resources and prompts declare,
	// which clients may ask for.
	Declared func() []string
}

// NewAuthServer builds the authorization server of WithAuthUpstream and
// the Auth that accepts its access tokens (and gives handlers the
// upstream user and token). A Server with WithAuthUpstream has one; mcpgen
// dev puts one in front of its own endpoint.
func NewAuthServer(cfg AuthServerConfig) (*authserver.Server, Auth, error) {
	u := cfg.Upstream
	var up authserver.Upstream
	if u.Provider != nil {
		up = *u.Provider
	} else {
		var err error
		if up, err = authserver.ParseUpstream(u.Upstream); err != nil {
			return nil, Auth{}, fmt.Errorf("mcpgen runtime: %v", err)
		}
	}
	if len(u.Scopes) > 0 {
		up.Scopes = slices.Clone(u.Scopes)
	}
	as, err := authserver.New(authserver.Config{
		PublicURL: cfg.PublicURL, Upstream: up, ClientID: u.ClientID, ClientSecret: u.ClientSecret,
		Declared: cfg.Declared, Store: cfg.Store, Name: cfg.Name, Logger: cfg.Logger,
	})
	if err != nil {
		return nil, Auth{}, fmt.Errorf("mcpgen runtime: %v", err)
	}
	return as, Auth{Issuer: as.Issuer(), Verifier: func(ctx context.Context, token string, _ *http.Request) (*Identity, error) {
		g, err := as.Verify(ctx, token)
		if err != nil {
			return nil, err
		}
		id := &Identity{Subject: g.Subject, Email: g.Email, Name: g.Name, Scopes: g.Scopes, Issuer: as.Issuer(),
			ClientID: g.ClientID, Expiry: g.Expiry, Claims: g.Claims}
		authgate.SetUpstream(id, func(ctx context.Context) (string, error) { return as.UpstreamToken(ctx, g.ID) })
		return id, nil
	}}, nil
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
	as, a, err := NewAuthServer(AuthServerConfig{Upstream: *u, PublicURL: s.opts.publicURL, Name: s.mcpName(),
		Store: s.state, Logger: s.logger, Declared: s.declaredScopes})
	if err != nil {
		return err
	}
	s.authSrv, s.opts.auth = as, &a
	return nil
}
