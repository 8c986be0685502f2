package front

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"

	"github.com/mcpgen/mcpgen/connector"
	"github.com/mcpgen/mcpgen/connector/authserver"
	"github.com/mcpgen/mcpgen/connector/store"
	"github.com/mcpgen/mcpgen/internal/authgate"
	"github.com/mcpgen/mcpgen/internal/devlink"
)

// Authorization in mcpgen dev: the front checks the host's bearer token
// exactly as a built connector would (the same authgate.Gate: 401 with
// the metadata challenge, 403 for missing scopes, sessions bound to the
// subject), then forwards each call to the connector with the verified
// identity in a header. The connector trusts that header only with this
// run's secret key, which it gets in $MCPGEN_DEV_FRONT_KEY, so another
// local process cannot make up an identity.

// newDevKey returns a fresh secret for one dev run.
func newDevKey() string {
	b := make([]byte, 32)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// Key is this run's secret, which the connector process must get in
// $MCPGEN_DEV_FRONT_KEY (devlink.KeyEnv) to trust what the front
// forwards: the verified caller, the host-facing client's address.
func (f *Front) Key() string { return f.key }

// AuthConfig configures Protect.
type AuthConfig struct {
	// Auth makes the front an OAuth resource server that verifies the
	// host's tokens, like a built connector with --auth-issuer.
	Auth *authgate.Auth
	// Upstream, instead of Auth, makes the front the authorization server
	// in front of an upstream identity provider, like a built connector
	// with --auth-upstream (its state in memory for the run).
	Upstream *connector.AuthUpstream
	// PublicURL names the resource; "" is http://Addr.
	PublicURL string
	// Addr is the front's own address, host:port.
	Addr string
	// Name is the connector's name, for the metadata.
	Name string
}

// Protect builds the front's auth gate once its address is known: without
// a PublicURL the resource is the front's own URL. Call it before Handler.
func (f *Front) Protect(cfg AuthConfig) error {
	public := cfg.PublicURL
	if public == "" {
		public = "http://" + cfg.Addr
	}
	logger := slog.New(slog.NewTextHandler(f.log, &slog.HandlerOptions{Level: slog.LevelInfo}))
	var a authgate.Auth
	if cfg.Upstream != nil {
		u := cfg.Upstream
		up, err := u.Resolve()
		if err != nil {
			return err
		}
		as, err := authserver.New(authserver.Config{
			PublicURL: public, Upstream: up, ClientID: u.ClientID, ClientSecret: u.ClientSecret,
			Declared: f.declaredScopes, Store: store.NewMemory(store.MemoryOptions{}), Name: cfg.Name, Logger: logger,
		})
		if err != nil {
			return fmt.Errorf("mcpgen dev: %v", err)
		}
		f.asrv, a = as, authgate.ForServer(as)
	} else {
		a = *cfg.Auth
	}
	g, err := authgate.New(authgate.Config{
		Auth:      a,
		PublicURL: public,
		Name:      cfg.Name,
		Logger:    logger,
		ScopesFor: f.scopesFor,
		Declared:  f.declaredScopes,
	})
	if err != nil {
		return err
	}
	f.gate = g
	return nil
}

// identityKey carries the verified caller from a host request to the
// requests the front makes to the connector on its behalf.
type identityKey struct{}

// addrKey carries the host-facing client's address the same way.
type addrKey struct{}

// ownKey marks the context of the front's own requests to the connector
// (devlink.OwnHeader): those made for no host request.
type ownKey struct{}

// own returns ctx marked as the front's own.
func own(ctx context.Context) context.Context { return context.WithValue(ctx, ownKey{}, true) }

// forwarding returns ctx carrying the caller of the host request req: its
// verified identity, and its address (which Handler put in
// devlink.CallerAddrHeader).
func forwarding(ctx context.Context, extra *mcp.RequestExtra) context.Context {
	if extra == nil {
		return ctx
	}
	if a := extra.Header.Get(devlink.CallerAddrHeader); a != "" {
		ctx = context.WithValue(ctx, addrKey{}, a)
	}
	if extra.TokenInfo == nil {
		return ctx
	}
	id := authgate.FromTokenInfo(extra.TokenInfo)
	if id == nil {
		return ctx
	}
	return context.WithValue(ctx, identityKey{}, id)
}

// frontTransport adds the run's key, and the caller's identity and
// address when the request is made on a caller's behalf, to every request
// to the connector.
type frontTransport struct {
	key     string
	next    http.RoundTripper
	schemas *schemaBytes // nil: not recorded (schemas.go)
}

func (t *frontTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set(devlink.KeyHeader, t.key)
	if id, ok := req.Context().Value(identityKey{}).(*authgate.Identity); ok {
		req.Header.Set(devlink.IdentityHeader, devlink.EncodeIdentity(id))
	}
	if a, ok := req.Context().Value(addrKey{}).(string); ok {
		req.Header.Set(devlink.CallerAddrHeader, a)
	}
	if req.Context().Value(ownKey{}) != nil {
		req.Header.Set(devlink.OwnHeader, "1")
	}
	resp, err := t.next.RoundTrip(req)
	if err == nil {
		t.schemas.watch(req, resp)
	}
	return resp, err
}

// client returns the HTTP client for talking to the connector.
func (f *Front) client(schemas *schemaBytes) *http.Client {
	return &http.Client{Transport: &frontTransport{key: f.key, next: http.DefaultTransport, schemas: schemas}}
}

// scopesFor returns the scopes the current connector declares for one
// request (its tools, resources and prompts list them in
// _meta["mcpgen/scopes"]): a completion needs those of its prompt or
// template, a subscription those of its resource.
func (f *Front) scopesFor(method, name, uri string) []string {
	f.mu.Lock()
	snap := f.snap
	f.mu.Unlock()
	if snap == nil {
		return nil
	}
	switch method {
	case "tools/call":
		for _, t := range snap.Tools {
			if t.Name == name {
				return metaScopes(t.Meta)
			}
		}
	case "prompts/get":
		for _, p := range snap.Prompts {
			if p.Name == name {
				return metaScopes(p.Meta)
			}
		}
	case "resources/read":
		for _, r := range snap.Resources {
			if r.URI == uri {
				return metaScopes(r.Meta)
			}
		}
		for _, t := range snap.Templates {
			if tpl, err := uritemplate.New(t.URITemplate); err == nil && tpl.Match(uri) != nil {
				return metaScopes(t.Meta)
			}
		}
	case "resources/subscribe":
		// The resource's scopes, or those of every template matching it.
		for _, r := range snap.Resources {
			if r.URI == uri {
				return metaScopes(r.Meta)
			}
		}
		var need []string
		for _, t := range snap.Templates {
			if tpl, err := uritemplate.New(t.URITemplate); err == nil && tpl.Match(uri) != nil {
				need = append(need, metaScopes(t.Meta)...)
			}
		}
		return need
	case "completion/complete":
		// A prompt's (by name) or a resource template's (by template).
		for _, p := range snap.Prompts {
			if name != "" && p.Name == name {
				return metaScopes(p.Meta)
			}
		}
		for _, t := range snap.Templates {
			if uri != "" && t.URITemplate == uri {
				return metaScopes(t.Meta)
			}
		}
	}
	return nil
}

// declaredScopes lists every scope the current connector declares.
func (f *Front) declaredScopes() []string {
	f.mu.Lock()
	snap := f.snap
	f.mu.Unlock()
	if snap == nil {
		return nil
	}
	var all []string
	for _, t := range snap.Tools {
		all = append(all, metaScopes(t.Meta)...)
	}
	for _, r := range snap.Resources {
		all = append(all, metaScopes(r.Meta)...)
	}
	for _, t := range snap.Templates {
		all = append(all, metaScopes(t.Meta)...)
	}
	for _, p := range snap.Prompts {
		all = append(all, metaScopes(p.Meta)...)
	}
	slices.Sort(all)
	return slices.Compact(all)
}

func metaScopes(m mcp.Meta) []string {
	list, _ := m[authgate.ScopesMetaKey].([]any)
	var out []string
	for _, v := range list {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
