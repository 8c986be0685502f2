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

	"golang.org/x/sync/singleflight"
	"golang.org/x/time/rate"
)

// maxCachedAnswers bounds the introspection cache; past it, expired
// answers are dropped first, then arbitrary ones.
const maxCachedAnswers = 10_000

// negativeTTL is how long an "inactive" answer is remembered.
const negativeTTL = time.Minute

// Limit is at most N calls per Per: a bucket of N calls, refilled evenly
// over Per. N < 0 means no bound.
type Limit struct {
	N   int
	Per time.Duration
}

// The bounds on introspection calls when Config leaves them zero: made-up
// opaque tokens, which anyone can send, cost at most these calls to the
// authorization server (answers in the cache cost none).
var (
	DefaultIntrospectionLimit       = Limit{N: 600, Per: time.Minute}
	DefaultIntrospectionCallerLimit = Limit{N: 60, Per: time.Minute}
)

// maxCallers bounds how many callers' introspection buckets are kept;
// past it, full buckets (as good as new) are dropped first.
const maxCallers = 10_000

// callerKey carries the caller's address in a context (WithCaller).
type callerKey struct{}

// WithCaller returns ctx naming the address of the client that sent the
// token Verify is asked about, for the per-caller bound on introspection
// calls. Without it all callers share one bucket.
func WithCaller(ctx context.Context, addr string) context.Context {
	return context.WithValue(ctx, callerKey{}, addr)
}

// introspector asks an RFC 7662 endpoint about opaque tokens and caches
// each answer until the token expires (a refusal for negativeTTL), keyed
// by the token's SHA-256 so raw tokens are not kept. Calls that miss the
// cache are bounded: one call at a time per token, shared by whoever asks
// meanwhile; at most Config.IntrospectionCallerLimit per caller and
// Config.IntrospectionLimit in all (the caller whose check starts a call
// is the one charged). Over a bound the token is not judged (a
// *ThrottleError), never accepted, and nothing is cached.
type introspector struct {
	v     *Verifier
	mu    sync.Mutex
	cache map[[32]byte]answer

	flights   singleflight.Group
	global    *rate.Limiter // nil: no bound
	perCaller Limit         // N < 0: no bound
	callersMu sync.Mutex
	callers   map[string]*rate.Limiter
}

type answer struct {
	tok   *Token
	err   error
	until time.Time
}

func newIntrospector(v *Verifier) *introspector {
	in := &introspector{v: v, cache: make(map[[32]byte]answer), callers: make(map[string]*rate.Limiter)}
	g := v.cfg.IntrospectionLimit
	if g == (Limit{}) {
		g = DefaultIntrospectionLimit
	}
	if g.N >= 0 {
		in.global = newLimiter(g)
	}
	in.perCaller = v.cfg.IntrospectionCallerLimit
	if in.perCaller == (Limit{}) {
		in.perCaller = DefaultIntrospectionCallerLimit
	}
	return in
}

func newLimiter(l Limit) *rate.Limiter {
	if l.N == 0 || l.Per <= 0 {
		return rate.NewLimiter(0, 0) // refuses everything: a bound of nothing
	}
	return rate.NewLimiter(rate.Every(l.Per/time.Duration(l.N)), l.N)
}

func (in *introspector) cached(key [32]byte, now time.Time) (answer, bool) {
	in.mu.Lock()
	a, ok := in.cache[key]
	in.mu.Unlock()
	return a, ok && now.Before(a.until)
}

func (in *introspector) verify(ctx context.Context, raw string) (*Token, error) {
	key := tokenHash(raw)
	if a, ok := in.cached(key, in.v.now()); ok {
		// An answer is cached until exp; the skew must not stretch it.
		return a.tok, a.err
	}
	// Whoever asks about the same token while a call is out waits for
	// its answer. The call outlives a waiter that goes away (within the
	// HTTP client's timeout), so the others still get it.
	caller, _ := ctx.Value(callerKey{}).(string)
	flight := in.flights.DoChan(string(key[:]), func() (any, error) {
		now := in.v.now()
		if a, ok := in.cached(key, now); ok {
			return a.tok, a.err
		}
		if err := in.allow(caller, now); err != nil {
			return nil, err
		}
		tok, err := in.ask(context.WithoutCancel(ctx), raw)
		var te *TokenError
		switch {
		case err == nil:
			in.put(key, answer{tok: tok, until: tok.Expiry})
		case errors.As(err, &te):
			in.put(key, answer{err: err, until: now.Add(negativeTTL)})
		}
		return tok, err
	})
	select {
	case r := <-flight:
		tok, _ := r.Val.(*Token)
		return tok, r.Err
	case <-ctx.Done():
		return nil, unavailable("introspection: %v", ctx.Err())
	}
}

// allow takes one call from the caller's bucket and from the global one,
// or says which bound the call is over (taking nothing from the caller's
// bucket when the global one is empty).
func (in *introspector) allow(caller string, now time.Time) error {
	var mine *rate.Reservation
	if l := in.perCaller; l.N >= 0 {
		in.callersMu.Lock()
		lim := in.callers[caller]
		if lim == nil {
			if len(in.callers) >= maxCallers {
				in.evictCallers(now)
			}
			lim = newLimiter(l)
			in.callers[caller] = lim
		}
		in.callersMu.Unlock()
		mine = lim.ReserveN(now, 1)
		if !mine.OK() || mine.DelayFrom(now) > 0 {
			mine.CancelAt(now)
			return &ThrottleError{Caller: true, Limit: l, RetryAfter: retryAfter(l)}
		}
	}
	if in.global != nil && !in.global.AllowN(now, 1) {
		if mine != nil {
			mine.CancelAt(now)
		}
		l := in.v.cfg.IntrospectionLimit
		if l == (Limit{}) {
			l = DefaultIntrospectionLimit
		}
		return &ThrottleError{Limit: l, RetryAfter: retryAfter(l)}
	}
	return nil
}

// evictCallers drops the buckets that have refilled, then arbitrary ones
// while the map is still nearly full. callersMu is held.
func (in *introspector) evictCallers(now time.Time) {
	for k, lim := range in.callers {
		if lim.TokensAt(now) >= float64(lim.Burst()) {
			delete(in.callers, k)
		}
	}
	for k := range in.callers {
		if len(in.callers) < maxCallers*9/10 {
			break
		}
		delete(in.callers, k)
	}
}

// retryAfter is how long until a bucket of l has room for one more call.
func retryAfter(l Limit) time.Duration {
	if l.N <= 0 {
		return l.Per
	}
	return l.Per / time.Duration(l.N)
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
