package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/runtime/oauth"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
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
	// Scopes are needed by every request, besides those a tool, resource or
	// prompt declares.
	Scopes []string
	// Verifier replaces the built-in one (JWTs against the issuer's keys,
	// introspection for opaque tokens).
	Verifier TokenVerifier
}

// WithAuth requires a valid bearer token on every HTTP request, serves the
// protected-resource metadata (RFC 9728), answers tools/call, resources/read
// and prompts/get lacking a declared scope with 403 insufficient_scope, and
// makes the caller's Identity available to handlers. It needs the public
// URL (WithPublicURL), which names the protected resource. stdio is not
// affected: a process the host spawns has no tokens.
func WithAuth(a Auth) Option { return func(o *options) { o.auth = &a } }

// identityKey is where the runtime keeps the Identity in the SDK's
// TokenInfo.Extra, which reaches every request of the session.
const identityKey = "mcpgen.identity"

// Identity returns the verified caller, or nil when auth is off (or for
// stdio).
func (c *Call) Identity() *Identity {
	if c == nil || c.Request == nil {
		return nil
	}
	extra := c.Request.GetExtra()
	if extra == nil || extra.TokenInfo == nil {
		return nil
	}
	id, _ := extra.TokenInfo.Extra[identityKey].(*Identity)
	return id
}

// IdentityFrom returns the verified caller of the request a handler
// serves, or nil when auth is off.
func IdentityFrom(ctx context.Context) *Identity { return CallFrom(ctx).Identity() }

// authState is a server's resource-server setup, built once by NewServer.
type authState struct {
	s            *Server
	issuer       string
	resource     string // public URL + /mcp
	metadataURL  string // where the RFC 9728 document is served
	metadataPath string // its path
	scopes       []string
	verify       TokenVerifier
	oauth        *oauth.Verifier // the built-in verifier, nil for a custom one
	perRequest   bool            // some tool, resource or prompt declares scopes
	sdk          func(http.Handler) http.Handler
}

type tokenInfoKey struct{}

func (s *Server) setupAuth() error {
	a := s.opts.auth
	if a == nil {
		return nil
	}
	if a.Issuer == "" {
		return errors.New("mcpgen runtime: auth needs the authorization server's issuer URL (--auth-issuer)")
	}
	if s.opts.publicURL == "" {
		return errors.New("mcpgen runtime: auth needs the connector's public URL, which names the protected resource (--public-url, such as https://mcp.example.com)")
	}
	st := &authState{s: s, issuer: a.Issuer, scopes: a.Scopes, verify: a.Verifier}
	st.resource, st.metadataURL = resourceURLs(s.opts.publicURL)
	st.metadataPath = st.metadataURL[strings.Index(st.metadataURL, "/.well-known/"):]
	if st.verify == nil {
		aud := a.Audience
		if aud == "" {
			aud = st.resource
		}
		v, err := oauth.New(oauth.Config{
			Issuer: a.Issuer, Audience: aud,
			IntrospectionURL: a.IntrospectionURL, ClientID: a.ClientID, ClientSecret: a.ClientSecret,
		})
		if err != nil {
			return fmt.Errorf("mcpgen runtime: %v", err)
		}
		st.oauth = v
		st.verify = func(ctx context.Context, token string, _ *http.Request) (*Identity, error) {
			t, err := v.Verify(ctx, token)
			if err != nil {
				return nil, err
			}
			return &Identity{Subject: t.Subject, Scopes: t.Scopes, Issuer: t.Issuer, ClientID: t.ClientID, Expiry: t.Expiry, Claims: t.Claims}, nil
		}
	}
	for _, t := range s.tools {
		st.perRequest = st.perRequest || len(t.def.Scopes) > 0
	}
	for _, r := range s.app.Resources {
		st.perRequest = st.perRequest || len(r.Scopes) > 0
	}
	for _, p := range s.app.Prompts {
		st.perRequest = st.perRequest || len(p.Scopes) > 0
	}
	// The SDK's middleware puts the TokenInfo where its session layer
	// looks (binding each session to the subject that opened it); the
	// verification itself has already happened.
	st.sdk = auth.RequireBearerToken(func(_ context.Context, _ string, r *http.Request) (*auth.TokenInfo, error) {
		if ti, ok := r.Context().Value(tokenInfoKey{}).(*auth.TokenInfo); ok {
			return ti, nil
		}
		return nil, auth.ErrInvalidToken
	}, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true, ClockSkew: oauth.DefaultSkew})
	s.auth = st
	return nil
}

