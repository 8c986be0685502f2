package authserver

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"html/template"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/go-jose/go-jose/v4"
	"golang.org/x/oauth2"
)

func (s *Server) cors(w http.ResponseWriter) {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	w.Header().Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Mcp-Protocol-Version")
	w.Header().Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
}

func (s *Server) preflight(w http.ResponseWriter, r *http.Request) {
	s.cors(w)
	w.WriteHeader(http.StatusNoContent)
}

// metadata serves the RFC 8414 authorization server metadata.
func (s *Server) metadata(w http.ResponseWriter, r *http.Request) {
	s.cors(w)
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"issuer":                                         s.issuer,
		"authorization_endpoint":                         s.issuer + AuthorizePath,
		"token_endpoint":                                 s.issuer + TokenPath,
		"registration_endpoint":                          s.issuer + RegisterPath,
		"revocation_endpoint":                            s.issuer + RevokePath,
		"jwks_uri":                                       s.issuer + JWKSPath,
		"response_types_supported":                       []string{"code"},
		"grant_types_supported":                          []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":               []string{"S256"},
		"token_endpoint_auth_methods_supported":          []string{"none", "client_secret_post", "client_secret_basic"},
		"revocation_endpoint_auth_methods_supported":     []string{"none", "client_secret_post", "client_secret_basic"},
		"scopes_supported":                               s.scopes(),
		"authorization_response_iss_parameter_supported": true,
		"client_id_metadata_document_supported":          true,
	})
}

// jwks publishes the public key of the access tokens.
func (s *Server) jwks(w http.ResponseWriter, r *http.Request) {
	key, err := s.signingKey(r.Context())
	if err != nil {
		s.serverError(w, "cannot read the signing key", err)
		return
	}
	s.cors(w)
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: key.Public(), KeyID: s.kid(key), Algorithm: "EdDSA", Use: "sig"}}})
}

// maxRegistration bounds a registration request's body.
const maxRegistration = 16 << 10

// register is RFC 7591 dynamic client registration.
func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	s.cors(w)
	if !s.allow(w, r, "register", s.cfg.RegisterLimit) {
		return
	}
	var req struct {
		RedirectURIs  []string `json:"redirect_uris"`
		ClientName    string   `json:"client_name"`
		AuthMethod    string   `json:"token_endpoint_auth_method"`
		GrantTypes    []string `json:"grant_types"`
		ResponseTypes []string `json:"response_types"`
		Scope         string   `json:"scope"`
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRegistration+1))
	if err != nil || len(body) > maxRegistration || json.Unmarshal(body, &req) != nil {
		s.registerError(w, "invalid_client_metadata", "the body is not a JSON client metadata document of at most 16 KiB")
		return
	}
	if len(req.RedirectURIs) == 0 || len(req.RedirectURIs) > 10 {
		s.registerError(w, "invalid_redirect_uri", "redirect_uris needs 1 to 10 URIs")
		return
	}
	for _, u := range req.RedirectURIs {
		if why := checkRedirectURI(u); why != "" {
			s.registerError(w, "invalid_redirect_uri", "redirect URI "+u+": "+why)
			return
		}
	}
	for _, g := range req.GrantTypes {
		if g != "authorization_code" && g != "refresh_token" {
			s.registerError(w, "invalid_client_metadata", "grant_types may hold authorization_code and refresh_token only")
			return
		}
	}
	for _, rt := range req.ResponseTypes {
		if rt != "code" {
			s.registerError(w, "invalid_client_metadata", "response_types may hold code only")
			return
		}
	}
	if len(req.ClientName) > 200 {
		req.ClientName = req.ClientName[:200]
	}
	c := client{ID: random(16), Name: req.ClientName, RedirectURIs: req.RedirectURIs, AuthMethod: req.AuthMethod}
	var secret string
	switch req.AuthMethod {
	case "":
		c.AuthMethod = "client_secret_basic" // RFC 7591's default
		fallthrough
	case "client_secret_basic", "client_secret_post":
		secret = random(32)
		c.SecretHash = hashed(secret)
	case "none":
	default:
		s.registerError(w, "invalid_client_metadata", "token_endpoint_auth_method must be none, client_secret_post or client_secret_basic")
		return
	}
	if err := s.put(r.Context(), clientKey(c.ID), c, DefaultClientTTL, true); err != nil {
		s.serverError(w, "cannot store a registration", err)
		return
	}
	s.log.Info("auth: client registered", "client_id", c.ID, "client_name", c.Name, "redirect_uris", strings.Join(c.RedirectURIs, " "))
	out := map[string]any{"client_id": c.ID, "client_name": c.Name, "redirect_uris": c.RedirectURIs,
		"token_endpoint_auth_method": c.AuthMethod, "grant_types": []string{"authorization_code", "refresh_token"},
		"response_types": []string{"code"}}
	if secret != "" {
		out["client_secret"] = secret
		out["client_secret_expires_at"] = 0
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusCreated)
	json.NewEncoder(w).Encode(out)
}

