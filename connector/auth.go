package connector

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/mcpgen/mcpgen/connector/oauth"
	"github.com/mcpgen/mcpgen/internal/httpedge"
	"github.com/mcpgen/mcpgen/internal/ratespec"
	"github.com/mcpgen/mcpgen/internal/wire"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
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
	IntrospectionLimit, IntrospectionCallerLimit Rate
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

// AuthGate is the resource-server check in front of an MCP endpoint: it
// verifies the bearer token of every request, answers 401 and 403 with the
// challenges clients act on, and hands the identity to the SDK's session
// layer. A Server with WithAuth has one; mcpgen dev puts one in front of
// its own endpoint.
type AuthGate struct {
	issuer       string
	resource     string // public URL + /mcp
	metadataURL  string // where the RFC 9728 document is served
	metadataPath string // its path
	scopes       []string
	verify       TokenVerifier
	oauth        *oauth.Verifier // the built-in verifier, nil for a custom one
	logger       *slog.Logger
	name         string
	maxBody      int64
	scopesFor    ScopeFunc
	declared     func() []string
	sdk          func(http.Handler) http.Handler
	public       string // the public URL (ForPath, streamauth.go)
	sub          bool   // made by ForPath: Mount serves its metadata only
}

// ScopeFunc returns the scopes one JSON-RPC request needs beyond the
// server-wide ones: method, and the tool or prompt name or resource URI.
type ScopeFunc func(method, name, uri string) []string

// AuthGateConfig says what an AuthGate protects.
type AuthGateConfig struct {
	Auth      Auth
	PublicURL string // the connector's public URL; the resource is PublicURL + "/mcp"
	Name      string // the resource's name in the metadata
	Logger    *slog.Logger
	MaxBody   int64 // bodies over it are not read for scopes (defaultMaxBodyBytes when 0)
	// ScopesFor, when set, gives the scopes of each tools/call,
	// resources/read and prompts/get; Declared lists every declared scope
	// for scopes_supported.
	ScopesFor ScopeFunc
	Declared  func() []string
}

type tokenInfoKey struct{}

// NewAuthGate checks cfg (an issuer and a public URL are required) and
// builds the gate, with the built-in verifier unless cfg.Auth has one.
func NewAuthGate(cfg AuthGateConfig) (*AuthGate, error) {
	a := cfg.Auth
	if a.Issuer == "" {
		return nil, errors.New("mcpgen runtime: auth needs the authorization server's issuer URL (--auth-issuer)")
	}
	if cfg.PublicURL == "" {
		return nil, errors.New("mcpgen runtime: auth needs the connector's public URL, which names the protected resource (--public-url, such as https://mcp.example.com)")
	}
	g := &AuthGate{issuer: a.Issuer, scopes: a.Scopes, verify: a.Verifier, logger: cfg.Logger, name: cfg.Name,
		maxBody: cfg.MaxBody, scopesFor: cfg.ScopesFor, declared: cfg.Declared, public: cfg.PublicURL}
	if g.logger == nil {
		g.logger = slog.New(slog.NewTextHandler(stderr(), nil))
	}
	if g.maxBody == 0 {
		g.maxBody = defaultMaxBodyBytes
	}
	g.resource, g.metadataURL = resourceURLs(cfg.PublicURL)
	g.metadataPath = g.metadataURL[strings.Index(g.metadataURL, "/.well-known/"):]
	if g.verify == nil {
		aud := a.Audience
		if aud == "" {
			aud = g.resource
		}
		v, err := oauth.New(oauth.Config{
			Issuer: a.Issuer, Audience: aud,
			IntrospectionURL: a.IntrospectionURL, ClientID: a.ClientID, ClientSecret: a.ClientSecret,
			IntrospectionLimit:       oauth.Limit(a.IntrospectionLimit),
			IntrospectionCallerLimit: oauth.Limit(a.IntrospectionCallerLimit),
			MoreAudiences:            streamAudiences(a.Audience, cfg.PublicURL), // streamauth.go
		})
		if err != nil {
			return nil, fmt.Errorf("mcpgen runtime: %v", err)
		}
		g.oauth = v
		g.verify = func(ctx context.Context, token string, r *http.Request) (*Identity, error) {
			t, err := v.Verify(oauth.WithCaller(ctx, httpedge.RemoteHost(r)), token)
			if err != nil {
				return nil, err
			}
			return &Identity{Subject: t.Subject, Scopes: t.Scopes, Issuer: t.Issuer, ClientID: t.ClientID, Expiry: t.Expiry, Claims: t.Claims}, nil
		}
	}
	// The SDK's middleware puts the TokenInfo where its session layer
	// looks (binding each session to the subject that opened it); the
	// verification itself has already happened.
	g.sdk = sdkTokenInfo()
	return g, nil
}

