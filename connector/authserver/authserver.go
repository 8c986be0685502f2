// Package authserver makes a connector the OAuth 2.1 authorization server
// its MCP clients see, in front of an upstream identity provider that lets
// no client register itself (GitHub, Google, Microsoft Entra ID, Okta, any
// OpenID Connect issuer).
//
// MCP clients register dynamically (RFC 7591) with the connector, which
// publishes its metadata (RFC 8414). /authorize checks the client's
// redirect URI exactly and requires PKCE S256, asks the user's consent for
// the named client, then sends the browser to the upstream with the
// connector's own client id and callback. The callback exchanges the
// upstream code, reads the user (a verified ID token, or GitHub's user
// API), and returns the browser to the MCP client with the connector's
// own one-time code. /token redeems it, and rotates refresh tokens; the
// access tokens are the connector's own short-lived JWTs (EdDSA, audience
// the connector's resource URL), so the upstream's tokens are never
// accepted in their place. The upstream's tokens are kept encrypted
// (AES-GCM) for handlers that call the upstream API as the user.
//
// All state lives in a store.Store (Records for the flow, Secrets for the
// keys), so the legs of a flow may land on different replicas sharing one.
// Every refusal is logged with its reason and fails closed.
package authserver

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/connector/store"
)

// Lifetimes of what the server issues.
const (
	DefaultAccessTTL  = 15 * time.Minute    // the connector's access tokens
	DefaultRefreshTTL = 30 * 24 * time.Hour // a grant (refresh-token family) unused for this long ends
	DefaultClientTTL  = 90 * 24 * time.Hour // a dynamic registration
	pendingTTL        = 10 * time.Minute    // from /authorize to the upstream's callback
	codeTTL           = time.Minute         // the connector's one-time code
	usedTTL           = 24 * time.Hour      // how long a redeemed code or refresh token is remembered, to catch replays
)

// The bounds on unauthenticated requests that write to the store, per
// client address.
var (
	DefaultRegisterLimit  = store.Bucket{Size: 30, Per: time.Minute}
	DefaultAuthorizeLimit = store.Bucket{Size: 120, Per: time.Minute}
)