// checkRedirectURI says what is wrong with a redirect URI a client
// registers ("" when nothing): absolute, no fragment, and http only on a
// loopback host (a native app's local listener); other schemes are a
// native app's own (claude://, cursor://) except those that run code.
func checkRedirectURI(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() {
		return "not an absolute URI"
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return "has a fragment"
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		if u.Host == "" {
			return "has no host"
		}
	case "http":
		h := u.Hostname()
		if ip := net.ParseIP(h); !(h == "localhost" || ip != nil && ip.IsLoopback()) {
			return "http is allowed for loopback hosts only; use https"
		}
	case "javascript", "data", "vbscript", "file", "blob":
		return "scheme " + u.Scheme + " is not allowed"
	}
	return ""
}

func (s *Server) registerError(w http.ResponseWriter, code, why string) {
	s.log.Warn("auth: registration refused", "error", code, "reason", why)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": why})
}

// authorizeRequest is what /authorize reads of its query.
type authorizeRequest struct {
	ClientID, RedirectURI, ResponseType, State, Challenge, Method, Scope, Resource string
}

func parseAuthorize(q url.Values) (authorizeRequest, string) {
	for k, v := range q {
		if len(v) > 1 {
			return authorizeRequest{}, "parameter " + k + " is repeated"
		}
	}
	return authorizeRequest{ClientID: q.Get("client_id"), RedirectURI: q.Get("redirect_uri"),
		ResponseType: q.Get("response_type"), State: q.Get("state"), Challenge: q.Get("code_challenge"),
		Method: q.Get("code_challenge_method"), Scope: q.Get("scope"), Resource: q.Get("resource")}, ""
}