// sdkTokenInfo returns the SDK's bearer-token middleware set up to put the
// TokenInfo already in the request's context where the SDK's session layer
// looks (which binds each session to the subject that opened it); the
// verification itself has happened before.
func sdkTokenInfo() func(http.Handler) http.Handler {
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

func scopesMeta(scopes []string) mcp.Meta {
	if len(scopes) == 0 {
		return nil
	}
	return mcp.Meta{ScopesMetaKey: scopes}
}

// tokenInfo is what the SDK keeps of an identity.
func tokenInfo(id *Identity) *auth.TokenInfo {
	return &auth.TokenInfo{Scopes: id.Scopes, Expiration: id.Expiry, UserID: id.Subject, Extra: map[string]any{identityKey: id}}
}

// Resource is the protected resource's identifier (the public URL + /mcp).
func (g *AuthGate) Resource() string { return g.resource }

// Issuer is the authorization server's issuer URL.
func (g *AuthGate) Issuer() string { return g.issuer }

func (s *Server) setupAuth() error {
	if err := s.setupAuthServer(); err != nil {
		return err
	}
	if s.opts.auth == nil {
		return nil
	}
	g, err := NewAuthGate(AuthGateConfig{
		Auth: *s.opts.auth, PublicURL: s.opts.publicURL, Name: s.mcpName(), Logger: s.logger,
		MaxBody: s.opts.maxBodyBytes, Declared: s.declaredScopes,
	})
	if err != nil {
		return err
	}
	perRequest := false
	for _, t := range s.app.Tools {
		perRequest = perRequest || len(t.Scopes) > 0
	}
	for _, r := range s.app.Resources {
		perRequest = perRequest || len(r.Scopes) > 0
	}
	for _, p := range s.app.Prompts {
		perRequest = perRequest || len(p.Scopes) > 0
	}
	if perRequest {
		g.scopesFor = s.scopesFor
	}
	s.auth = g
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
func (g *AuthGate) Metadata() *oauthex.ProtectedResourceMetadata {
	m := &oauthex.ProtectedResourceMetadata{
		Resource:               g.resource,
		AuthorizationServers:   []string{g.issuer},
		ScopesSupported:        slices.Clone(g.scopes),
		BearerMethodsSupported: []string{"header"},
		ResourceName:           g.name,
	}
	if g.declared != nil {
		m.ScopesSupported = append(m.ScopesSupported, g.declared()...)
	}
	slices.Sort(m.ScopesSupported)
	m.ScopesSupported = slices.Compact(m.ScopesSupported)
	return m
}

// declaredScopes is the sorted union of the scopes tools, resources and
// prompts declare.
func (s *Server) declaredScopes() []string {
	var all []string
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
// is on (see AuthGate.Mount).
func (s *Server) MountAuth(mux *http.ServeMux) {
	if s.authSrv != nil {
		s.authSrv.Mount(mux)
	}
	if s.auth != nil {
		s.auth.Mount(mux)
		s.mountStreamAuth(mux) // streamauth.go
	}
}

// Mount adds the protected-resource metadata routes to mux:
// /.well-known/oauth-protected-resource and the same with the resource's
// path (/mcp) appended, both readable cross-origin. It also looks the
// issuer up in the background, so a wrong --auth-issuer shows in the log
// at start-up rather than at the first call.
func (g *AuthGate) Mount(mux *http.ServeMux) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Scopes may change while serving (mcpgen dev), so the document is
		// made per request.
		auth.ProtectedResourceMetadataHandler(g.Metadata()).ServeHTTP(w, r)
	})
	if g.sub {
		mux.Handle(g.metadataPath, h)
		return
	}
	mux.Handle("/.well-known/oauth-protected-resource", h)
	mux.Handle(g.metadataPath, h)
	g.logger.Info("auth: bearer tokens required", "issuer", g.issuer, "resource", g.resource, "metadata", g.metadataURL)
	if v := g.oauth; v != nil {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), oauth.DefaultHTTPTimeout)
			defer cancel()
			if _, err := v.Discover(ctx); err != nil {
				g.logger.Warn("auth: issuer metadata not found yet; tokens cannot be verified until it is", "err", err)
			}
		}()
	}
}