// Config sets up a Server.
type Config struct {
	// PublicURL is the connector's public URL: the issuer of its tokens.
	// The protected resource (the tokens' audience) is PublicURL + "/mcp".
	PublicURL string
	// Upstream is the identity provider (ParseUpstream), with the
	// connector's client credentials there.
	Upstream               Upstream
	ClientID, ClientSecret string
	// Scopes are the connector's own scopes a client may ask for;
	// Declared, when set, adds those it returns at each request (mcpgen
	// dev, whose connector changes while it runs).
	Scopes   []string
	Declared func() []string
	// Store keeps the flow state and the keys. Required.
	Store store.Store
	// Name names the connector on the consent page.
	Name   string
	Logger *slog.Logger
	// HTTPClient calls the upstream (a client with a 10 s timeout when
	// nil).
	HTTPClient *http.Client
	// LoopbackDocuments lets client ID metadata documents be fetched from
	// loopback addresses (local development and tests; other non-public
	// addresses are always refused), and DocumentRoots sets the
	// certificate authorities trusted for them (the system's when nil).
	LoopbackDocuments bool
	DocumentRoots     *x509.CertPool
	// RegisterLimit bounds the registrations, and AuthorizeLimit the
	// authorization requests, of one client address (DefaultRegisterLimit
	// and DefaultAuthorizeLimit when zero): each writes to the store
	// before anyone has signed in.
	RegisterLimit, AuthorizeLimit store.Bucket
	// AccessTTL and RefreshTTL override the defaults.
	AccessTTL, RefreshTTL time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Server is the authorization server. It is safe for concurrent use.
type Server struct {
	cfg      Config
	issuer   string // PublicURL without a trailing slash
	resource string
	prefix   string // PublicURL's path
	up       *upstream
	docs     *http.Client // fetches client ID metadata documents
	records  store.Records
	secrets  store.Secrets
	log      *slog.Logger
	now      func() time.Time

	keysMu sync.Mutex
	keys   map[string]readKey // store secrets read so far
}

// readKey is a store secret and when it was read.
type readKey struct {
	key  []byte
	read time.Time
}

// KeyRecheck is how long the server uses a store secret (the signing,
// encryption and form keys) before reading it again. A secret never
// changes while the store keeps it; a store that loses it (a Redis
// restart without persistence) makes a new one on the next read, and
// every replica takes that one up within KeyRecheck instead of going on
// with a key no other replica has.
const KeyRecheck = time.Minute

// Paths of the server's endpoints, under the public URL's path.
const (
	MetadataPath     = "/.well-known/oauth-authorization-server"
	JWKSPath         = "/.well-known/mcpgen-jwks.json"
	AuthorizePath    = "/authorize"
	CallbackPath     = "/oauth/callback"
	TokenPath        = "/token"
	RegisterPath     = "/register"
	RevokePath       = "/revoke"
	signingKeyName   = "mcpgen.authserver.signing"
	encryptionKeyNam = "mcpgen.authserver.encryption"
	csrfKeyName      = "mcpgen.authserver.csrf"
)

// New checks cfg and builds the server.
func New(cfg Config) (*Server, error) {
	if cfg.Store == nil {
		return nil, errors.New("authserver: a store is required")
	}
	if cfg.ClientID == "" {
		return nil, errors.New("--auth-upstream needs the connector's client id at the upstream (--auth-client-id or $MCPGEN_AUTH_CLIENT_ID)")
	}
	pu, err := url.Parse(strings.TrimSuffix(cfg.PublicURL, "/"))
	if err != nil || pu.Host == "" || (pu.Scheme != "https" && pu.Scheme != "http") || pu.RawQuery != "" || pu.Fragment != "" {
		return nil, fmt.Errorf("--auth-upstream needs --public-url, an absolute http(s) URL such as https://mcp.example.com; got %q", cfg.PublicURL)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	if cfg.AccessTTL <= 0 {
		cfg.AccessTTL = DefaultAccessTTL
	}
	if cfg.RefreshTTL <= 0 {
		cfg.RefreshTTL = DefaultRefreshTTL
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.RegisterLimit.Size <= 0 {
		cfg.RegisterLimit = DefaultRegisterLimit
	}
	if cfg.AuthorizeLimit.Size <= 0 {
		cfg.AuthorizeLimit = DefaultAuthorizeLimit
	}
	s := &Server{cfg: cfg, issuer: pu.String(), resource: pu.String() + "/mcp", prefix: pu.Path,
		records: cfg.Store.Records(), secrets: cfg.Store.Secrets(), log: cfg.Logger, now: cfg.Now,
		docs: documentClient(cfg.LoopbackDocuments, cfg.DocumentRoots)}
	s.up, err = newUpstream(cfg.Upstream, cfg.ClientID, cfg.ClientSecret, s.issuer+CallbackPath, cfg.HTTPClient)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// scopes are the scopes a client may ask for.
func (s *Server) scopes() []string {
	all := append([]string{}, s.cfg.Scopes...) // [] rather than null in the metadata
	if s.cfg.Declared != nil {
		all = append(all, s.cfg.Declared()...)
	}
	slices.Sort(all)
	return slices.Compact(all)
}

// Issuer is the server's issuer identifier (the public URL).
func (s *Server) Issuer() string { return s.issuer }

// Resource is the protected resource its tokens are for (PublicURL + /mcp).
func (s *Server) Resource() string { return s.resource }

// CallbackURL is the redirect URI to register at the upstream provider.
func (s *Server) CallbackURL() string { return s.issuer + CallbackPath }

// Mount adds the server's endpoints to mux.
func (s *Server) Mount(mux *http.ServeMux) {
	mux.HandleFunc("GET "+MetadataPath, s.metadata)
	if s.prefix != "" {
		mux.HandleFunc("GET "+MetadataPath+s.prefix, s.metadata)
	}
	mux.HandleFunc("GET "+s.prefix+JWKSPath, s.jwks)
	mux.HandleFunc("POST "+s.prefix+RegisterPath, s.register)
	mux.HandleFunc("GET "+s.prefix+AuthorizePath, s.authorize)
	mux.HandleFunc("POST "+s.prefix+AuthorizePath, s.consent)
	mux.HandleFunc("GET "+s.prefix+CallbackPath, s.callback)
	mux.HandleFunc("POST "+s.prefix+TokenPath, s.token)
	mux.HandleFunc("POST "+s.prefix+RevokePath, s.revoke)
	for _, p := range []string{RegisterPath, TokenPath, RevokePath} {
		mux.HandleFunc("OPTIONS "+s.prefix+p, s.preflight)
	}
	s.log.Info("auth: the connector is the authorization server", "issuer", s.issuer, "upstream", s.cfg.Upstream.Name,
		"callback", s.CallbackURL())
}

// key returns the store secret name, read from the store at most once
// per KeyRecheck, so requests cost no round trip for it. While the store
// cannot be read, the copy read before is used.
func (s *Server) key(ctx context.Context, name string, size int) ([]byte, error) {
	now := s.now()
	s.keysMu.Lock()
	c, ok := s.keys[name]
	s.keysMu.Unlock()
	if ok && !now.Before(c.read) && now.Sub(c.read) < KeyRecheck {
		return c.key, nil
	}
	k, err := s.secrets.Key(ctx, name, size)
	if err != nil {
		if ok {
			return c.key, nil
		}
		return nil, fmt.Errorf("the store's secret %s: %w", name, err)
	}
	if ok && !bytes.Equal(k, c.key) {
		s.log.Warn("auth: the store's secret changed (the store lost its data?); tokens and forms made with the old one are refused",
			"secret", name)
	}
	s.keysMu.Lock()
	if s.keys == nil {
		s.keys = map[string]readKey{}
	}
	s.keys[name] = readKey{key: k, read: now}
	s.keysMu.Unlock()
	return k, nil
}

// allow takes one request of r's client address from the bucket of kind;
// when it is empty it answers 429 with Retry-After and returns false.
func (s *Server) allow(w http.ResponseWriter, r *http.Request, kind string, b store.Bucket) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ok, retry, err := s.cfg.Store.Limiter().Take(r.Context(), "oauth:"+kind+":"+host, 1, b)
	if err != nil {
		s.serverError(w, "cannot read a rate-limit bucket", err)
		return false
	}
	if !ok {
		s.log.Warn("auth: too many requests from one address", "endpoint", kind, "remote", host)
		w.Header().Set("Retry-After", strconv.Itoa(max(1, int((retry+time.Second-1)/time.Second))))
		http.Error(w, "Too Many Requests: try again later", http.StatusTooManyRequests)
		return false
	}
	return true
}

// errUnknownClient is wrapped by lookupClient's error for a client that is
// neither registered nor described by a valid metadata document.
var errUnknownClient = errors.New("unknown client")

// lookupClient finds a client: a dynamic registration, or the client ID
// metadata document its https client_id names. Other errors mean the
// store failed.
func (s *Server) lookupClient(ctx context.Context, id string) (*client, error) {
	if isDocumentClientID(id) {
		c, err := s.documentClientRecord(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", errUnknownClient, err)
		}
		return c, nil
	}
	var c client
	if err := s.get(ctx, clientKey(id), &c, false); err != nil {
		if notFound(err) {
			return nil, fmt.Errorf("%w %s: register it first", errUnknownClient, id)
		}
		return nil, err
	}
	return &c, nil
}

// signingKey is the Ed25519 key of the access tokens, from the store's
// secrets so that every replica signs with it.
func (s *Server) signingKey(ctx context.Context) (ed25519.PrivateKey, error) {
	seed, err := s.key(ctx, signingKeyName, ed25519.SeedSize)
	if err != nil {
		return nil, err
	}
	if len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("the store's signing secret has %d bytes, want %d", len(seed), ed25519.SeedSize)
	}
	return ed25519.NewKeyFromSeed(seed), nil
}
