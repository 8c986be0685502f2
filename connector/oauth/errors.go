package oauth

import (
	"errors"
	"fmt"
	"time"
)

// ErrInvalidToken is wrapped by every error that means "this token is not
// acceptable" (answered 401 with error="invalid_token").
var ErrInvalidToken = errors.New("invalid token")

// ErrUnavailable is wrapped by errors that mean the authorization server
// could not be asked (metadata, keys or introspection unreachable or
// malformed): the token was not judged, so it is neither accepted nor
// called invalid.
var ErrUnavailable = errors.New("authorization server unavailable")

// ErrThrottled is wrapped by the error of a token that was not judged
// because the calls to the introspection endpoint are over their bound
// (Config.IntrospectionLimit, Config.IntrospectionCallerLimit): neither
// accepted nor called invalid. See ThrottleError.
var ErrThrottled = errors.New("introspection calls over their limit")

// ThrottleError says which bound on introspection calls a token's check
// was over: the caller's (Caller) or the one for all callers.
type ThrottleError struct {
	Caller     bool
	Limit      Limit
	RetryAfter time.Duration // until the bucket has room again
}

func (e *ThrottleError) Error() string {
	who := "all callers"
	if e.Caller {
		who = "this caller"
	}
	return fmt.Sprintf("%v: at most %d introspection calls per %s for %s; the token was not checked", ErrThrottled, e.Limit.N, e.Limit.Per, who)
}

// Is makes errors.Is(err, ErrThrottled) hold for every ThrottleError.
func (e *ThrottleError) Is(target error) bool { return target == ErrThrottled }

// The checks a token can fail, as TokenError.Check reports them.
const (
	CheckFormat    = "format"    // not a well-formed JWT or token
	CheckAlgorithm = "alg"       // a JWS algorithm not accepted
	CheckIssuer    = "iss"       // issued by another server
	CheckAudience  = "aud"       // meant for another resource
	CheckExpiry    = "exp"       // expired or no expiry
	CheckNotBefore = "nbf"       // not valid yet (nbf or iat in the future)
	CheckSubject   = "sub"       // no subject
	CheckKey       = "kid"       // signed by a key the issuer does not publish
	CheckSignature = "signature" // signature does not verify
	CheckActive    = "active"    // introspection says inactive
)

// TokenError says which check a token failed and why. The reason is for
// the connector's log; clients are told no more than "invalid_token".
type TokenError struct {
	Check  string
	Reason string
}

func (e *TokenError) Error() string {
	return fmt.Sprintf("invalid token: %s: %s", e.Check, e.Reason)
}

// Is makes errors.Is(err, ErrInvalidToken) hold for every TokenError.
func (e *TokenError) Is(target error) bool { return target == ErrInvalidToken }

func tokenErr(check, format string, args ...any) *TokenError {
	return &TokenError{Check: check, Reason: fmt.Sprintf(format, args...)}
}

func unavailable(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUnavailable, fmt.Sprintf(format, args...))
}
