package connector

import (
	"context"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"time"

	"github.com/mcpgen/mcpgen/internal/httpedge"
)

// DevFrontKeyEnv is the environment variable through which mcpgen dev
// gives the connector it runs a secret for this run. With it set, the
// connector answers only requests carrying the secret (those of dev's
// front, which verified the host's token) and takes the caller's identity
// from the front instead of checking tokens itself.
const DevFrontKeyEnv = "MCPGEN_DEV_FRONT_KEY"

// The headers dev's front adds to what it forwards to the connector.
const (
	DevKeyHeader      = "X-Mcpgen-Dev-Key"
	DevIdentityHeader = "X-Mcpgen-Dev-Identity"
	// DevCallerAddrHeader is the address of the host-facing client, so
	// per-caller rate limits without auth key callers by it rather than
	// by the front's own address.
	DevCallerAddrHeader = "X-Mcpgen-Dev-Caller-Addr"
	// DevOwnHeader marks the front's own requests (the lists it mirrors,
	// the set-up of its sessions), which are no host's: the connector
	// leaves them out of its request log, so `mcpgen dev` shows the
	// requests the developer's host made.
	DevOwnHeader = "X-Mcpgen-Dev-Own"
)

// devIdentity is an Identity as it travels in DevIdentityHeader.
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

// EncodeDevIdentity encodes id for DevIdentityHeader.
func EncodeDevIdentity(id *Identity) string {
	d := devIdentity{Subject: id.Subject, Scopes: id.Scopes, Issuer: id.Issuer, ClientID: id.ClientID, Claims: id.Claims,
		Email: id.Email, Name: id.Name}
	if id.upstream != nil {
		// Behind mcpgen dev --auth-upstream the front holds the user's
		// upstream token: it goes along, over loopback with the run's key.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		d.Upstream, _ = id.upstream(ctx)
		cancel()
	}
	if !id.Expiry.IsZero() {
		d.Expiry = id.Expiry.Unix()
	}
	b, _ := json.Marshal(d)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeDevIdentity(s string) (*Identity, bool) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, false
	}
	var d devIdentity
	if json.Unmarshal(b, &d) != nil || d.Subject == "" {
		return nil, false
	}
	id := &Identity{Subject: d.Subject, Scopes: d.Scopes, Issuer: d.Issuer, ClientID: d.ClientID, Claims: d.Claims,
		Email: d.Email, Name: d.Name}
	if tok := d.Upstream; tok != "" {
		id.upstream = func(context.Context) (string, error) { return tok, nil }
	}
	if d.Expiry != 0 {
		id.Expiry = unixTime(d.Expiry)
	}
	return id, true
}

// devFront admits only requests carrying the run's key, and passes the
// identity the front verified, and the address of the client the front
// serves, on to the handlers.
func (s *Server) devFront(next http.Handler) http.Handler {
	withInfo := sdkTokenInfo()(next)
	key := []byte(s.opts.devFrontKey)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get(DevKeyHeader)), key) != 1 {
			s.logger.Warn("dev: refused a request that did not come from mcpgen dev's front", "remote", r.RemoteAddr)
			http.Error(w, "Forbidden: this connector runs behind mcpgen dev; connect to the address mcpgen dev printed", http.StatusForbidden)
			return
		}
		if a := r.Header.Get(DevCallerAddrHeader); a != "" {
			r.Header.Set(httpedge.CallerHeader, a) // callerAddr set the front's own
		}
		raw := r.Header.Get(DevIdentityHeader)
		r.Header.Del(DevKeyHeader)
		r.Header.Del(DevIdentityHeader)
		r.Header.Del(DevCallerAddrHeader)
		if raw == "" {
			next.ServeHTTP(w, r) // the front's own requests (lists) have no caller
			return
		}
		id, ok := decodeDevIdentity(raw)
		if !ok {
			http.Error(w, "Bad Request: malformed "+DevIdentityHeader, http.StatusBadRequest)
			return
		}
		r.Header.Set("Authorization", "Bearer mcpgen-dev-front")
		withInfo.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), tokenInfoKey{}, tokenInfo(id))))
	})
}

func unixTime(sec int64) time.Time { return time.Unix(sec, 0) }
