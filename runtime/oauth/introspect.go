package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// maxCachedAnswers bounds the introspection cache; past it, expired
// answers are dropped first, then arbitrary ones.
const maxCachedAnswers = 10_000

// negativeTTL is how long an "inactive" answer is remembered.
const negativeTTL = time.Minute

// introspector asks an RFC 7662 endpoint about opaque tokens and caches
// each answer until the token expires (a refusal for negativeTTL), keyed
// by the token's SHA-256 so raw tokens are not kept.
type introspector struct {
	v     *Verifier
	mu    sync.Mutex
	cache map[[32]byte]answer
}

type answer struct {
	tok   *Token
	err   error
	until time.Time
}

func newIntrospector(v *Verifier) *introspector {
	return &introspector{v: v, cache: make(map[[32]byte]answer)}
}

func (in *introspector) verify(ctx context.Context, raw string) (*Token, error) {
	key := tokenHash(raw)
	now := in.v.now()
	in.mu.Lock()
	a, ok := in.cache[key]
	in.mu.Unlock()
	if ok && now.Before(a.until) {
		if a.err != nil {
			return nil, a.err
		}
		// An answer is cached until exp; the skew must not stretch it.
		return a.tok, nil
	}
	tok, err := in.ask(ctx, raw)
	var te *TokenError
	switch {
	case err == nil:
		in.put(key, answer{tok: tok, until: tok.Expiry})
	case errors.As(err, &te):
		in.put(key, answer{err: err, until: now.Add(negativeTTL)})
	}
	return tok, err
}

func (in *introspector) put(key [32]byte, a answer) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if len(in.cache) >= maxCachedAnswers {
		now := in.v.now()
		for k, old := range in.cache {
			if !now.Before(old.until) {
				delete(in.cache, k)
			}
		}
		for k := range in.cache {
			if len(in.cache) < maxCachedAnswers {
				break
			}
			delete(in.cache, k)
		}
	}
	in.cache[key] = a
}

// ask posts the token to the introspection endpoint and checks the answer
// like a JWT's claims: active, issuer (when given), audience, expiry,
// subject.
func (in *introspector) ask(ctx context.Context, raw string) (*Token, error) {
	cfg := in.v.cfg
	form := url.Values{"token": {raw}, "token_type_hint": {"access_token"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, cfg.IntrospectionURL, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, unavailable("introspection: %v", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.SetBasicAuth(url.QueryEscape(cfg.ClientID), url.QueryEscape(cfg.ClientSecret))
	resp, err := in.v.client.Do(req)
	if err != nil {
		return nil, unavailable("introspection %s: %v", cfg.IntrospectionURL, err)
	}
	defer resp.Body.Close()
	var body json.RawMessage
	if err := decodeJSON(resp, &body); err != nil {
		return nil, unavailable("introspection %s: %v", cfg.IntrospectionURL, err)
	}
	var ans struct {
		Active bool `json:"active"`
		claims
	}
	if err := json.Unmarshal(body, &ans); err != nil {
		return nil, unavailable("introspection %s: %v", cfg.IntrospectionURL, err)
	}
	if !ans.Active {
		return nil, tokenErr(CheckActive, "the introspection endpoint says the token is not active")
	}
	if ans.Issuer == "" {
		ans.Issuer = cfg.Issuer // RFC 7662 makes iss optional; the endpoint is the issuer's
	}
	tok, err := in.v.checkCommon(&ans.claims)
	if err != nil {
		return nil, err
	}
	all := map[string]any{}
	d := json.NewDecoder(bytes.NewReader(body))
	if err := d.Decode(&all); err == nil {
		tok.Claims = all
	}
	return tok, nil
}
