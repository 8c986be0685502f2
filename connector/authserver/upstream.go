package authserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/connector/oauth"
	"golang.org/x/oauth2"
)

// Upstream is the identity provider users sign in with: an OpenID Connect
// issuer found through its discovery document, or a provider that is not
// OpenID (GitHub) named by its endpoints.
type Upstream struct {
	// Name says which provider it is in logs and on pages ("github",
	// "google", or the issuer URL).
	Name string
	// Issuer is an OpenID Connect issuer: its endpoints come from its
	// discovery document and the user from its verified ID token.
	Issuer string
	// AuthURL, TokenURL and UserURL name a provider without OpenID
	// Connect (used when Issuer is empty): the user is read from UserURL
	// (GitHub's /user shape: id, login, name, email).
	AuthURL, TokenURL, UserURL string
	// Scopes are asked of the upstream.
	Scopes []string
}

var tenantID = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// ParseUpstream turns an --auth-upstream value into an Upstream: "github",
// "google", "entra:TENANT" (a Microsoft Entra ID directory's tenant ID), or
// the https URL of any OpenID Connect issuer.
func ParseUpstream(s string) (Upstream, error) {
	switch {
	case s == "github":
		return Upstream{Name: "github", AuthURL: "https://github.com/login/oauth/authorize",
			TokenURL: "https://github.com/login/oauth/access_token", UserURL: "https://api.github.com/user",
			Scopes: []string{"read:user", "user:email"}}, nil
	case s == "google":
		return Upstream{Name: "google", Issuer: "https://accounts.google.com", Scopes: []string{"openid", "email", "profile"}}, nil
	case strings.HasPrefix(s, "entra:"):
		// The tenant's id, not a domain name: the discovery document of
		// a domain names the id in its issuer, which ID tokens carry.
		tenant := strings.TrimPrefix(s, "entra:")
		if !tenantID.MatchString(tenant) {
			return Upstream{}, fmt.Errorf("--auth-upstream %q: entra: needs the directory (tenant) ID, a GUID such as entra:72f988bf-86f1-41af-91ab-2d7cd011db47 (Entra admin center → Overview → Tenant ID); a domain name's tokens carry the ID as their issuer", s)
		}
		return Upstream{Name: "entra", Issuer: "https://login.microsoftonline.com/" + tenant + "/v2.0",
			Scopes: []string{"openid", "email", "profile", "offline_access"}}, nil
	case strings.Contains(s, "://"):
		if err := oauth.CheckServerURL("--auth-upstream", s); err != nil {
			return Upstream{}, errors.New(strings.TrimPrefix(err.Error(), "oauth: "))
		}
		return Upstream{Name: s, Issuer: s, Scopes: []string{"openid", "email", "profile"}}, nil
	}
	return Upstream{}, fmt.Errorf("--auth-upstream %q: want github, google, entra:TENANT or an OpenID Connect issuer URL (https://...)", s)
}

// user is who signed in upstream.
type user struct {
	Subject, Email, Name string
}

// upstream is the connector's client at the upstream provider.
type upstream struct {
	u        Upstream
	clientID string
	secret   string
	callback string
	client   *http.Client
	idTokens *oauth.Verifier // nil without OpenID Connect
}

func newUpstream(u Upstream, clientID, secret, callback string, c *http.Client) (*upstream, error) {
	up := &upstream{u: u, clientID: clientID, secret: secret, callback: callback, client: c}
	if u.Issuer != "" {
		// An ID token is a JWT from the issuer whose audience is our
		// client id: the resource-server verifier checks exactly that.
		v, err := oauth.New(oauth.Config{Issuer: u.Issuer, Audience: clientID, HTTPClient: c})
		if err != nil {
			return nil, err
		}
		up.idTokens = v
	} else if u.AuthURL == "" || u.TokenURL == "" || u.UserURL == "" {
		return nil, errors.New("authserver: an upstream needs an issuer, or its authorize, token and user URLs")
	}
	return up, nil
}

// config returns the oauth2 configuration, discovering the endpoints of
// an OpenID issuer.
func (up *upstream) config(ctx context.Context) (*oauth2.Config, error) {
	ep := oauth2.Endpoint{AuthURL: up.u.AuthURL, TokenURL: up.u.TokenURL}
	if up.idTokens != nil {
		md, err := up.idTokens.Discover(ctx)
		if err != nil {
			return nil, err
		}
		if md.AuthorizationEndpoint == "" || md.TokenEndpoint == "" {
			return nil, fmt.Errorf("the issuer %s publishes no authorization or token endpoint", up.u.Issuer)
		}
		ep = oauth2.Endpoint{AuthURL: md.AuthorizationEndpoint, TokenURL: md.TokenEndpoint}
	}
	return &oauth2.Config{ClientID: up.clientID, ClientSecret: up.secret, Endpoint: ep,
		RedirectURL: up.callback, Scopes: up.u.Scopes}, nil
}

func (up *upstream) ctx(ctx context.Context) context.Context {
	return context.WithValue(ctx, oauth2.HTTPClient, up.client)
}

// user reads who signed in: from the verified ID token (checking its
// nonce), or from the user API.
func (up *upstream) user(ctx context.Context, tok *oauth2.Token, nonce string) (user, error) {
	if up.idTokens != nil {
		raw, _ := tok.Extra("id_token").(string)
		if raw == "" {
			return user{}, errors.New("the upstream's token response has no id_token (is the openid scope asked for?)")
		}
		t, err := up.idTokens.Verify(ctx, raw)
		if err != nil {
			return user{}, fmt.Errorf("the upstream's ID token: %w", err)
		}
		if n, _ := t.Claims["nonce"].(string); n != nonce {
			return user{}, errors.New("the upstream's ID token carries another nonce")
		}
		email, _ := t.Claims["email"].(string)
		name, _ := t.Claims["name"].(string)
		return user{Subject: t.Subject, Email: email, Name: name}, nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, up.u.UserURL, nil)
	if err != nil {
		return user{}, err
	}
	req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	req.Header.Set("Accept", "application/json")
	resp, err := up.client.Do(req)
	if err != nil {
		return user{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return user{}, err
	}
	if resp.StatusCode != http.StatusOK {
		return user{}, fmt.Errorf("the upstream's user API %s answered %s", up.u.UserURL, resp.Status)
	}
	var gh struct {
		ID    json.Number `json:"id"`
		Login string      `json:"login"`
		Name  string      `json:"name"`
		Email string      `json:"email"`
	}
	if err := json.Unmarshal(body, &gh); err != nil {
		return user{}, fmt.Errorf("the upstream's user API: %v", err)
	}
	if _, err := strconv.ParseInt(string(gh.ID), 10, 64); err != nil || gh.Login == "" {
		return user{}, errors.New("the upstream's user API names no user (no numeric id and login)")
	}
	name := gh.Name
	if name == "" {
		name = gh.Login
	}
	return user{Subject: string(gh.ID), Email: gh.Email, Name: name}, nil
}