// Wrap puts the token check in front of next.
func (g *AuthGate) Wrap(next http.Handler) http.Handler {
	inner := g.sdk(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodOptions {
			next.ServeHTTP(w, r) // a CORS preflight carries no token
			return
		}
		token, sent := bearerToken(r)
		if !sent {
			g.logger.Debug("auth: no bearer token", "remote", r.RemoteAddr)
			g.unauthorized(w, false)
			return
		}
		id, err := g.verify(r.Context(), token, r)
		if err != nil {
			if errors.Is(err, oauth.ErrInvalidToken) || errors.Is(err, auth.ErrInvalidToken) {
				attrs := []any{"remote", r.RemoteAddr}
				var te *oauth.TokenError
				if errors.As(err, &te) {
					attrs = append(attrs, "check", te.Check, "reason", te.Reason)
				} else {
					attrs = append(attrs, "err", err)
				}
				g.logger.Warn("auth: token refused", attrs...)
				g.unauthorized(w, true)
				return
			}
			var te *oauth.ThrottleError
			if errors.As(err, &te) {
				g.throttled(w, r, te)
				return
			}
			g.logger.Error("auth: cannot verify tokens", "err", err)
			w.Header().Set("Retry-After", "5")
			http.Error(w, "Service Unavailable: the authorization server cannot be reached", http.StatusServiceUnavailable)
			return
		}
		if id == nil || id.Subject == "" {
			g.logger.Warn("auth: token refused", "check", oauth.CheckSubject, "reason", "the verifier returned no subject", "remote", r.RemoteAddr)
			g.unauthorized(w, true)
			return
		}
		need := g.scopes
		if g.scopesFor != nil && r.Method == http.MethodPost {
			var extra []string
			var err error
			r, extra, err = g.peekScopes(r)
			if err != nil {
				g.badRequest(w, r, err)
				return
			}
			need = append(slices.Clip(need), extra...)
		}
		if !id.HasScopes(need...) {
			g.logger.Info("auth: insufficient scope", "sub", id.Subject, "needs", strings.Join(need, " "), "has", strings.Join(id.Scopes, " "))
			g.forbidden(w, id, need)
			return
		}
		inner.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), tokenInfoKey{}, tokenInfo(id))))
	})
}

// throttled answers a token that was not checked because introspection
// calls are over a bound: 429 when the caller's own, 503 when the one for
// everyone, with Retry-After either way. The token is neither accepted
// nor called invalid.
func (g *AuthGate) throttled(w http.ResponseWriter, r *http.Request, te *oauth.ThrottleError) {
	secs := int((te.RetryAfter + time.Second - 1) / time.Second)
	w.Header().Set("Retry-After", strconv.Itoa(max(secs, 1)))
	limit := fmt.Sprintf("%d/%s", te.Limit.N, ratespec.Short(te.Limit.Per))
	if te.Caller {
		g.logger.Warn("auth: too many unknown tokens from this caller; not asking the introspection endpoint (--auth-introspection-caller-limit)",
			"remote", httpedge.RemoteHost(r), "limit", limit)
		http.Error(w, "Too Many Requests: too many new access tokens from this address", http.StatusTooManyRequests)
		return
	}
	g.logger.Warn("auth: too many unknown tokens from all callers; not asking the introspection endpoint (--auth-introspection-limit)",
		"remote", httpedge.RemoteHost(r), "limit", limit)
	http.Error(w, "Service Unavailable: too many new access tokens to check; retry later", http.StatusServiceUnavailable)
}

