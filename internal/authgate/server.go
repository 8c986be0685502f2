package authgate

import (
	"context"
	"net/http"

	"github.com/mcpgen/mcpgen/connector/authserver"
)

// ForServer returns the Auth that accepts the access tokens that as issues: the
// connector's own authorization server (--auth-upstream) or mcpgen dev's.
// The Identity it gives handlers carries the upstream user, and the
// upstream token on demand (Upstream).
func ForServer(as *authserver.Server) Auth {
	return Auth{Issuer: as.Issuer(), Verifier: func(ctx context.Context, token string, _ *http.Request) (*Identity, error) {
		g, err := as.Verify(ctx, token)
		if err != nil {
			return nil, err
		}
		id := &Identity{Subject: g.Subject, Email: g.Email, Name: g.Name, Scopes: g.Scopes, Issuer: as.Issuer(),
			ClientID: g.ClientID, Expiry: g.Expiry, Claims: g.Claims}
		SetUpstream(id, func(ctx context.Context) (string, error) { return as.UpstreamToken(ctx, g.ID) })
		return id, nil
	}}
}
