// Package devlink is the contract between mcpgen dev's front and the
// connector it runs: the run's key in the environment, and the headers that
// carry the key, the caller's verified identity and address on each
// forwarded request.
package devlink

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"time"

	"github.com/mcpgen/mcpgen/internal/authgate"
)

// KeyEnv is the environment variable through which mcpgen dev
// gives the connector it runs a secret for this run. With it set, the
// connector answers only requests carrying the secret (those of dev's
// front, which verified the host's token) and takes the caller's identity
// from the front instead of checking tokens itself.
const KeyEnv = "MCPGEN_DEV_FRONT_KEY"

// The headers dev's front adds to what it forwards to the connector.
const (
	KeyHeader      = "X-Mcpgen-Dev-Key"
	IdentityHeader = "X-Mcpgen-Dev-Identity"
	// CallerAddrHeader is the address of the host-facing client, so
	// per-caller rate limits without auth key callers by it rather than
	// by the front's own address.
	CallerAddrHeader = "X-Mcpgen-Dev-Caller-Addr"
	// OwnHeader marks the front's own requests (the lists it mirrors,
	// the set-up of its sessions), which are no host's: the connector
	// leaves them out of its request log, so `mcpgen dev` shows the
	// requests the developer's host made.
	OwnHeader = "X-Mcpgen-Dev-Own"
)

// devIdentity is an Identity as it travels in IdentityHeader.
type devIdentity struct {
	Subject  string         `json:"sub"`
	Scopes   []string       `json:"scopes,omitempty"`
	Issuer   string         `json:"iss,omitempty"`
	ClientID string         `json:"client_id,omitempty"`
	Expiry   int64          `json:"exp,omitempty"`
	Claims   map[string]any `json:"claims,omitempty"`
	Email    string         `json:"email,omitempty"`
	Name     string         `json:"name,omitempty"`
	Upstream string         `json:"upstream,omitempty"` // the user's upstream access token (--auth-upstream)
}

// EncodeIdentity encodes id for IdentityHeader.
func EncodeIdentity(id *authgate.Identity) string {
	d := devIdentity{Subject: id.Subject, Scopes: id.Scopes, Issuer: id.Issuer, ClientID: id.ClientID, Claims: id.Claims,
		Email: id.Email, Name: id.Name}
	if authgate.Upstream(id) != nil {
		// Behind mcpgen dev --auth-upstream the front holds the user's
		// upstream token: it goes along, over loopback with the run's key.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		d.Upstream, _ = authgate.Upstream(id)(ctx)
		cancel()
	}
	if !id.Expiry.IsZero() {
		d.Expiry = id.Expiry.Unix()
	}
	b, _ := json.Marshal(d)
	return base64.RawURLEncoding.EncodeToString(b)
}

func DecodeIdentity(s string) (*authgate.Identity, bool) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, false
	}
	var d devIdentity
	if json.Unmarshal(b, &d) != nil || d.Subject == "" {
		return nil, false
	}
	id := &authgate.Identity{Subject: d.Subject, Scopes: d.Scopes, Issuer: d.Issuer, ClientID: d.ClientID, Claims: d.Claims,
		Email: d.Email, Name: d.Name}
	if tok := d.Upstream; tok != "" {
		authgate.SetUpstream(id, func(context.Context) (string, error) { return tok, nil })
	}
	if d.Expiry != 0 {
		id.Expiry = unixTime(d.Expiry)
	}
	return id, true
}

func unixTime(sec int64) time.Time { return time.Unix(sec, 0) }