// unauthorized answers 401 with the challenge that sends a client to the
// resource metadata (and names the scopes every request needs);
// error="invalid_token" only when a token was sent (RFC 6750 §3.1). The
// reason stays in the log.
func (g *AuthGate) unauthorized(w http.ResponseWriter, tokenSent bool) {
	c := fmt.Sprintf("Bearer resource_metadata=%q", g.metadataURL)
	if len(g.scopes) > 0 {
		// The scopes every request needs: clients ask for these rather than
		// every scope the metadata lists (MCP scope selection), and step up
		// when a tool needs more.
		c = fmt.Sprintf("Bearer resource_metadata=%q, scope=%q", g.metadataURL, strings.Join(g.scopes, " "))
	}
	if tokenSent {
		c = strings.Replace(c, "Bearer ", `Bearer error="invalid_token", `, 1)
	}
	w.Header().Set("WWW-Authenticate", c)
	http.Error(w, "Unauthorized", http.StatusUnauthorized)
}

// forbidden answers 403 insufficient_scope naming the scopes to ask for:
// those already granted plus those needed, so a client that re-authorizes
// with them keeps what it had (MCP scope challenge handling).
func (g *AuthGate) forbidden(w http.ResponseWriter, id *Identity, need []string) {
	ask := append(slices.Clone(id.Scopes), need...)
	slices.Sort(ask)
	ask = slices.Compact(ask)
	w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", scope=%q, resource_metadata=%q`, strings.Join(ask, " "), g.metadataURL))
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
// resources/read or prompts/get messages need, and gives back a request
// whose body reads from the start. It reads member names exactly, as the
// go-sdk dispatches them, and refuses (a non-nil error, answered 400) any
// body another JSON parser could read differently: one that is not a
// single JSON value, or whose message or params object has two members
// whose names differ only in case, or a member named like method, params,
// name or uri in another case. The scopes are checked again where the
// request is dispatched (Server.authorize), on the very values dispatched;
// this check answers a plain request with the 403 clients act on. A body
// over the size limit is left for the MCP handler to refuse.
func (g *AuthGate) peekScopes(r *http.Request) (*http.Request, []string, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, g.maxBody+1))
	r.Body.Close()
	r2 := r.Clone(r.Context())
	r2.Body = readBody(body) // endpoint.go
	if err != nil || int64(len(body)) > g.maxBody {
		return r2, nil, nil
	}
	calls, err := scopedCalls(body)
	if err != nil {
		return r2, nil, err
	}
	var need []string
	for _, c := range calls {
		need = append(need, g.scopesFor(c.method, c.name, c.uri)...)
	}
	return r2, need, nil
}

// scopedCall is what decides the scopes of one JSON-RPC message.
type scopedCall struct{ method, name, uri string }

// ambiguousError is a body the gate refuses to judge; code is the
// JSON-RPC error code of the answer.
type ambiguousError struct {
	code   int64
	reason string
}

func (e *ambiguousError) Error() string { return e.reason }

func ambiguous(code int64, format string, args ...any) error {
	return &ambiguousError{code: code, reason: fmt.Sprintf(format, args...)}
}

// scopedCalls reads the messages of a POST body (one JSON-RPC message or
// a batch), refusing what parsers could read differently (see peekScopes).
func scopedCalls(body []byte) ([]scopedCall, error) {
	b := bytes.TrimLeft(body, " \t\r\n")
	if len(b) > 0 && b[0] == '[' {
		var msgs []json.RawMessage
		if err := json.Unmarshal(b, &msgs); err != nil {
			return nil, ambiguous(jsonrpc.CodeParseError, "the body is not one JSON value (invalid JSON, or data after it): %v", err)
		}
		calls := make([]scopedCall, 0, len(msgs))
		for i, m := range msgs {
			c, err := scopedMessage(m)
			if err != nil {
				return nil, ambiguous(err.(*ambiguousError).code, "message %d of the batch: %v", i+1, err)
			}
			calls = append(calls, c)
		}
		return calls, nil
	}
	c, err := scopedMessage(b) // json.Unmarshal refuses data after the value

	if err != nil {
		return nil, err
	}
	return []scopedCall{c}, nil
}

