package authgate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/connector/oauth"
	"github.com/mcpgen/mcpgen/internal/httpedge"
	"github.com/mcpgen/mcpgen/internal/ratespec"
	"github.com/mcpgen/mcpgen/internal/wire"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// The HTTP+SSE and WebSocket endpoints are protected resources of their
// own URL: a client that meets a 401 at /sse discovers the metadata named
// by its challenge and asks for a token for that resource, and the
// official TypeScript SDK refuses metadata whose resource is not a prefix
// of the URL it connects to (…/mcp is not one of …/sse). So /sse and /ws
// answer with challenges naming their own metadata (resource …/sse, …/ws),
// and the connector accepts tokens for any of its three resources.

// Gate is the resource-server check in front of an MCP endpoint: it
// verifies the bearer token of every request, answers 401 and 403 with the
// challenges clients act on, and hands the identity to the SDK's session
// layer. A Server with WithAuth has one; mcpgen dev puts one in front of
// its own endpoint.
type Gate struct {
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

// Config says what an Gate protects.
type Config struct {
	Auth      Auth
	PublicURL string // the connector's public URL; the resource is PublicURL + "/mcp"
	Name      string // the resource's name in the metadata
	Logger    *slog.Logger
	MaxBody   int64 // bodies over it are not read for scopes (defaultMaxBody when 0)
	// ScopesFor, when set, gives the scopes of each tools/call,
	// resources/read and prompts/get; Declared lists every declared scope
	// for scopes_supported.
	ScopesFor ScopeFunc
	Declared  func() []string
}

// New checks cfg (an issuer and a public URL are required) and
// builds the gate, with the built-in verifier unless cfg.Auth has one.
func New(cfg Config) (*Gate, error) {
	a := cfg.Auth
	if a.Issuer == "" {
		return nil, errors.New("mcpgen runtime: auth needs the authorization server's issuer URL (--auth-issuer)")
	}
	if cfg.PublicURL == "" {
		return nil, errors.New("mcpgen runtime: auth needs the connector's public URL, which names the protected resource (--public-url, such as https://mcp.example.com)")
	}
	g := &Gate{issuer: a.Issuer, scopes: a.Scopes, verify: a.Verifier, logger: cfg.Logger, name: cfg.Name,
		maxBody: cfg.MaxBody, scopesFor: cfg.ScopesFor, declared: cfg.Declared, public: cfg.PublicURL}
	if g.logger == nil {
		g.logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	if g.maxBody == 0 {
		g.maxBody = defaultMaxBody
	}
	g.resource, g.metadataURL = ResourceURLs(cfg.PublicURL)
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
	g.sdk = SDKTokenInfo()
	return g, nil
}

// Resource is the protected resource's identifier (the public URL + /mcp).
func (g *Gate) Resource() string { return g.resource }

// Issuer is the authorization server's issuer URL.
func (g *Gate) Issuer() string { return g.issuer }

// ResourceURLs derives the resource identifier and its RFC 9728 metadata
// URL (the well-known path inserted before the resource's path) from the
// public URL.
func ResourceURLs(public string) (resource, metadata string) {
	public = strings.TrimSuffix(public, "/")
	resource = public + "/mcp"
	scheme, rest, _ := strings.Cut(resource, "://")
	host, path, _ := strings.Cut(rest, "/")
	return resource, scheme + "://" + host + "/.well-known/oauth-protected-resource/" + path
}

// Metadata returns the protected-resource metadata (RFC 9728).
func (g *Gate) Metadata() *oauthex.ProtectedResourceMetadata {
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

// Mount adds the protected-resource metadata routes to mux:
// /.well-known/oauth-protected-resource and the same with the resource's
// path (/mcp) appended, both readable cross-origin. It also looks the
// issuer up in the background, so a wrong --auth-issuer shows in the log
// at start-up rather than at the first call.
func (g *Gate) Mount(mux *http.ServeMux) {
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
func (g *Gate) Wrap(next http.Handler) http.Handler {
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
		inner.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), tokenInfoKey{}, TokenInfo(id))))
	})
}

// throttled answers a token that was not checked because introspection
// calls are over a bound: 429 when the caller's own, 503 when the one for
// everyone, with Retry-After either way. The token is neither accepted
// nor called invalid.
func (g *Gate) throttled(w http.ResponseWriter, r *http.Request, te *oauth.ThrottleError) {
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
func (g *Gate) unauthorized(w http.ResponseWriter, tokenSent bool) {
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
func (g *Gate) forbidden(w http.ResponseWriter, id *Identity, need []string) {
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
func (g *Gate) peekScopes(r *http.Request) (*http.Request, []string, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, g.maxBody+1))
	r.Body.Close()
	r2 := r.Clone(r.Context())
	r2.Body = httpedge.NewBody(body)
	if err != nil || int64(len(body)) > g.maxBody {
		return r2, nil, nil
	}
	calls, err := ScopedCalls(body)
	if err != nil {
		return r2, nil, err
	}
	var need []string
	for _, c := range calls {
		need = append(need, g.scopesFor(c.method, c.name, c.uri)...)
	}
	return r2, need, nil
}

// badRequest answers a body the gate refused to judge with 400 and a
// JSON-RPC error saying why.
func (g *Gate) badRequest(w http.ResponseWriter, r *http.Request, err error) {
	code := int64(jsonrpc.CodeInvalidRequest)
	var ae *ambiguousError
	if errors.As(err, &ae) {
		code = ae.code
	}
	g.logger.Warn("auth: refused a request whose scopes cannot be read unambiguously", "reason", err.Error(), "remote", r.RemoteAddr)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	w.Write(wire.ErrorResponse(json.RawMessage("null"), &jsonrpc.Error{Code: code, Message: "Bad Request: " + err.Error()}))
}

// StreamPaths are the paths of the message transports.
var StreamPaths = []string{httpedge.SSEPath, httpedge.WebSocketPath}

// streamAudiences returns the resource identifiers of the /sse and /ws
// endpoints under public, accepted as audiences besides the /mcp one; none
// when the operator set the audience (--auth-audience).
func streamAudiences(audience, public string) []string {
	if audience != "" {
		return nil
	}
	var out []string
	for _, p := range StreamPaths {
		out = append(out, strings.TrimSuffix(public, "/")+p)
	}
	return out
}

// ForPath returns the gate for another endpoint of the same connector
// (httpedge.SSEPath, httpedge.WebSocketPath): the same token checks, with challenges and
// metadata naming public URL + path as the resource. Its Mount serves that
// metadata only.
func (g *Gate) ForPath(path string) *Gate {
	cp := *g
	cp.sub = true
	cp.resource, cp.metadataURL = ResourceURLs(g.public)
	cp.resource = strings.TrimSuffix(cp.resource, "/mcp") + path
	cp.metadataURL = strings.TrimSuffix(cp.metadataURL, "/mcp") + path
	cp.metadataPath = cp.metadataURL[strings.Index(cp.metadataURL, "/.well-known/"):]
	return &cp
}

// defaultMaxBody is the bound on a body read for its scopes when
// Config.MaxBody is 0.
const defaultMaxBody = 4 << 20
