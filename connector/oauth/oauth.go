// Package oauth verifies the bearer tokens a connector receives, as an OAuth
// 2.0 resource server: it turns an access token into a Token (subject,
// scopes, expiry, claims) or an error naming the check that failed.
//
// JWT access tokens are verified locally against the authorization server's
// published keys (found through RFC 8414 metadata, else OpenID discovery);
// opaque tokens are asked about at an RFC 7662 introspection endpoint. The
// package holds no HTTP middleware: package runtime plugs a Verifier into
// the MCP SDK's bearer-token middleware.
//
// The rules follow coreos/go-oidc's verifier: a Config fails closed (no
// audience, no verifier), claims are checked before the signature so a bad
// token never costs a key fetch, and the key set is refetched only for an
// unknown key id, at most once per RefetchInterval.
package oauth

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"golang.org/x/time/rate"
)

// Defaults for the zero values of Config.
const (
	DefaultSkew            = 30 * time.Second
	DefaultRefetchInterval = 5 * time.Second
	DefaultHTTPTimeout     = 10 * time.Second
	// MaxTokenBytes bounds the bearer tokens looked at; longer ones are
	// refused before any parsing.
	MaxTokenBytes = 16 << 10
)

// Algorithms are the JWS algorithms accepted by default: asymmetric ones
// only. HMAC would let anyone holding the shared secret mint tokens, and
// "none" is never accepted.
var Algorithms = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}