// scopedMessage reads the method, and the name or URI a tools/call,
// resources/read or prompts/get dispatches on, of one message.
func scopedMessage(raw json.RawMessage) (scopedCall, error) {
	var c scopedCall
	m, err := exactMembers(raw, "message", "jsonrpc", "id", "method", "params")
	if err != nil {
		return c, err
	}
	if err := stringMember(m, "method", &c.method); err != nil {
		return c, err
	}
	switch c.method {
	case "tools/call", "prompts/get", "resources/read", "resources/subscribe", "completion/complete":
	default:
		return c, nil
	}
	p, ok := m["params"]
	if !ok || string(p) == "null" {
		return c, nil
	}
	if c.method == "completion/complete" {
		return completionRef(c, p)
	}
	pm, err := exactMembers(p, "params", "name", "uri")
	if err != nil {
		return c, err
	}
	if err := stringMember(pm, "name", &c.name); err != nil {
		return c, err
	}
	return c, stringMember(pm, "uri", &c.uri)
}

// completionRef reads what a completion/complete completes, from its
// params.ref: a prompt's name (ref/prompt) or a resource template's URI
// (ref/resource), as the go-sdk dispatches it.
func completionRef(c scopedCall, params json.RawMessage) (scopedCall, error) {
	pm, err := exactMembers(params, "params", "ref")
	if err != nil {
		return c, err
	}
	ref, ok := pm["ref"]
	if !ok || string(ref) == "null" {
		return c, nil
	}
	rm, err := exactMembers(ref, "ref", "type", "name", "uri")
	if err != nil {
		return c, err
	}
	var typ, name, uri string
	for _, err := range []error{stringMember(rm, "type", &typ), stringMember(rm, "name", &name), stringMember(rm, "uri", &uri)} {
		if err != nil {
			return c, err
		}
	}
	switch typ {
	case "ref/prompt":
		c.name = name
	case "ref/resource":
		c.uri = uri
	}
	return c, nil
}

// maxMembers bounds the members of a message or params object the gate
// accepts (a JSON-RPC message has five at most; MCP params a handful).
const maxMembers = 64

// exactMembers returns the members of the JSON object raw (what names
// it in errors) by name. It refuses a value that is not an object, two
// members whose names are equal ignoring case (encoding/json matches
// struct fields that way and keeps the last; the go-sdk matches exactly),
// a member whose name equals one of known ignoring case but not exactly,
// and more than maxMembers members.
func exactMembers(raw json.RawMessage, what string, known ...string) (map[string]json.RawMessage, error) {
	b := bytes.TrimLeft(raw, " \t\r\n")
	if len(b) == 0 || b[0] != '{' {
		return nil, ambiguous(jsonrpc.CodeInvalidRequest, "the %s is not a JSON object", what)
	}
	// The names first: that scan stops early on an object of many members,
	// and what it finds in a body that is not JSON does not matter, since
	// such a body is refused next.
	names, err := memberNames(b)
	if err != nil {
		return nil, ambiguous(jsonrpc.CodeParseError, "the %s: %v", what, err)
	}
	if len(names) > maxMembers {
		return nil, ambiguous(jsonrpc.CodeInvalidRequest, "the %s has more than %d members", what, maxMembers)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, ambiguous(jsonrpc.CodeParseError, "the %s: %v", what, err)
	}
	folded := make(map[string]string, len(names)) // foldCase(name) -> name
	for _, name := range names {
		f := foldCase(name)
		if n, dup := folded[f]; dup {
			return nil, ambiguous(jsonrpc.CodeInvalidRequest, "the %s has members %q and %q; send each member once, named exactly", what, n, name)
		}
		folded[f] = name
		for _, k := range known {
			if name != k && f == foldCase(k) {
				return nil, ambiguous(jsonrpc.CodeInvalidRequest, "the %s has a member %q; the protocol's is %q", what, name, k)
			}
		}
	}
	return m, nil
}

// memberNames lists the member names of obj, a JSON object, in order
// and with repeats, reading no further once it has found more than
// maxMembers. What it returns for a value that is not valid JSON is
// meaningless (but it returns).
func memberNames(obj []byte) ([]string, error) {
	var names []string
	depth := 0
	key := false // the next string at depth 1 is a member name
	for i := 0; i < len(obj); i++ {
		switch c := obj[i]; c {
		case '{', '[':
			depth++
			key = c == '{' && depth == 1
		case '}', ']':
			depth--
		case ',':
			key = depth == 1
		case '"':
			j := i + 1
			for ; j < len(obj) && obj[j] != '"'; j++ {
				if obj[j] == '\\' {
					j++
				}
			}
			if j >= len(obj) {
				return nil, errors.New("unterminated string")
			}
			if key {
				var name string
				if err := json.Unmarshal(obj[i:j+1], &name); err != nil {
					return nil, err
				}
				if names = append(names, name); len(names) > maxMembers {
					return names, nil
				}
				key = false
			}
			i = j
		}
	}
	return names, nil
}