// authorize checks an authorization request and shows the consent page.
// Until the client and its redirect URI are known good, errors are a page:
// the browser is never sent to an unchecked URI.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if !s.allow(w, r, "authorize", s.cfg.AuthorizeLimit) {
		return
	}
	req, bad := parseAuthorize(r.URL.Query())
	if bad != "" {
		s.errorPage(w, http.StatusBadRequest, bad)
		return
	}
	if req.ClientID == "" {
		s.errorPage(w, http.StatusBadRequest, "client_id is missing")
		return
	}
	c, err := s.lookupClient(ctx, req.ClientID)
	if err != nil {
		if errors.Is(err, errUnknownClient) {
			s.errorPage(w, http.StatusBadRequest, err.Error())
			return
		}
		s.log.Error("auth: cannot read a client", "err", err)
		s.errorPage(w, http.StatusServiceUnavailable, "the connector cannot read its state; try again")
		return
	}
	bound := req.RedirectURI
	if req.RedirectURI == "" && len(c.RedirectURIs) == 1 {
		req.RedirectURI = c.RedirectURIs[0]
	}
	if !slices.Contains(c.RedirectURIs, req.RedirectURI) {
		s.log.Warn("auth: authorization refused", "reason", "redirect_uri is not registered", "client_id", c.ID, "redirect_uri", req.RedirectURI)
		s.errorPage(w, http.StatusBadRequest, "redirect_uri is not one this client registered")
		return
	}
	back := func(code, why string) { s.redirectError(w, r, req.RedirectURI, req.State, code, why, c.ID) }
	if req.ResponseType != "code" {
		back("unsupported_response_type", "response_type must be code")
		return
	}
	if req.Challenge == "" || req.Method != "S256" {
		back("invalid_request", "PKCE is required: code_challenge with code_challenge_method=S256")
		return
	}
	if len(req.Challenge) != 43 {
		back("invalid_request", "code_challenge is not a base64url SHA-256")
		return
	}
	if req.Resource != "" && strings.TrimSuffix(req.Resource, "/") != s.resource {
		back("invalid_target", "resource must be "+s.resource)
		return
	}
	scopes := strings.Fields(req.Scope)
	supported := s.scopes()
	for _, sc := range scopes {
		if !slices.Contains(supported, sc) {
			back("invalid_scope", "scope "+sc+" is not one this connector grants")
			return
		}
	}
	browser := random(24)
	p := pending{ClientID: c.ID, RedirectURI: req.RedirectURI, Bound: bound, State: req.State, Challenge: req.Challenge,
		Scopes: scopes, Browser: hashed(browser)}
	id := random(24)
	if err := s.put(ctx, pendingKey(id), p, pendingTTL, true); err != nil {
		s.log.Error("auth: cannot store a pending authorization", "err", err)
		s.errorPage(w, http.StatusServiceUnavailable, "the connector cannot store its state; try again")
		return
	}
	// The consent form is bound to this browser by a cookie a cross-site
	// form post does not carry (SameSite=Lax), so no other site can
	// consent in the user's name.
	http.SetCookie(w, &http.Cookie{Name: consentCookie(id), Value: browser, Path: s.prefix + AuthorizePath,
		MaxAge: int(pendingTTL.Seconds()), HttpOnly: true, Secure: strings.HasPrefix(s.issuer, "https:"), SameSite: http.SameSiteLaxMode})
	name := c.Name
	if name == "" {
		name = "An unnamed client"
	}
	redirect, _ := url.Parse(req.RedirectURI)
	s.page(w, http.StatusOK, consentPage, map[string]any{
		"Connector": s.cfg.Name, "Client": name, "ClientID": c.ID, "RedirectHost": redirect.Host, "Redirect": req.RedirectURI,
		"Scopes": scopes, "Upstream": s.cfg.Upstream.Name, "Pending": id, "CSRF": s.csrf(ctx, id), "Action": s.prefix + AuthorizePath,
	})
}

func consentCookie(pendingID string) string { return "mcpgen_consent_" + pendingID[:12] }