// resourceURLs derives the resource identifier and its RFC 9728 metadata
// URL (the well-known path inserted before the resource's path) from the
// public URL.
func resourceURLs(public string) (resource, metadata string) {
	public = strings.TrimSuffix(public, "/")
	resource = public + "/mcp"
	scheme, rest, _ := strings.Cut(resource, "://")
	host, path, _ := strings.Cut(rest, "/")
	return resource, scheme + "://" + host + "/.well-known/oauth-protected-resource/" + path
}

// Metadata returns the protected-resource metadata (RFC 9728).
func (st *authState) metadata() *oauthex.ProtectedResourceMetadata {
	return &oauthex.ProtectedResourceMetadata{
		Resource:               st.resource,
		AuthorizationServers:   []string{st.issuer},
		ScopesSupported:        st.s.declaredScopes(),
		BearerMethodsSupported: []string{"header"},
		ResourceName:           st.s.mcpName(),
	}
}

// declaredScopes is the sorted union of the scopes every request needs and
// those tools, resources and prompts declare.
func (s *Server) declaredScopes() []string {
	var all []string
	if s.auth != nil {
		all = append(all, s.auth.scopes...)
	}
	for _, t := range s.app.Tools {
		all = append(all, t.Scopes...)
	}
	for _, r := range s.app.Resources {
		all = append(all, r.Scopes...)
	}
	for _, p := range s.app.Prompts {
		all = append(all, p.Scopes...)
	}
	slices.Sort(all)
	return slices.Compact(all)
}

// MountAuth adds the protected-resource metadata routes to mux when auth
// is on: /.well-known/oauth-protected-resource and the same with the
// resource's path (/mcp) appended, both readable cross-origin.
func (s *Server) MountAuth(mux *http.ServeMux) {
	if s.auth == nil {
		return
	}
	h := auth.ProtectedResourceMetadataHandler(s.auth.metadata())
	mux.Handle("/.well-known/oauth-protected-resource", h)
	mux.Handle(s.auth.metadataPath, h)
	s.logger.Info("auth: bearer tokens required", "issuer", s.auth.issuer, "resource", s.auth.resource, "metadata", s.auth.metadataURL)
	if v := s.auth.oauth; v != nil {
		// Look the issuer up now, so a wrong --auth-issuer shows at start-up
		// rather than at the first call; tokens are refused (503) until it
		// answers.
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), oauth.DefaultHTTPTimeout)
			defer cancel()
			if _, err := v.Discover(ctx); err != nil {
				s.logger.Warn("auth: issuer metadata not found yet; tokens cannot be verified until it is", "err", err)
			}
		}()
	}
}

// wrap puts the token check in front of the MCP handler.
func (st *authState) wrap(next http.Handler) http.Handler {
	inner := st.sdk(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodOptions {
			next.ServeHTTP(w, r) // a CORS preflight carries no token
			return
		}
		token, sent := bearerToken(r)
		if !sent {
			st.s.logger.Debug("auth: no bearer token", "remote", r.RemoteAddr)
			st.unauthorized(w, false)
			return
		}
		id, err := st.verify(r.Context(), token, r)
		if err != nil {
			if errors.Is(err, oauth.ErrInvalidToken) || errors.Is(err, auth.ErrInvalidToken) {
				attrs := []any{"remote", r.RemoteAddr}
				var te *oauth.TokenError
				if errors.As(err, &te) {
					attrs = append(attrs, "check", te.Check, "reason", te.Reason)
				} else {
					attrs = append(attrs, "err", err)
				}
				st.s.logger.Warn("auth: token refused", attrs...)
				st.unauthorized(w, true)
				return
			}
			st.s.logger.Error("auth: cannot verify tokens", "err", err)
			w.Header().Set("Retry-After", "5")
			http.Error(w, "Service Unavailable: the authorization server cannot be reached", http.StatusServiceUnavailable)
			return
		}
		if id == nil || id.Subject == "" {
			st.s.logger.Warn("auth: token refused", "check", oauth.CheckSubject, "reason", "the verifier returned no subject", "remote", r.RemoteAddr)
			st.unauthorized(w, true)
			return
		}
		need := st.scopes
		if st.perRequest && r.Method == http.MethodPost {
			var extra []string
			r, extra = st.s.peekScopes(r)
			need = append(slices.Clip(need), extra...)
		}
		if !id.HasScopes(need...) {
			st.s.logger.Info("auth: insufficient scope", "sub", id.Subject, "needs", strings.Join(need, " "), "has", strings.Join(id.Scopes, " "))
			st.forbidden(w, id, need)
			return
		}
		ti := &auth.TokenInfo{Scopes: id.Scopes, Expiration: id.Expiry, UserID: id.Subject, Extra: map[string]any{identityKey: id}}
		inner.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), tokenInfoKey{}, ti)))
	})
}

