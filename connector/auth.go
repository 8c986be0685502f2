package connector

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/internal/authgate"
	"github.com/mcpgen/mcpgen/internal/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Identity returns the verified caller, or nil when auth is off (or for
// stdio).
func (c *Call) Identity() *Identity {
	if c == nil || c.Request == nil {
		return nil
	}
	extra := c.Request.GetExtra()
	if extra == nil {
		return nil
	}
	return authgate.FromTokenInfo(extra.TokenInfo)
}

// IdentityFrom returns the verified caller of the request a handler
// serves, or nil when auth is off.
func IdentityFrom(ctx context.Context) *Identity { return CallFrom(ctx).Identity() }

func scopesMeta(scopes []string) mcp.Meta {
	if len(scopes) == 0 {
		return nil
	}
	return mcp.Meta{authgate.ScopesMetaKey: scopes}
}

func (s *Server) setupAuth() error {
	if err := s.setupAuthServer(); err != nil {
		return err
	}
	if s.opts.auth == nil {
		return nil
	}
	perRequest := false
	for _, t := range s.app.Tools {
		perRequest = perRequest || len(t.Scopes) > 0
	}
	for _, r := range s.app.Resources {
		perRequest = perRequest || len(r.Scopes) > 0
	}
	for _, p := range s.app.Prompts {
		perRequest = perRequest || len(p.Scopes) > 0
	}
	cfg := authgate.Config{
		Auth: *s.opts.auth, PublicURL: s.opts.publicURL, Name: s.mcpName(), Logger: s.logger,
		MaxBody: s.opts.maxBodyBytes, Declared: s.declaredScopes,
	}
	if perRequest {
		cfg.ScopesFor = s.scopesFor
	}
	g, err := authgate.New(cfg)
	if err != nil {
		return err
	}
	s.auth = g
	return nil
}

// declaredScopes is the sorted union of the scopes tools, resources and
// prompts declare.
func (s *Server) declaredScopes() []string {
	var all []string
	for _, t := range s.app.Tools {
		all = append(all, t.Scopes...)
	}
	for _, r := range s.app.Resources {
		all = append(all, r.Scopes...)
	}
	for _, p := range s.app.Prompts {
		all = append(all, p.Scopes...)
	}
	slices.Sort(all)
	return slices.Compact(all)
}

// MountAuth adds the protected-resource metadata routes to mux when auth
// is on (see AuthGate.Mount).
func (s *Server) MountAuth(mux *http.ServeMux) {
	if s.authSrv != nil {
		s.authSrv.Mount(mux)
	}
	if s.auth != nil {
		s.auth.Mount(mux)
		s.mountStreamAuth(mux) // streamauth.go
	}
}

// scopesFor returns the scopes one request needs beyond the server-wide
// ones.
func (s *Server) scopesFor(method, name, uri string) []string {
	switch method {
	case "tools/call":
		if t, ok := s.tools[name]; ok {
			return t.def.Scopes
		}
	case "prompts/get":
		if p, ok := s.prompts[name]; ok {
			return p.Scopes
		}
	case "resources/read":
		if r, ok := s.resources[uri]; ok {
			return r.Scopes
		}
		if t := s.templateFor(uri); t != nil {
			return t.def.Scopes
		}
	case "resources/subscribe":
		return s.subscriptionScopes(uri)
	case "completion/complete":
		if name != "" {
			return s.completionScopes(completionKey{kind: "prompt", ref: name})
		}
		return s.completionScopes(completionKey{kind: "resource", ref: uri})
	}
	return nil
}

// templateFor returns the resource template the go-sdk reads uri with:
// of those that match it, the first by template text (the go-sdk tries its
// templates in that order), or nil.
func (s *Server) templateFor(uri string) *resourceTemplate {
	var found *resourceTemplate
	for _, t := range s.templates {
		if t.tpl.Match(uri) != nil && (found == nil || t.def.URI < found.def.URI) {
			found = t
		}
	}
	return found
}

// authorize checks, where a tools/call, resources/read or prompts/get is
// dispatched, that the caller has the scopes need of the tool, resource
// or prompt about to run (what names it). The gate in front has checked
// the scopes named in the body it read; this check is on the request the
// handler actually serves, whatever the body looked like. Without an
// identity it passes only when no token is expected: auth off, stdio, or
// behind mcpgen dev's front without auth.
func (s *Server) authorize(req mcp.Request, what string, need []string) error {
	if len(need) == 0 {
		return nil
	}
	extra := req.GetExtra()
	var id *Identity
	if extra != nil {
		id = authgate.FromTokenInfo(extra.TokenInfo)
	}
	if id == nil {
		if s.auth == nil || extra == nil || extra.Header == nil {
			return nil
		}
		s.logger.Error("auth: refused a call that reached its handler without a verified caller", "call", what)
	} else if id.HasScopes(need...) {
		return nil
	} else {
		s.logger.Warn("auth: insufficient scope where the call is dispatched", "sub", id.Subject, "call", what,
			"needs", strings.Join(need, " "), "has", strings.Join(id.Scopes, " "))
	}
	return &jsonrpc.Error{Code: wire.CodeInsufficientScope,
		Message: fmt.Sprintf("insufficient scope: %s needs scope %q; re-authorize with it", what, strings.Join(need, " "))}
}

// Identity is the verified caller of a request: who the access token was
// issued to, and what it allows.
type Identity = authgate.Identity

// TokenVerifier turns a bearer token into the caller's identity. r is the
// HTTP request that carried it. An error wrapping oauth.ErrInvalidToken or
// auth.ErrInvalidToken means "not acceptable" (401 invalid_token); any
// other error means the token could not be judged (503).
type TokenVerifier = authgate.TokenVerifier

// Auth makes the HTTP endpoint an OAuth 2.1 resource server (WithAuth).
type Auth = authgate.Auth