// Config says which tokens a Verifier accepts. Issuer and Audience are
// required: a Config without them is an error, never "accept anything".
type Config struct {
	// Issuer is the authorization server's issuer identifier. Tokens must
	// carry it in "iss". It must be https://, or http:// on a loopback host.
	Issuer string
	// Audience is what tokens must carry in "aud": the connector's resource
	// identifier (its public URL + "/mcp"), or the API identifier some
	// providers put there instead. A trailing slash is tolerated.
	Audience string
	// MoreAudiences are other resource identifiers of the same connector
	// whose tokens are accepted too (its /sse and /ws endpoints, which
	// clients that discover auth from them name as the resource).
	MoreAudiences []string
	// JWKSURL sets the key set's address and skips looking it up in the
	// issuer's metadata.
	JWKSURL string
	// IntrospectionURL is an RFC 7662 endpoint for tokens that are not
	// JWTs; ClientID and ClientSecret authenticate to it (HTTP Basic).
	// Without it, opaque tokens are refused.
	IntrospectionURL       string
	ClientID, ClientSecret string
	// IntrospectionLimit bounds the calls to the introspection endpoint
	// that miss the cache, for all callers together
	// (DefaultIntrospectionLimit when zero; N < 0: no bound), and
	// IntrospectionCallerLimit those one caller causes, by the address
	// Verify's context names (WithCaller; DefaultIntrospectionCallerLimit
	// when zero). Over either, Verify returns a *ThrottleError.
	IntrospectionLimit, IntrospectionCallerLimit Limit
	// Algorithms narrows the accepted JWS algorithms (default Algorithms);
	// symmetric algorithms and "none" are refused here too.
	Algorithms []string
	// Skew is the clock difference tolerated for exp, nbf and iat
	// (DefaultSkew when zero; negative means none).
	Skew time.Duration
	// RefetchInterval is the least time between two fetches of the key set
	// (DefaultRefetchInterval when zero): a token naming an unknown key id
	// triggers a fetch only when the last one is older.
	RefetchInterval time.Duration
	// HTTPClient fetches metadata and keys and calls introspection (a client
	// with a DefaultHTTPTimeout timeout when nil).
	HTTPClient *http.Client
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Token is what a verified access token says.
type Token struct {
	Subject  string
	Issuer   string
	Audience []string
	Scopes   []string
	ClientID string
	Expiry   time.Time
	IssuedAt time.Time
	// Claims are all the token's claims (for an introspected token, the
	// introspection answer), decoded from JSON.
	Claims map[string]any
}

// HasScopes reports whether t carries every scope in need.
func (t *Token) HasScopes(need []string) bool {
	for _, s := range need {
		found := false
		for _, have := range t.Scopes {
			if have == s {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// Verifier verifies access tokens against one Config. It is safe for
// concurrent use; keep one per process so its caches are shared.
type Verifier struct {
	cfg      Config
	issuer   string // canonical issuer (trailing slash trimmed for comparing)
	algs     []jose.SignatureAlgorithm
	client   *http.Client
	now      func() time.Time
	skew     time.Duration
	interval time.Duration

	// metadata discovery, done once on first need and retried at most
	// once per interval after a failure.
	metaMu      sync.Mutex
	meta        *Metadata
	metaErr     error
	metaLimiter *rate.Limiter

	keys *keySet

	introspection *introspector

	// verified remembers JWTs that passed every check, so a client reusing
	// its token (as clients do, call after call) costs a hash and a map
	// lookup instead of a signature verification.
	verifiedMu sync.Mutex
	verified   map[[32]byte]cachedToken
}

type cachedToken struct {
	tok   *Token
	until time.Time
}

// VerifiedTTL bounds how long a verified JWT is remembered (never past its
// expiry): a key the issuer withdraws stops being trusted within it.
const VerifiedTTL = 5 * time.Minute

// New checks cfg and returns a Verifier. It does not touch the network:
// metadata and keys are fetched on first use (or by Discover).
func New(cfg Config) (*Verifier, error) {
	if cfg.Issuer == "" {
		return nil, errors.New("oauth: no issuer: set the authorization server's issuer URL (--auth-issuer)")
	}
	if err := checkServerURL("issuer", cfg.Issuer); err != nil {
		return nil, err
	}
	if strings.TrimSpace(cfg.Audience) == "" {
		return nil, errors.New("oauth: no audience: set the connector's public URL (--public-url) or the audience its tokens carry (--auth-audience)")
	}
	if cfg.JWKSURL != "" {
		if err := checkServerURL("JWKS URL", cfg.JWKSURL); err != nil {
			return nil, err
		}
	}
	if cfg.IntrospectionURL != "" {
		if err := checkServerURL("introspection URL", cfg.IntrospectionURL); err != nil {
			return nil, err
		}
		if cfg.ClientID == "" {
			return nil, errors.New("oauth: introspection needs client credentials: set MCPGEN_AUTH_CLIENT_ID and MCPGEN_AUTH_CLIENT_SECRET")
		}
	}
	algs, err := allowedAlgorithms(cfg.Algorithms)
	if err != nil {
		return nil, err
	}
	v := &Verifier{
		cfg:      cfg,
		issuer:   cfg.Issuer,
		algs:     algs,
		client:   cfg.HTTPClient,
		now:      cfg.Now,
		skew:     cfg.Skew,
		interval: cfg.RefetchInterval,
	}
	if v.client == nil {
		v.client = &http.Client{Timeout: DefaultHTTPTimeout}
	}
	if v.now == nil {
		v.now = time.Now
	}
	switch {
	case v.skew == 0:
		v.skew = DefaultSkew
	case v.skew < 0:
		v.skew = 0
	}
	if v.interval <= 0 {
		v.interval = DefaultRefetchInterval
	}
	v.metaLimiter = rate.NewLimiter(rate.Every(v.interval), 1)
	v.keys = newKeySet(v.client, v.now, v.interval)
	v.verified = make(map[[32]byte]cachedToken)
	if cfg.IntrospectionURL != "" {
		v.introspection = newIntrospector(v)
	}
	return v, nil
}

// Config returns the configuration v was built from.
func (v *Verifier) Config() Config { return v.cfg }

func allowedAlgorithms(names []string) ([]jose.SignatureAlgorithm, error) {
	if len(names) == 0 {
		names = Algorithms
	}
	var out []jose.SignatureAlgorithm
	for _, n := range names {
		ok := false
		for _, a := range Algorithms {
			if n == a {
				ok = true
			}
		}
		if !ok {
			return nil, fmt.Errorf("oauth: algorithm %q is not accepted; use asymmetric ones: %s", n, strings.Join(Algorithms, ", "))
		}
		out = append(out, jose.SignatureAlgorithm(n))
	}
	return out, nil
}

// CheckServerURL reports whether raw may name an authorization server's
// URL (what says which, as in "issuer"): https://, or http:// on a loopback
// host (for local testing), and no query, fragment or user info. New runs
// the same check; a command line can call it first to report a usage error.
func CheckServerURL(what, raw string) error { return checkServerURL(what, raw) }

// checkServerURL is CheckServerURL.
func checkServerURL(what, raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("oauth: %s %q is not a URL: %v", what, raw, err)
	}
	if u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return fmt.Errorf("oauth: %s %q must be an absolute URL without query, fragment or user info", what, raw)
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if isLoopback(u.Hostname()) {
			return nil
		}
		return fmt.Errorf("oauth: %s %q must use https:// (http:// is accepted only on a loopback address, for local testing)", what, raw)
	}
	return fmt.Errorf("oauth: %s %q must use https://", what, raw)
}

// Verify checks a bearer token: a JWT locally, anything else by
// introspection when an endpoint is configured. A JWT that passed is
// remembered until it expires (at most VerifiedTTL); the Token returned is
// shared and must not be modified. Scopes are reported, not
// required: the caller decides what each request needs (Token.HasScopes). A token that fails a check
// returns a *TokenError (errors.Is(err, ErrInvalidToken)); a failure to
// reach the authorization server returns an error wrapping ErrUnavailable.
func (v *Verifier) Verify(ctx context.Context, raw string) (*Token, error) {
	if raw == "" {
		return nil, tokenErr(CheckFormat, "empty token")
	}
	if len(raw) > MaxTokenBytes {
		return nil, tokenErr(CheckFormat, "token longer than %d bytes", MaxTokenBytes)
	}
	if strings.Count(raw, ".") == 2 {
		key := tokenHash(raw)
		now := v.now()
		v.verifiedMu.Lock()
		c, ok := v.verified[key]
		v.verifiedMu.Unlock()
		if ok && now.Before(c.until) {
			return c.tok, nil
		}
		tok, err := v.verifyJWT(ctx, raw)
		if err == nil {
			until := tok.Expiry.Add(v.skew)
			if limit := now.Add(VerifiedTTL); limit.Before(until) {
				until = limit
			}
			v.remember(key, cachedToken{tok, until}, now)
		}
		return tok, err
	}
	if v.introspection != nil {
		return v.introspection.verify(ctx, raw)
	}
	return nil, tokenErr(CheckFormat, "not a JWT, and no introspection endpoint is configured for opaque tokens")
}

func (v *Verifier) remember(key [32]byte, c cachedToken, now time.Time) {
	v.verifiedMu.Lock()
	defer v.verifiedMu.Unlock()
	if len(v.verified) >= maxCachedAnswers {
		for k, old := range v.verified {
			if !now.Before(old.until) {
				delete(v.verified, k)
			}
		}
		for k := range v.verified {
			if len(v.verified) < maxCachedAnswers {
				break
			}
			delete(v.verified, k)
		}
	}
	v.verified[key] = c
}

// tokenHash keys caches by a digest so raw tokens are not kept.
func tokenHash(raw string) [32]byte { return sha256.Sum256([]byte(raw)) }