// foldCase maps s to one representative of the strings
// strings.EqualFold finds equal to it: each rune becomes the least of its
// case-folding orbit (so "K", "k" and the Kelvin sign all become "K",
// and "ſ" becomes "S").
func foldCase(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		b.WriteRune(least)
	}
	return b.String()
}

// stringMember sets *dst to the string member name of m, if m has it;
// any other JSON value there is refused.
func stringMember(m map[string]json.RawMessage, name string, dst *string) error {
	v, ok := m[name]
	if !ok {
		return nil
	}
	if len(v) == 0 || v[0] != '"' || json.Unmarshal(v, dst) != nil {
		return ambiguous(jsonrpc.CodeInvalidRequest, "%q is not a string", name)
	}
	return nil
}

// badRequest answers a body the gate refused to judge with 400 and a
// JSON-RPC error saying why.
func (g *AuthGate) badRequest(w http.ResponseWriter, r *http.Request, err error) {
	code := int64(jsonrpc.CodeInvalidRequest)
	var ae *ambiguousError
	if errors.As(err, &ae) {
		code = ae.code
	}
	g.logger.Warn("auth: refused a request whose scopes cannot be read unambiguously", "reason", err.Error(), "remote", r.RemoteAddr)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	w.Write(wire.ErrorResponse(json.RawMessage("null"), &jsonrpc.Error{Code: code, Message: "Bad Request: " + err.Error()})) // fastpath.go
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
		if t := s.templateFor(uri); t != nil {
			return t.def.Scopes
		}
	case "resources/subscribe":
		return s.subscriptionScopes(uri)
	case "completion/complete":
		if name != "" {
			return s.completionScopes(completionKey{kind: "prompt", ref: name})
		}
		return s.completionScopes(completionKey{kind: "resource", ref: uri})
	}
	return nil
}

// templateFor returns the resource template the go-sdk reads uri with:
// of those that match it, the first by template text (the go-sdk tries its
// templates in that order), or nil.
func (s *Server) templateFor(uri string) *resourceTemplate {
	var found *resourceTemplate
	for _, t := range s.templates {
		if t.tpl.Match(uri) != nil && (found == nil || t.def.URI < found.def.URI) {
			found = t
		}
	}
	return found
}

// authorize checks, where a tools/call, resources/read or prompts/get is
// dispatched, that the caller has the scopes need of the tool, resource
// or prompt about to run (what names it). The gate in front has checked
// the scopes named in the body it read; this check is on the request the
// handler actually serves, whatever the body looked like. Without an
// identity it passes only when no token is expected: auth off, stdio, or
// behind mcpgen dev's front without auth.
func (s *Server) authorize(req mcp.Request, what string, need []string) error {
	if len(need) == 0 {
		return nil
	}
	extra := req.GetExtra()
	var id *Identity
	if extra != nil {
		id = IdentityOf(extra.TokenInfo)
	}
	if id == nil {
		if s.auth == nil || extra == nil || extra.Header == nil {
			return nil
		}
		s.logger.Error("auth: refused a call that reached its handler without a verified caller", "call", what)
	} else if id.HasScopes(need...) {
		return nil
	} else {
		s.logger.Warn("auth: insufficient scope where the call is dispatched", "sub", id.Subject, "call", what,
			"needs", strings.Join(need, " "), "has", strings.Join(id.Scopes, " "))
	}
	return &jsonrpc.Error{Code: wire.CodeInsufficientScope,
		Message: fmt.Sprintf("insufficient scope: %s needs scope %q; re-authorize with it", what, strings.Join(need, " "))}
}

// IdentityOf returns the identity the runtime keeps in a TokenInfo, or nil.
func IdentityOf(ti *auth.TokenInfo) *Identity {
	if ti == nil {
		return nil
	}
	id, _ := ti.Extra[identityKey].(*Identity)
	return id
}
