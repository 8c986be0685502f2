package oauth

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// verifyJWT checks a JWT access token: header, then claims, and only then
// the signature, so a token that fails a cheap check never causes a key
// fetch.
func (v *Verifier) verifyJWT(ctx context.Context, raw string) (*Token, error) {
	if err := v.checkHeader(raw); err != nil {
		return nil, err
	}
	sig, err := jose.ParseSignedCompact(raw, v.algs)
	if err != nil {
		return nil, tokenErr(CheckFormat, "not a signed JWT: %v", err)
	}
	if len(sig.Signatures) != 1 {
		return nil, tokenErr(CheckFormat, "%d signatures; want exactly one", len(sig.Signatures))
	}
	tok, err := v.checkClaims(sig.UnsafePayloadWithoutVerification())
	if err != nil {
		return nil, err
	}
	jwksURL := v.cfg.JWKSURL
	if jwksURL == "" {
		m, err := v.Discover(ctx)
		if err != nil {
			return nil, err
		}
		if m.JWKSURI == "" {
			return nil, unavailable("issuer %q publishes no jwks_uri, so JWT access tokens cannot be verified", v.cfg.Issuer)
		}
		jwksURL = m.JWKSURI
	}
	if _, err := v.keys.verify(ctx, jwksURL, sig); err != nil {
		return nil, err
	}
	return tok, nil
}

// checkHeader reads the protected header first to name a refused
// algorithm plainly (the JOSE library's own error is generic).
func (v *Verifier) checkHeader(raw string) error {
	seg, _, _ := strings.Cut(raw, ".")
	b, err := base64.RawURLEncoding.DecodeString(seg)
	if err != nil {
		return tokenErr(CheckFormat, "header is not base64url: %v", err)
	}
	var h struct {
		Alg  string `json:"alg"`
		Crit []any  `json:"crit"`
	}
	if err := json.Unmarshal(b, &h); err != nil {
		return tokenErr(CheckFormat, "header is not a JSON object: %v", err)
	}
	if !slices.Contains(v.algs, jose.SignatureAlgorithm(h.Alg)) {
		return tokenErr(CheckAlgorithm, "algorithm %q is not accepted (accepted: %s)", h.Alg, joinAlgs(v.algs))
	}
	return nil
}

func joinAlgs(algs []jose.SignatureAlgorithm) string {
	s := make([]string, len(algs))
	for i, a := range algs {
		s[i] = string(a)
	}
	return strings.Join(s, ", ")
}

// claims are the registered claims mcpgen checks, with the lenient shapes
// providers use: aud a string or a list, scopes in "scope" (a space-
// separated string) or "scp" (a list or a string).
type claims struct {
	Issuer   string       `json:"iss"`
	Subject  string       `json:"sub"`
	Audience stringList   `json:"aud"`
	Expiry   *numericDate `json:"exp"`
	NotBef   *numericDate `json:"nbf"`
	IssuedAt *numericDate `json:"iat"`
	Scope    stringList   `json:"scope"`
	Scp      stringList   `json:"scp"`
	ClientID string       `json:"client_id"`
	AZP      string       `json:"azp"`
}

func (v *Verifier) checkClaims(payload []byte) (*Token, error) {
	var c claims
	if err := json.Unmarshal(payload, &c); err != nil {
		return nil, tokenErr(CheckFormat, "claims: %v", err)
	}
	all := map[string]any{}
	d := json.NewDecoder(bytes.NewReader(payload))
	if err := d.Decode(&all); err != nil {
		return nil, tokenErr(CheckFormat, "claims: %v", err)
	}
	tok, err := v.checkCommon(&c)
	if err != nil {
		return nil, err
	}
	tok.Claims = all
	return tok, nil
}

// checkCommon applies the checks shared by JWTs and introspection
// answers: issuer, audience, expiry, not-before, issued-at and subject.
func (v *Verifier) checkCommon(c *claims) (*Token, error) {
	if !sameIssuer(c.Issuer, v.cfg.Issuer) {
		return nil, tokenErr(CheckIssuer, "issuer %q is not the configured %q", c.Issuer, v.cfg.Issuer)
	}
	if !oauthex.MatchesResource(c.Audience, v.cfg.Audience) && !slices.ContainsFunc(v.cfg.MoreAudiences, func(a string) bool { return oauthex.MatchesResource(c.Audience, a) }) {
		return nil, tokenErr(CheckAudience, "audience %q does not include %q (set --auth-audience if the provider puts an API identifier there)", []string(c.Audience), v.cfg.Audience)
	}
	now := v.now()
	if c.Expiry == nil {
		return nil, tokenErr(CheckExpiry, "no exp claim")
	}
	exp := c.Expiry.time()
	if now.After(exp.Add(v.skew)) {
		return nil, tokenErr(CheckExpiry, "expired at %s (now %s)", exp.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
	}
	if c.NotBef != nil {
		if nbf := c.NotBef.time(); now.Add(v.skew).Before(nbf) {
			return nil, tokenErr(CheckNotBefore, "not valid before %s (now %s)", nbf.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
		}
	}
	var iat time.Time
	if c.IssuedAt != nil {
		iat = c.IssuedAt.time()
		if now.Add(v.skew).Before(iat) {
			return nil, tokenErr(CheckNotBefore, "issued in the future, at %s (now %s)", iat.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
		}
	}
	if c.Subject == "" {
		return nil, tokenErr(CheckSubject, "no sub claim: the caller cannot be identified")
	}
	scopes := c.Scope
	if len(scopes) == 0 {
		scopes = c.Scp
	}
	client := c.ClientID
	if client == "" {
		client = c.AZP
	}
	return &Token{
		Subject:  c.Subject,
		Issuer:   c.Issuer,
		Audience: c.Audience,
		Scopes:   scopes,
		ClientID: client,
		Expiry:   exp,
		IssuedAt: iat,
	}, nil
}

// stringList reads a JSON string (split on spaces, as OAuth scopes are)
// or a list of strings.
type stringList []string

func (l *stringList) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*l = nil
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*l = strings.Fields(s)
		return nil
	}
	var ss []string
	if err := json.Unmarshal(b, &ss); err != nil {
		return fmt.Errorf("want a string or a list of strings")
	}
	*l = ss
	return nil
}

// numericDate is a JWT NumericDate: seconds since the epoch, possibly
// fractional.
type numericDate float64

func (n *numericDate) UnmarshalJSON(b []byte) error {
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("a date must be a number of seconds")
	}
	if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 || f > 1e11 {
		return fmt.Errorf("date %v out of range", f)
	}
	*n = numericDate(f)
	return nil
}

func (n numericDate) time() time.Time {
	sec, frac := math.Modf(float64(n))
	return time.Unix(int64(sec), int64(frac*1e9))
}