// unauthorized answers 401 with the challenge that sends a client to the
// resource metadata; error="invalid_token" only when a token was sent
// (RFC 6750 §3.1). The reason stays in the log.
func (st *authState) unauthorized(w http.ResponseWriter, tokenSent bool) {
	c := fmt.Sprintf("Bearer resource_metadata=%q", st.metadataURL)
	if tokenSent {
		c = fmt.Sprintf(`Bearer error="invalid_token", resource_metadata=%q`, st.metadataURL)
	}
	w.Header().Set("WWW-Authenticate", c)
	http.Error(w, "Unauthorized", http.StatusUnauthorized)
}

// forbidden answers 403 insufficient_scope naming the scopes to ask for:
// those already granted plus those needed, so a client that re-authorizes
// with them keeps what it had (MCP scope challenge handling).
func (st *authState) forbidden(w http.ResponseWriter, id *Identity, need []string) {
	ask := append(slices.Clone(id.Scopes), need...)
	slices.Sort(ask)
	ask = slices.Compact(ask)
	w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", scope=%q, resource_metadata=%q`, strings.Join(ask, " "), st.metadataURL))
	http.Error(w, "Forbidden: insufficient scope", http.StatusForbidden)
}

func bearerToken(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	scheme, tok, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", h != ""
	}
	tok = strings.TrimSpace(tok)
	return tok, true
}

// peekScopes reads a POST body to find the scopes its tools/call,
// resources/read or prompts/get needs, and gives back a request whose body
// reads from the start. A body over the size limit is left for the MCP
// handler to refuse.
func (s *Server) peekScopes(r *http.Request) (*http.Request, []string) {
	body, err := io.ReadAll(io.LimitReader(r.Body, s.opts.maxBodyBytes+1))
	r.Body.Close()
	r2 := r.Clone(r.Context())
	r2.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil || int64(len(body)) > s.opts.maxBodyBytes {
		return r2, nil
	}
	type call struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
			URI  string `json:"uri"`
		} `json:"params"`
	}
	var calls []call
	if b := bytes.TrimSpace(body); len(b) > 0 && b[0] == '[' {
		json.Unmarshal(b, &calls)
	} else {
		var c call
		if json.Unmarshal(b, &c) == nil {
			calls = append(calls, c)
		}
	}
	var need []string
	for _, c := range calls {
		need = append(need, s.scopesFor(c.Method, c.Params.Name, c.Params.URI)...)
	}
	return r2, need
}

// scopesFor returns the scopes one request needs beyond the server-wide
// ones.
func (s *Server) scopesFor(method, name, uri string) []string {
	switch method {
	case "tools/call":
		if t, ok := s.tools[name]; ok {
			return t.def.Scopes
		}
	case "prompts/get":
		if p, ok := s.prompts[name]; ok {
			return p.Scopes
		}
	case "resources/read":
		if r, ok := s.resources[uri]; ok {
			return r.Scopes
		}
		for _, t := range s.templates {
			if t.tpl.Match(uri) != nil {
				return t.def.Scopes
			}
		}
	}
	return nil
}
