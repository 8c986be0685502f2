package authserver

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpgen/mcpgen/connector/store"
	"golang.org/x/oauth2"
)

// client is a dynamic registration.
type client struct {
	ID           string   `json:"client_id"`
	SecretHash   string   `json:"secret_hash,omitempty"` // "" for a public client
	Name         string   `json:"client_name,omitempty"`
	RedirectURIs []string `json:"redirect_uris"`
	AuthMethod   string   `json:"token_endpoint_auth_method"`
}

// pending is an authorization between /authorize and the upstream's
// callback.
type pending struct {
	ClientID    string `json:"client_id"`
	RedirectURI string `json:"redirect_uri"`
	// Bound is the redirect_uri as the request gave it ("" when it left
	// it out, the client having registered one): the token request must
	// repeat it (RFC 6749 4.1.3).
	Bound     string   `json:"bound_redirect_uri,omitempty"`
	State     string   `json:"state,omitempty"`
	Challenge string   `json:"code_challenge"`
	Scopes    []string `json:"scopes,omitempty"`
	Browser   string   `json:"browser"` // hash of the consent cookie
	// Set when the user consented and was sent upstream.
	Verifier string `json:"upstream_verifier,omitempty"`
	Nonce    string `json:"nonce,omitempty"`
}

// code is the connector's one-time authorization code.
type code struct {
	Grant       string `json:"grant"`
	ClientID    string `json:"client_id"`
	RedirectURI string `json:"redirect_uri"`
	Challenge   string `json:"code_challenge"`
}

// grant is what one authorization gave one client: the user, the scopes,
// and the upstream's tokens (encrypted). Its id is the refresh-token
// family: deleting it revokes every token issued from it.
type grant struct {
	ID       string    `json:"id"`
	ClientID string    `json:"client_id"`
	Subject  string    `json:"sub"`
	Email    string    `json:"email,omitempty"`
	Name     string    `json:"name,omitempty"`
	Scopes   []string  `json:"scopes,omitempty"`
	Upstream []byte    `json:"upstream"` // AES-GCM sealed oauth2.Token JSON
	Ends     time.Time `json:"ends"`
}

// refresh is a live refresh token.
type refresh struct {
	Grant    string `json:"grant"`
	ClientID string `json:"client_id"`
}

// Record keys. Codes and tokens are stored by hash, so the store's content
// holds no usable credential.
func clientKey(id string) string     { return "oauth:client:" + id }
func pendingKey(id string) string    { return "oauth:pending:" + id }
func upstreamKey(st string) string   { return "oauth:upstream:" + hashed(st) }
func codeKey(c string) string        { return "oauth:code:" + hashed(c) }
func usedCodeKey(c string) string    { return "oauth:usedcode:" + hashed(c) }
func grantKey(id string) string      { return "oauth:grant:" + id }
func refreshKey(t string) string     { return "oauth:refresh:" + hashed(t) }
func usedRefreshKey(t string) string { return "oauth:usedrefresh:" + hashed(t) }

func hashed(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// random returns n random bytes, base64url.
func random(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func (s *Server) put(ctx context.Context, key string, v any, ttl time.Duration, create bool) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if create {
		return s.records.Create(ctx, key, b, ttl)
	}
	return s.records.Put(ctx, key, b, ttl)
}

// get reads (or, with take, takes) the record under key into v.
func (s *Server) get(ctx context.Context, key string, v any, take bool) error {
	var b []byte
	var err error
	if take {
		b, err = s.records.Take(ctx, key)
	} else {
		b, err = s.records.Get(ctx, key)
	}
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("record %s is corrupt: %v", key, err)
	}
	return nil
}

func notFound(err error) bool { return errors.Is(err, store.ErrNotFound) }

// aead is AES-256-GCM under the store's encryption secret.
func (s *Server) aead(ctx context.Context) (cipher.AEAD, error) {
	key, err := s.key(ctx, encryptionKeyNam, 32)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// seal encrypts the upstream token for the grant id (the additional data,
// so a sealed token cannot be moved to another grant).
func (s *Server) seal(ctx context.Context, grantID string, t *oauth2.Token) ([]byte, error) {
	a, err := s.aead(ctx)
	if err != nil {
		return nil, err
	}
	plain, err := json.Marshal(t)
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, a.NonceSize())
	rand.Read(nonce)
	return a.Seal(nonce, nonce, plain, []byte(grantID)), nil
}

func (s *Server) open(ctx context.Context, grantID string, sealed []byte) (*oauth2.Token, error) {
	a, err := s.aead(ctx)
	if err != nil {
		return nil, err
	}
	if len(sealed) < a.NonceSize() {
		return nil, errors.New("the sealed upstream token is truncated")
	}
	plain, err := a.Open(nil, sealed[:a.NonceSize()], sealed[a.NonceSize():], []byte(grantID))
	if err != nil {
		return nil, fmt.Errorf("the upstream token does not decrypt: %v", err)
	}
	var t oauth2.Token
	if err := json.Unmarshal(plain, &t); err != nil {
		return nil, err
	}
	return &t, nil
}

// revokeGrant deletes a grant: every access and refresh token issued from
// it stops working.
func (s *Server) revokeGrant(ctx context.Context, id, why string) {
	if err := s.records.Delete(ctx, grantKey(id)); err != nil {
		s.log.Error("auth: cannot revoke a grant", "grant", id, "err", err)
		return
	}
	s.log.Warn("auth: grant revoked", "grant", id, "reason", why)
}
