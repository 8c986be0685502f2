// Package authgate turns the bearer token of an HTTP request into the
// caller's verified Identity, or into the 401, 403 or 400 answer MCP clients
// act on: the resource-server check in front of a connector's endpoints and
// of mcpgen dev's front.
package authgate

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"time"

	"github.com/mcpgen/mcpgen/connector/oauth"
	"github.com/mcpgen/mcpgen/internal/ratespec"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

// Identity is the verified caller of a request: who the access token was
// issued to, and what it allows.
type Identity struct {
	Subject  string    // the token's "sub": the user (or client) it stands for
	Scopes   []string  // granted scopes
	Issuer   string    // the authorization server that issued it
	ClientID string    // the OAuth client the user authorized ("" if unknown)
	Expiry   time.Time // when the token expires
	Claims   map[string]any
	// Email and Name are the user's, as the upstream identity provider
	// gave them at sign-in (WithAuthUpstream; "" when it gave none, and
	// with --auth-issuer).
	Email, Name string

	upstream func(context.Context) (string, error)
}

// UpstreamToken returns the access token the upstream identity provider
// (GitHub, Google, ...) issued to this user when they signed in through
// the connector (WithAuthUpstream, --auth-upstream), so that a handler can
// call the provider's API on the user's behalf. It is refreshed when it has
// expired and the provider gave a refresh token; an error wrapping
// authserver.ErrNoUpstreamToken means the user must sign in again. Without
// --auth-upstream there is none: the error says so.
func (id *Identity) UpstreamToken(ctx context.Context) (string, error) {
	if id == nil || id.upstream == nil {
		return "", errors.New("mcpgen: no upstream token: the connector signs users in with --auth-upstream only")
	}
	return id.upstream(ctx)
}

// HasScopes reports whether the identity was granted every scope in need.
func (id *Identity) HasScopes(need ...string) bool {
	if id == nil {
		return len(need) == 0
	}
	for _, s := range need {
		if !slices.Contains(id.Scopes, s) {
			return false
		}
	}
	return true
}

// TokenVerifier turns a bearer token into the caller's identity. r is the
// HTTP request that carried it. An error wrapping oauth.ErrInvalidToken or
// auth.ErrInvalidToken means "not acceptable" (401 invalid_token); any
// other error means the token could not be judged (503).
type TokenVerifier func(ctx context.Context, token string, r *http.Request) (*Identity, error)

// Auth makes the HTTP endpoint an OAuth 2.1 resource server (WithAuth).
type Auth struct {
	// Issuer is the authorization server clients are sent to (RFC 9728
	// metadata) and whose tokens are accepted. Required.
	Issuer string
	// Audience is what tokens must carry in "aud"; the resource identifier
	// (the public URL + "/mcp") when empty.
	Audience string
	// IntrospectionURL (RFC 7662) verifies opaque tokens, authenticating
	// as ClientID/ClientSecret.
	IntrospectionURL       string
	ClientID, ClientSecret string
	// IntrospectionLimit bounds the calls to IntrospectionURL for tokens
	// not in its cache, for all callers together, and
	// IntrospectionCallerLimit those of one client address
	// (oauth.DefaultIntrospectionLimit and
	// oauth.DefaultIntrospectionCallerLimit when zero). A token over a
	// bound is not checked: 429 for the caller's, 503 for the global one.
	IntrospectionLimit, IntrospectionCallerLimit ratespec.Rate
	// Scopes are needed by every request, besides those a tool, resource or
	// prompt declares.
	Scopes []string
	// Verifier replaces the built-in one (JWTs against the issuer's keys,
	// introspection for opaque tokens).
	Verifier TokenVerifier
}

// identityKey is where the runtime keeps the Identity in the SDK's
// TokenInfo.Extra, which reaches every request of the session.
const identityKey = "mcpgen.identity"

type tokenInfoKey struct{}

// SDKTokenInfo returns the SDK's bearer-token middleware set up to put the
// TokenInfo already in the request's context where the SDK's session layer
// looks (which binds each session to the subject that opened it); the
// verification itself has happened before.
func SDKTokenInfo() func(http.Handler) http.Handler {
	return auth.RequireBearerToken(func(_ context.Context, _ string, r *http.Request) (*auth.TokenInfo, error) {
		if ti, ok := r.Context().Value(tokenInfoKey{}).(*auth.TokenInfo); ok {
			return ti, nil
		}
		return nil, auth.ErrInvalidToken
	}, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true, ClockSkew: oauth.DefaultSkew})
}

// ScopesMetaKey is the _meta key under which tools, resources and prompts
// list the OAuth scopes they need (scope=), so clients and mcpgen dev's
// front can know them before calling.
const ScopesMetaKey = "mcpgen/scopes"

// tokenInfo is what the SDK keeps of an identity.
func TokenInfo(id *Identity) *auth.TokenInfo {
	return &auth.TokenInfo{Scopes: id.Scopes, Expiration: id.Expiry, UserID: id.Subject, Extra: map[string]any{identityKey: id}}
}

// FromTokenInfo returns the identity the runtime keeps in a TokenInfo, or nil.
func FromTokenInfo(ti *auth.TokenInfo) *Identity {
	if ti == nil {
		return nil
	}
	id, _ := ti.Extra[identityKey].(*Identity)
	return id
}

// SetUpstream gives id the function that returns the user's upstream
// access token (Identity.UpstreamToken).
func SetUpstream(id *Identity, f func(context.Context) (string, error)) { id.upstream = f }

// Upstream returns the function SetUpstream gave id, or nil.
func Upstream(id *Identity) func(context.Context) (string, error) { return id.upstream }

// WithIdentity returns ctx carrying id for the middleware SDKTokenInfo
// returns, which hands it to the go-sdk's session layer.
func WithIdentity(ctx context.Context, id *Identity) context.Context {
	return context.WithValue(ctx, tokenInfoKey{}, TokenInfo(id))
}

// Subject is the verified subject of ti, or "" without one.
func Subject(ti *auth.TokenInfo) string {
	if ti == nil {
		return ""
	}
	return ti.UserID
}
