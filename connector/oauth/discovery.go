package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// Metadata is what mcpgen reads of an authorization server's metadata
// (RFC 8414; OpenID Connect Discovery uses the same names).
type Metadata struct {
	Issuer                        string   `json:"issuer"`
	AuthorizationEndpoint         string   `json:"authorization_endpoint,omitempty"`
	TokenEndpoint                 string   `json:"token_endpoint,omitempty"`
	RegistrationEndpoint          string   `json:"registration_endpoint,omitempty"`
	IntrospectionEndpoint         string   `json:"introspection_endpoint,omitempty"`
	JWKSURI                       string   `json:"jwks_uri,omitempty"`
	ScopesSupported               []string `json:"scopes_supported,omitempty"`
	CodeChallengeMethodsSupported []string `json:"code_challenge_methods_supported,omitempty"`
}

// maxDocumentBytes bounds metadata, key set and introspection answers.
const maxDocumentBytes = 1 << 20

// MetadataURLs returns where an issuer's metadata is looked for, in order:
// RFC 8414's well-known URI (inserted before the issuer's path), OpenID
// Connect Discovery with the same insertion, then OpenID Connect Discovery
// appended to the issuer (the form most OpenID providers serve).
func MetadataURLs(issuer string) []string {
	u, err := url.Parse(issuer)
	if err != nil {
		return nil
	}
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	origin := u.Scheme + "://" + u.Host
	urls := []string{origin + "/.well-known/oauth-authorization-server" + path}
	if path != "" {
		urls = append(urls, origin+"/.well-known/openid-configuration"+path)
	}
	return append(urls, origin+path+"/.well-known/openid-configuration")
}

// Discover fetches the issuer's metadata unless it is already known. A
// failed attempt is retried at most once per RefetchInterval; in between
// the last error is returned.
func (v *Verifier) Discover(ctx context.Context) (*Metadata, error) {
	v.metaMu.Lock()
	defer v.metaMu.Unlock()
	if v.meta != nil {
		return v.meta, nil
	}
	if v.metaErr != nil && !v.metaLimiter.AllowN(v.now(), 1) {
		return nil, v.metaErr
	}
	if v.metaErr == nil {
		v.metaLimiter.AllowN(v.now(), 1) // the first attempt spends the token too
	}
	m, err := v.discover(ctx)
	if err != nil {
		v.metaErr = err
		return nil, err
	}
	v.meta, v.metaErr = m, nil
	return m, nil
}

func (v *Verifier) discover(ctx context.Context) (*Metadata, error) {
	var errs []string
	for _, u := range MetadataURLs(v.cfg.Issuer) {
		var m Metadata
		status, err := getJSON(ctx, v.client, u, &m)
		if status == http.StatusNotFound || status == http.StatusMethodNotAllowed {
			errs = append(errs, fmt.Sprintf("%s: %d", u, status))
			continue
		}
		if err != nil {
			return nil, unavailable("issuer metadata %s: %v", u, err)
		}
		if !sameIssuer(m.Issuer, v.cfg.Issuer) {
			return nil, unavailable("issuer metadata %s names issuer %q, not %q", u, m.Issuer, v.cfg.Issuer)
		}
		if m.JWKSURI != "" {
			if err := checkFetchURL(m.JWKSURI); err != nil {
				return nil, unavailable("issuer metadata %s: jwks_uri: %v", u, err)
			}
		}
		return &m, nil
	}
	return nil, unavailable("no metadata found for issuer %q (tried %s)", v.cfg.Issuer, strings.Join(errs, ", "))
}

// sameIssuer compares issuer identifiers, tolerating a trailing slash on
// either side (providers differ, and users type both forms).
func sameIssuer(a, b string) bool {
	return a != "" && strings.TrimSuffix(a, "/") == strings.TrimSuffix(b, "/")
}

// checkFetchURL requires https://, or http:// on a loopback host.
func checkFetchURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	if u.Scheme == "https" && u.Host != "" {
		return nil
	}
	if u.Scheme == "http" && isLoopback(u.Hostname()) {
		return nil
	}
	return fmt.Errorf("%q must use https:// (http:// only on a loopback address)", raw)
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// getJSON GETs u and decodes a JSON answer into dst. It returns the HTTP
// status (0 when there was no answer).
func getJSON(ctx context.Context, c *http.Client, u string, dst any) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	return resp.StatusCode, decodeJSON(resp, dst)
}

func decodeJSON(resp *http.Response, dst any) error {
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, maxDocumentBytes))
		return fmt.Errorf("HTTP %s", resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocumentBytes+1))
	if err != nil {
		return err
	}
	if len(body) > maxDocumentBytes {
		return errors.New("answer larger than 1 MiB")
	}
	if err := json.Unmarshal(body, dst); err != nil {
		return fmt.Errorf("not the expected JSON: %v", err)
	}
	return nil
}
