package mcpgen

import (
	"context"

	"github.com/mcpgen/mcpgen/connector"
)

// Identity is the verified caller of a request: Subject (the token's
// "sub"), Scopes, Issuer, ClientID, Expiry and all the token's Claims.
type Identity = connector.Identity

// Auth returns who is calling: the identity from the request's verified
// access token, or nil when the connector runs without auth (no
// --auth-issuer, or over stdio).
//
//	id := mcpgen.Auth(ctx)
//	if id == nil {
//		return nil, errors.New("sign in to use this tool")
//	}
//	notes := store.NotesOf(id.Subject)
func Auth(ctx context.Context) *Identity { return connector.IdentityFrom(ctx) }
