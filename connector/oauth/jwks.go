package oauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"golang.org/x/time/rate"
)

// keySet is an issuer's published signing keys, fetched on demand and
// cached. It is refetched only when a token names a key id it does not
// hold, at most once per interval (checked with Allow, never waited for,
// so a flood of made-up key ids costs the issuer one request per interval
// and the callers nothing), and concurrent refetches share one request.
type keySet struct {
	client  *http.Client
	now     func() time.Time
	limiter *rate.Limiter

	mu       sync.Mutex
	url      string
	keys     []jose.JSONWebKey
	loaded   bool
	inflight *flight
}

type flight struct {
	done chan struct{}
	err  error
}

var errThrottled = errors.New("key set fetched too recently")

func newKeySet(c *http.Client, now func() time.Time, interval time.Duration) *keySet {
	return &keySet{client: c, now: now, limiter: rate.NewLimiter(rate.Every(interval), 1)}
}

// verify checks sig's signature against the published key it names,
// fetching the key set from url when that key is not known yet.
func (k *keySet) verify(ctx context.Context, url string, sig *jose.JSONWebSignature) ([]byte, error) {
	h := sig.Signatures[0].Header
	cands, loaded := k.find(url, h.KeyID, h.Algorithm)
	if len(cands) == 0 {
		if err := k.refresh(ctx, url); err != nil {
			if errors.Is(err, errThrottled) && loaded {
				return nil, tokenErr(CheckKey, "the issuer's key set has no key %q (not refetched: last fetch less than %s ago)", h.KeyID, k.interval())
			}
			if errors.Is(err, errThrottled) {
				return nil, unavailable("key set %s not loaded yet (last attempt failed; retrying in %s)", url, k.interval())
			}
			return nil, err
		}
		cands, _ = k.find(url, h.KeyID, h.Algorithm)
		if len(cands) == 0 {
			return nil, tokenErr(CheckKey, "the issuer's key set has no %s key %q", h.Algorithm, h.KeyID)
		}
	}
	for _, key := range cands {
		if payload, err := sig.Verify(key.Key); err == nil {
			return payload, nil
		}
	}
	return nil, tokenErr(CheckSignature, "signature does not verify with the issuer's key %q", h.KeyID)
}

func (k *keySet) interval() time.Duration {
	return time.Duration(float64(time.Second) / float64(k.limiter.Limit()))
}

// find returns the cached keys that may have signed a token with key id
// kid and algorithm alg, and whether a key set was loaded from url at all.
func (k *keySet) find(url, kid, alg string) ([]jose.JSONWebKey, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.url != url {
		return nil, false
	}
	var out []jose.JSONWebKey
	for _, key := range k.keys {
		if kid != "" && key.KeyID != kid {
			continue
		}
		if key.Algorithm != "" && key.Algorithm != alg {
			continue
		}
		if !keyFits(key.Key, alg) {
			continue
		}
		out = append(out, key)
	}
	return out, k.loaded
}

// keyFits reports whether a public key of this type can verify alg.
func keyFits(key any, alg string) bool {
	switch key.(type) {
	case *rsa.PublicKey:
		return strings.HasPrefix(alg, "RS") || strings.HasPrefix(alg, "PS")
	case *ecdsa.PublicKey:
		return strings.HasPrefix(alg, "ES")
	case ed25519.PublicKey:
		return alg == "EdDSA"
	}
	return false
}

// refresh fetches the key set unless the limiter says it was fetched too
// recently; callers arriving during a fetch wait for that one.
func (k *keySet) refresh(ctx context.Context, url string) error {
	k.mu.Lock()
	f := k.inflight
	if f == nil {
		if k.url == url && !k.limiter.AllowN(k.now(), 1) {
			k.mu.Unlock()
			return errThrottled
		}
		if k.url != url {
			k.url, k.keys, k.loaded = url, nil, false
			k.limiter.AllowN(k.now(), 1)
		}
		f = &flight{done: make(chan struct{})}
		k.inflight = f
		go k.fetch(url, f)
	}
	k.mu.Unlock()
	select {
	case <-f.done:
		return f.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// fetch runs detached from any one caller's context: a caller that gives
// up must not cancel the fetch the others wait for. The client's timeout
// bounds it.
func (k *keySet) fetch(url string, f *flight) {
	keys, err := k.get(url)
	k.mu.Lock()
	if err == nil && k.url == url {
		k.keys, k.loaded = keys, true
	}
	k.inflight = nil
	f.err = err
	k.mu.Unlock()
	close(f.done)
}

func (k *keySet) get(url string) ([]jose.JSONWebKey, error) {
	ctx, cancel := context.WithTimeout(context.Background(), DefaultHTTPTimeout)
	defer cancel()
	var doc struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if _, err := getJSON(ctx, k.client, url, &doc); err != nil {
		return nil, unavailable("key set %s: %v", url, err)
	}
	var keys []jose.JSONWebKey
	for _, raw := range doc.Keys {
		// A key of a type this build cannot read, or a malformed one, is
		// skipped rather than failing the whole set.
		var key jose.JSONWebKey
		if err := key.UnmarshalJSON(raw); err != nil || !key.Valid() {
			continue
		}
		if key.Use != "" && key.Use != "sig" {
			continue
		}
		if !key.IsPublic() {
			key = key.Public()
		}
		if !keyFits(key.Key, "RS256") && !keyFits(key.Key, "ES256") && !keyFits(key.Key, "EdDSA") {
			continue // symmetric keys never verify tokens here
		}
		keys = append(keys, key)
	}
	return keys, nil
}
