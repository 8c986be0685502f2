package authserver

import (
	"context"
	"crypto"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/mcpgen/mcpgen/connector/oauth"
	"golang.org/x/oauth2"
)

// Grant is what a verified access token stands for.
type Grant struct {
	ID       string // the grant (refresh-token family)
	Subject  string // the upstream user: OpenID "sub", or GitHub's numeric id
	Email    string
	Name     string
	ClientID string
	Scopes   []string
	Expiry   time.Time // of the access token
	Claims   map[string]any
}

// accessClaims are the claims of the connector's access tokens.
type accessClaims struct {
	jwt.Claims
	ClientID string `json:"client_id"`
	Scope    string `json:"scope,omitempty"`
	Grant    string `json:"gid"`
}

// issue writes a token response: a new access token and refresh token of
// grant g.
func (s *Server) issue(ctx context.Context, w http.ResponseWriter, g *grant) {
	key, err := s.signingKey(ctx)
	if err != nil {
		s.serverError(w, "cannot read the signing key", err)
		return
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.EdDSA, Key: key},
		(&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", s.kid(key)))
	if err != nil {
		s.serverError(w, "cannot sign", err)
		return
	}
	now := s.now()
	c := accessClaims{Claims: jwt.Claims{Issuer: s.issuer, Subject: g.Subject, Audience: jwt.Audience{s.resource},
		IssuedAt: jwt.NewNumericDate(now), NotBefore: jwt.NewNumericDate(now), Expiry: jwt.NewNumericDate(now.Add(s.cfg.AccessTTL)),
		ID: random(16)}, ClientID: g.ClientID, Scope: strings.Join(g.Scopes, " "), Grant: g.ID}
	at, err := jwt.Signed(signer).Claims(c).Serialize()
	if err != nil {
		s.serverError(w, "cannot sign", err)
		return
	}
	rt := random(32)
	if err := s.put(ctx, refreshKey(rt), refresh{Grant: g.ID, ClientID: g.ClientID}, time.Until(g.Ends), true); err != nil {
		s.serverError(w, "cannot store a refresh token", err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(map[string]any{
		"access_token": at, "token_type": "Bearer", "expires_in": int(s.cfg.AccessTTL / time.Second),
		"refresh_token": rt, "scope": strings.Join(g.Scopes, " "),
	})
}

func (s *Server) kid(key any) string {
	jwk := jose.JSONWebKey{Key: key}
	if pk, ok := key.(interface{ Public() any }); ok {
		jwk.Key = pk.Public()
	}
	tp, _ := jwk.Thumbprint(crypto.SHA256)
	return base64.RawURLEncoding.EncodeToString(tp)
}

// Verify checks one of the server's own access tokens (signature, issuer,
// audience, expiry) and that its grant is not revoked. Any other token,
// the upstream's included, is refused with an error wrapping
// oauth.ErrInvalidToken; an error without it means the store failed.
func (s *Server) Verify(ctx context.Context, raw string) (*Grant, error) {
	tok, err := jwt.ParseSigned(raw, []jose.SignatureAlgorithm{jose.EdDSA})
	if err != nil {
		return nil, &oauth.TokenError{Check: oauth.CheckSignature, Reason: "not one of this connector's access tokens: " + err.Error()}
	}
	if len(tok.Headers) != 1 || tok.Headers[0].ExtraHeaders["typ"] != "at+jwt" {
		return nil, &oauth.TokenError{Check: oauth.CheckSignature, Reason: "not an access token (typ is not at+jwt)"}
	}
	key, err := s.signingKey(ctx)
	if err != nil {
		return nil, err
	}
	var c accessClaims
	var all map[string]any
	if err := tok.Claims(key.Public(), &c, &all); err != nil {
		return nil, &oauth.TokenError{Check: oauth.CheckSignature, Reason: "signature does not verify with this connector's key"}
	}
	if err := c.ValidateWithLeeway(jwt.Expected{Issuer: s.issuer, AnyAudience: jwt.Audience{s.resource}, Time: s.now()}, oauth.DefaultSkew); err != nil {
		return nil, &oauth.TokenError{Check: oauth.CheckExpiry, Reason: err.Error()}
	}
	var g grant
	if err := s.get(ctx, grantKey(c.Grant), &g, false); err != nil {
		if notFound(err) {
			return nil, &oauth.TokenError{Check: oauth.CheckSubject, Reason: "the grant was revoked or has ended"}
		}
		return nil, err
	}
	if g.Subject != c.Subject || g.ClientID != c.ClientID {
		return nil, &oauth.TokenError{Check: oauth.CheckSubject, Reason: "the token does not match its grant"}
	}
	return &Grant{ID: g.ID, Subject: g.Subject, Email: g.Email, Name: g.Name, ClientID: g.ClientID,
		Scopes: strings.Fields(c.Scope), Expiry: c.Expiry.Time(), Claims: all}, nil
}

// ErrNoUpstreamToken is wrapped by UpstreamToken's error when the user's
// upstream token has expired and cannot be refreshed (the user signs in
// again), or the grant was revoked.
var ErrNoUpstreamToken = errors.New("authserver: no upstream token for this user; sign in again")

// UpstreamToken returns the access token the upstream provider issued to
// the user of grant grantID, refreshing it (and storing the new one) when
// it has expired.
func (s *Server) UpstreamToken(ctx context.Context, grantID string) (string, error) {
	var g grant
	if err := s.get(ctx, grantKey(grantID), &g, false); err != nil {
		if notFound(err) {
			return "", fmt.Errorf("%w (the grant was revoked or has ended)", ErrNoUpstreamToken)
		}
		return "", err
	}
	t, err := s.open(ctx, g.ID, g.Upstream)
	if err != nil {
		return "", err
	}
	if t.Valid() {
		return t.AccessToken, nil
	}
	if t.RefreshToken == "" {
		return "", fmt.Errorf("%w (it expired and the upstream gave no refresh token)", ErrNoUpstreamToken)
	}
	cfg, err := s.up.config(s.up.ctx(ctx))
	if err != nil {
		return "", err
	}
	nt, err := cfg.TokenSource(s.up.ctx(ctx), t).Token()
	if err != nil {
		s.log.Warn("auth: cannot refresh the upstream token", "sub", g.Subject, "err", err)
		var re *oauth2.RetrieveError
		if errors.As(err, &re) {
			return "", fmt.Errorf("%w (the upstream refused to refresh it: %v)", ErrNoUpstreamToken, err)
		}
		return "", err
	}
	if g.Upstream, err = s.seal(ctx, g.ID, nt); err != nil {
		return "", err
	}
	if err := s.put(ctx, grantKey(g.ID), g, time.Until(g.Ends), false); err != nil {
		return "", err
	}
	return nt.AccessToken, nil
}

// token is the token endpoint.
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	s.cors(w)
	if err := r.ParseForm(); err != nil {
		s.tokenError(w, "invalid_request", "the body is not a form", nil)
		return
	}
	ctx := r.Context()
	c, ok := s.authenticate(w, r)
	if !ok {
		return
	}
	switch r.PostForm.Get("grant_type") {
	case "authorization_code":
		s.redeemCode(ctx, w, r, c)
	case "refresh_token":
		s.redeemRefresh(ctx, w, r, c)
	case "":
		s.tokenError(w, "invalid_request", "grant_type is missing", nil)
	default:
		s.tokenError(w, "unsupported_grant_type", "grant_type must be authorization_code or refresh_token", nil)
	}
}

// authenticate finds the client of a token or revocation request and
// checks its secret when it has one.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request) (*client, bool) {
	id, secret, basic := r.BasicAuth()
	if !basic {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	if id == "" {
		s.tokenError(w, "invalid_client", "client_id is missing", nil)
		return nil, false
	}
	c, err := s.lookupClient(r.Context(), id)
	if err != nil {
		if errors.Is(err, errUnknownClient) {
			s.tokenError(w, "invalid_client", err.Error(), "client_id", id)
			return nil, false
		}
		s.serverError(w, "cannot read a client", err)
		return nil, false
	}
	if c.SecretHash != "" && subtle.ConstantTimeCompare([]byte(hashed(secret)), []byte(c.SecretHash)) != 1 {
		s.tokenError(w, "invalid_client", "wrong client secret", "client_id", id)
		return nil, false
	}
	return c, true
}

func (s *Server) redeemCode(ctx context.Context, w http.ResponseWriter, r *http.Request, c *client) {
	raw := r.PostForm.Get("code")
	if raw == "" {
		s.tokenError(w, "invalid_request", "code is missing", nil)
		return
	}
	var cd code
	if err := s.get(ctx, codeKey(raw), &cd, true); err != nil {
		if !notFound(err) {
			s.serverError(w, "cannot read a code", err)
			return
		}
		// A code redeemed twice was stolen, or the client is broken:
		// what the first redemption issued is revoked (RFC 6749 4.1.2).
		if b, err := s.records.Get(ctx, usedCodeKey(raw)); err == nil {
			s.revokeGrant(ctx, string(b), "an authorization code was redeemed twice")
		}
		s.tokenError(w, "invalid_grant", "the code is unknown, expired or already used", "client_id", c.ID)
		return
	}
	s.records.Put(ctx, usedCodeKey(raw), []byte(cd.Grant), usedTTL)
	refuse := func(why string) {
		s.revokeGrant(ctx, cd.Grant, why)
		s.tokenError(w, "invalid_grant", why, "client_id", c.ID)
	}
	if cd.ClientID != c.ID {
		refuse("the code was issued to another client")
		return
	}
	if r.PostForm.Get("redirect_uri") != cd.RedirectURI {
		refuse("redirect_uri differs from the one the code was issued for")
		return
	}
	if !pkceMatches(r.PostForm.Get("code_verifier"), cd.Challenge) {
		refuse("code_verifier is missing or does not match the code_challenge (PKCE)")
		return
	}
	var g grant
	if err := s.get(ctx, grantKey(cd.Grant), &g, false); err != nil {
		s.tokenError(w, "invalid_grant", "the grant of this code has been revoked", "client_id", c.ID)
		return
	}
	s.log.Info("auth: access granted", "sub", g.Subject, "client_id", c.ID, "grant", g.ID)
	s.issue(ctx, w, &g)
}

func (s *Server) redeemRefresh(ctx context.Context, w http.ResponseWriter, r *http.Request, c *client) {
	raw := r.PostForm.Get("refresh_token")
	if raw == "" {
		s.tokenError(w, "invalid_request", "refresh_token is missing", nil)
		return
	}
	var rt refresh
	if err := s.get(ctx, refreshKey(raw), &rt, true); err != nil {
		if !notFound(err) {
			s.serverError(w, "cannot read a refresh token", err)
			return
		}
		// A rotated-out refresh token used again: someone else holds a
		// copy. The whole family goes.
		if b, err := s.records.Get(ctx, usedRefreshKey(raw)); err == nil {
			s.revokeGrant(ctx, string(b), "a refresh token was used after it was rotated")
		}
		s.tokenError(w, "invalid_grant", "the refresh token is unknown, expired, revoked or already used", "client_id", c.ID)
		return
	}
	s.records.Put(ctx, usedRefreshKey(raw), []byte(rt.Grant), usedTTL)
	if rt.ClientID != c.ID {
		s.revokeGrant(ctx, rt.Grant, "a refresh token was presented by another client")
		s.tokenError(w, "invalid_grant", "the refresh token was issued to another client", "client_id", c.ID)
		return
	}
	var g grant
	if err := s.get(ctx, grantKey(rt.Grant), &g, false); err != nil {
		s.tokenError(w, "invalid_grant", "the grant of this refresh token has been revoked", "client_id", c.ID)
		return
	}
	// A grant in use lives on: its end moves with each rotation.
	g.Ends = s.now().Add(s.cfg.RefreshTTL)
	if err := s.put(ctx, grantKey(g.ID), g, s.cfg.RefreshTTL, false); err != nil {
		s.serverError(w, "cannot store a grant", err)
		return
	}
	s.issue(ctx, w, &g)
}

// pkceMatches checks an RFC 7636 S256 verifier against its challenge.
func pkceMatches(verifier, challenge string) bool {
	if len(verifier) < 43 || len(verifier) > 128 || challenge == "" {
		return false
	}
	for _, c := range verifier {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.ContainsRune("-._~", c)) {
			return false
		}
	}
	sum := sha256.Sum256([]byte(verifier))
	return subtle.ConstantTimeCompare([]byte(base64.RawURLEncoding.EncodeToString(sum[:])), []byte(challenge)) == 1
}

// revoke is the RFC 7009 revocation endpoint: a refresh token or one of
// the connector's access tokens revokes its whole grant. Unknown tokens
// are answered 200 too, as the RFC asks.
func (s *Server) revoke(w http.ResponseWriter, r *http.Request) {
	s.cors(w)
	if err := r.ParseForm(); err != nil {
		s.tokenError(w, "invalid_request", "the body is not a form", nil)
		return
	}
	c, ok := s.authenticate(w, r)
	if !ok {
		return
	}
	ctx := r.Context()
	raw := r.PostForm.Get("token")
	var rt refresh
	if err := s.get(ctx, refreshKey(raw), &rt, false); err == nil && rt.ClientID == c.ID {
		s.revokeGrant(ctx, rt.Grant, "the client revoked a refresh token")
	} else if g, err := s.Verify(ctx, raw); err == nil && g.ClientID == c.ID {
		s.revokeGrant(ctx, g.ID, "the client revoked an access token")
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
}

// tokenError answers a token or revocation request with an RFC 6749
// error, and logs why.
func (s *Server) tokenError(w http.ResponseWriter, code, why string, attrs ...any) {
	if len(attrs) == 1 && attrs[0] == nil {
		attrs = nil
	}
	s.log.Warn("auth: token request refused", append([]any{"error", code, "reason", why}, attrs...)...)
	status := http.StatusBadRequest
	if code == "invalid_client" {
		status = http.StatusUnauthorized
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": why})
}

func (s *Server) serverError(w http.ResponseWriter, what string, err error) {
	s.log.Error("auth: "+what, "err", err)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusServiceUnavailable)
	json.NewEncoder(w).Encode(map[string]string{"error": "temporarily_unavailable", "error_description": what})
}