// csrf is the form token of a pending authorization.
func (s *Server) csrf(ctx context.Context, pendingID string) string {
	key, err := s.key(ctx, csrfKeyName, 32)
	if err != nil {
		return ""
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(pendingID))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// consent takes the consent form's answer: deny returns the browser to
// the client with access_denied, allow sends it to the upstream.
func (s *Server) consent(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
	if err := r.ParseForm(); err != nil {
		s.errorPage(w, http.StatusBadRequest, "the consent form could not be read")
		return
	}
	id := r.PostForm.Get("pending")
	want := s.csrf(ctx, id)
	if len(id) < 12 || want == "" || !hmac.Equal([]byte(want), []byte(r.PostForm.Get("csrf"))) {
		s.log.Warn("auth: consent refused", "reason", "the form token is missing or wrong")
		s.errorPage(w, http.StatusForbidden, "this consent form is not valid; start signing in again from your application")
		return
	}
	var p pending
	if err := s.get(ctx, pendingKey(id), &p, true); err != nil {
		if !notFound(err) {
			s.log.Error("auth: cannot read a pending authorization", "err", err)
			s.errorPage(w, http.StatusServiceUnavailable, "the connector cannot read its state; try again")
			return
		}
		s.log.Warn("auth: consent refused", "reason", "the pending authorization is unknown or expired")
		s.errorPage(w, http.StatusBadRequest, "this sign-in has expired; start again from your application")
		return
	}
	cookie, cerr := r.Cookie(consentCookie(id))
	if cerr != nil || !hmac.Equal([]byte(hashed(cookie.Value)), []byte(p.Browser)) {
		s.log.Warn("auth: consent refused", "reason", "the form was posted from another browser or site (no consent cookie)", "client_id", p.ClientID)
		s.errorPage(w, http.StatusForbidden, "this consent form was not shown in this browser; start signing in again from your application")
		return
	}
	http.SetCookie(w, &http.Cookie{Name: consentCookie(id), Path: s.prefix + AuthorizePath, MaxAge: -1})
	if r.PostForm.Get("action") != "allow" {
		s.redirectError(w, r, p.RedirectURI, p.State, "access_denied", "the user declined", p.ClientID)
		return
	}
	cfg, err := s.up.config(s.up.ctx(ctx))
	if err != nil {
		s.log.Error("auth: the upstream cannot be reached", "upstream", s.cfg.Upstream.Name, "err", err)
		s.redirectError(w, r, p.RedirectURI, p.State, "temporarily_unavailable", "the identity provider cannot be reached", p.ClientID)
		return
	}
	p.Verifier, p.Nonce = oauth2.GenerateVerifier(), random(16)
	state := random(24)
	if err := s.put(ctx, upstreamKey(state), p, pendingTTL, true); err != nil {
		s.log.Error("auth: cannot store a pending authorization", "err", err)
		s.redirectError(w, r, p.RedirectURI, p.State, "temporarily_unavailable", "the connector cannot store its state", p.ClientID)
		return
	}
	opts := []oauth2.AuthCodeOption{oauth2.S256ChallengeOption(p.Verifier)}
	if s.up.idTokens != nil {
		opts = append(opts, oauth2.SetAuthURLParam("nonce", p.Nonce))
	}
	http.Redirect(w, r, cfg.AuthCodeURL(state, opts...), http.StatusFound)
}

// callback is where the upstream returns the browser.
func (s *Server) callback(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	var p pending
	if err := s.get(ctx, upstreamKey(q.Get("state")), &p, true); err != nil {
		if !notFound(err) {
			s.log.Error("auth: cannot read a pending authorization", "err", err)
			s.errorPage(w, http.StatusServiceUnavailable, "the connector cannot read its state; try again")
			return
		}
		s.log.Warn("auth: callback refused", "reason", "the state is unknown, expired or already used")
		s.errorPage(w, http.StatusBadRequest, "this sign-in has expired or was already completed; start again from your application")
		return
	}
	if e := q.Get("error"); e != "" {
		s.log.Warn("auth: the upstream refused the sign-in", "upstream", s.cfg.Upstream.Name, "error", e, "description", q.Get("error_description"))
		code := "access_denied"
		if e == "temporarily_unavailable" || e == "server_error" {
			code = e
		}
		s.redirectError(w, r, p.RedirectURI, p.State, code, "the identity provider refused: "+e, p.ClientID)
		return
	}
	cfg, err := s.up.config(s.up.ctx(ctx))
	if err != nil {
		s.log.Error("auth: the upstream cannot be reached", "upstream", s.cfg.Upstream.Name, "err", err)
		s.redirectError(w, r, p.RedirectURI, p.State, "temporarily_unavailable", "the identity provider cannot be reached", p.ClientID)
		return
	}
	tok, err := cfg.Exchange(s.up.ctx(ctx), q.Get("code"), oauth2.VerifierOption(p.Verifier))
	if err != nil {
		var re *oauth2.RetrieveError
		code := "temporarily_unavailable"
		if errors.As(err, &re) {
			code = "access_denied"
		}
		s.log.Warn("auth: the upstream code exchange failed", "upstream", s.cfg.Upstream.Name, "err", err)
		s.redirectError(w, r, p.RedirectURI, p.State, code, "the identity provider did not complete the sign-in", p.ClientID)
		return
	}
	u, err := s.up.user(ctx, tok, p.Nonce)
	if err != nil {
		s.log.Warn("auth: the upstream user cannot be established", "upstream", s.cfg.Upstream.Name, "err", err)
		s.redirectError(w, r, p.RedirectURI, p.State, "access_denied", "the identity provider's answer could not be verified", p.ClientID)
		return
	}
	g := grant{ID: random(16), ClientID: p.ClientID, Subject: u.Subject, Email: u.Email, Name: u.Name, Scopes: p.Scopes,
		Ends: s.now().Add(s.cfg.RefreshTTL)}
	if g.Upstream, err = s.seal(ctx, g.ID, tok); err != nil {
		s.log.Error("auth: cannot encrypt the upstream token", "err", err)
		s.redirectError(w, r, p.RedirectURI, p.State, "server_error", "the connector cannot store the sign-in", p.ClientID)
		return
	}
	c := random(32)
	if err := s.put(ctx, grantKey(g.ID), g, s.cfg.RefreshTTL, true); err == nil {
		err = s.put(ctx, codeKey(c), code{Grant: g.ID, ClientID: p.ClientID, RedirectURI: p.Bound, Challenge: p.Challenge}, codeTTL, true)
	}
	if err != nil {
		s.log.Error("auth: cannot store a grant", "err", err)
		s.redirectError(w, r, p.RedirectURI, p.State, "server_error", "the connector cannot store the sign-in", p.ClientID)
		return
	}
	s.log.Info("auth: signed in upstream", "sub", u.Subject, "upstream", s.cfg.Upstream.Name, "client_id", p.ClientID)
	v := url.Values{"code": {c}, "iss": {s.issuer}}
	if p.State != "" {
		v.Set("state", p.State)
	}
	http.Redirect(w, r, withQuery(p.RedirectURI, v), http.StatusFound)
}

// redirectError returns the browser to a checked redirect URI with an
// RFC 6749 error, and logs why.
func (s *Server) redirectError(w http.ResponseWriter, r *http.Request, redirect, state, code, why, clientID string) {
	s.log.Warn("auth: authorization refused", "error", code, "reason", why, "client_id", clientID)
	v := url.Values{"error": {code}, "error_description": {why}, "iss": {s.issuer}}
	if state != "" {
		v.Set("state", state)
	}
	http.Redirect(w, r, withQuery(redirect, v), http.StatusFound)
}

func withQuery(raw string, v url.Values) string {
	u, _ := url.Parse(raw)
	q := u.Query()
	for k, vs := range v {
		q[k] = vs
	}
	u.RawQuery = q.Encode()
	return u.String()
}

var (
	consentPage = template.Must(template.New("consent").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Allow {{.Client}}?</title>
<style>body{font:16px system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem}button{font:inherit;padding:.5rem 1rem;margin-right:.5rem}</style>
</head><body>
<h1>Allow {{.Client}} to use {{if .Connector}}{{.Connector}}{{else}}this connector{{end}}?</h1>
<p><strong>{{.Client}}</strong> (client {{.ClientID}}) asks to act as you. After you sign in with {{.Upstream}}, you will be sent back to <strong>{{.RedirectHost}}</strong> ({{.Redirect}}).</p>
{{if .Scopes}}<p>It asks for: {{range .Scopes}}<code>{{.}}</code> {{end}}</p>{{end}}
<p>Only allow applications you trust and started signing in from yourself.</p>
<form method="post" action="{{.Action}}">
<input type="hidden" name="pending" value="{{.Pending}}">
<input type="hidden" name="csrf" value="{{.CSRF}}">
<button type="submit" name="action" value="allow">Allow</button>
<button type="submit" name="action" value="deny">Deny</button>
</form></body></html>
`))
	errorTemplate = template.Must(template.New("error").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign-in failed</title></head><body>
<h1>Sign-in failed</h1><p>{{.}}</p></body></html>
`))
)

// page renders an HTML page that no other site may frame.
func (s *Server) page(w http.ResponseWriter, status int, t *template.Template, data any) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' *; frame-ancestors 'none'")
	w.WriteHeader(status)
	t.Execute(w, data)
}

// errorPage shows an error that cannot be sent to a redirect URI.
func (s *Server) errorPage(w http.ResponseWriter, status int, why string) {
	if status < 500 {
		s.log.Warn("auth: authorization refused", "reason", why)
	}
	s.page(w, status, errorTemplate, why)
}
