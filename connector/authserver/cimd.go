package authserver

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// Client ID metadata documents: a client may use the https URL of a JSON
// document describing it as its client_id, instead of registering. The
// connector fetches the document with the care the MCP authorization
// specification asks for against server-side request forgery: https only,
// no redirects, a size and time bound, and connections only to public
// addresses (checked on the address actually dialled, so a DNS answer
// cannot point it inside the network), loopback only when allowed for
// local development.

const (
	maxDocument     = 64 << 10
	documentTimeout = 5 * time.Second
	documentTTL     = 10 * time.Minute // how long a fetched document is used
)

// isDocumentClientID reports whether id names a client ID metadata
// document rather than a registration.
func isDocumentClientID(id string) bool { return strings.HasPrefix(id, "https://") }

// checkDocumentURL says what is wrong with a client ID metadata document
// URL ("" when nothing): https, a host, a path, no fragment, no user info,
// no dot segments.
func checkDocumentURL(raw string) string {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return "not a URL"
	case u.Scheme != "https":
		return "not https"
	case u.Host == "" || u.User != nil:
		return "no host, or user info"
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return "has a fragment"
	case u.Path == "" || u.Path == "/":
		return "has no path"
	case strings.Contains("/"+u.Path+"/", "/./") || strings.Contains("/"+u.Path+"/", "/../"):
		return "has dot segments"
	}
	return ""
}

// documentClient is the HTTP client that fetches documents: no proxy, no
// redirects, and a dialer that refuses every address that is not public
// (loopback too unless allowLoopback).
func documentClient(allowLoopback bool, roots *x509.CertPool) *http.Client {
	dialer := &net.Dialer{Timeout: documentTimeout, Control: func(network, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return err
		}
		if ip := ap.Addr().Unmap(); !publicAddr(ip) && !(allowLoopback && ip.IsLoopback()) {
			return fmt.Errorf("refusing to connect to %s: not a public address", ip)
		}
		return nil
	}}
	return &http.Client{
		Timeout: documentTimeout,
		Transport: &http.Transport{DialContext: dialer.DialContext, TLSClientConfig: &tls.Config{RootCAs: roots},
			TLSHandshakeTimeout: documentTimeout, MaxResponseHeaderBytes: 16 << 10, DisableKeepAlives: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return errors.New("redirects are not followed") },
	}
}

// publicAddr reports whether ip is a global unicast address outside the
// private, shared, documentation and benchmarking ranges.
func publicAddr(ip netip.Addr) bool {
	if !ip.IsGlobalUnicast() || ip.IsPrivate() {
		return false
	}
	for _, p := range []string{"100.64.0.0/10", "192.0.0.0/24", "192.0.2.0/24", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "240.0.0.0/4", "2001:db8::/32", "64:ff9b::/96"} {
		if netip.MustParsePrefix(p).Contains(ip) {
			return false
		}
	}
	return true
}

// documentClientRecord returns the client a metadata document describes,
// from the store when fetched recently.
func (s *Server) documentClientRecord(ctx context.Context, id string) (*client, error) {
	if why := checkDocumentURL(id); why != "" {
		return nil, fmt.Errorf("client ID metadata document URL %s: %s", id, why)
	}
	key := clientKey("doc:" + hashed(id))
	var c client
	if err := s.get(ctx, key, &c, false); err == nil {
		return &c, nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, id, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.docs.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetching the client ID metadata document %s: %v", id, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocument+1))
	if err != nil {
		return nil, fmt.Errorf("reading the client ID metadata document %s: %v", id, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the client ID metadata document %s answered %s", id, resp.Status)
	}
	if len(body) > maxDocument {
		return nil, fmt.Errorf("the client ID metadata document %s is over %d bytes", id, maxDocument)
	}
	var doc struct {
		ClientID     string   `json:"client_id"`
		ClientName   string   `json:"client_name"`
		RedirectURIs []string `json:"redirect_uris"`
		AuthMethod   string   `json:"token_endpoint_auth_method"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("the client ID metadata document %s is not JSON client metadata: %v", id, err)
	}
	if doc.ClientID != id {
		return nil, fmt.Errorf("the client ID metadata document %s names another client_id (%q)", id, doc.ClientID)
	}
	if doc.AuthMethod != "" && doc.AuthMethod != "none" {
		return nil, fmt.Errorf("the client ID metadata document %s asks for token_endpoint_auth_method %q; only none is supported", id, doc.AuthMethod)
	}
	if len(doc.RedirectURIs) == 0 {
		return nil, fmt.Errorf("the client ID metadata document %s has no redirect_uris", id)
	}
	for _, u := range doc.RedirectURIs {
		if why := checkRedirectURI(u); why != "" {
			return nil, fmt.Errorf("the client ID metadata document %s: redirect URI %s: %s", id, u, why)
		}
	}
	if len(doc.ClientName) > 200 {
		doc.ClientName = doc.ClientName[:200]
	}
	c = client{ID: id, Name: doc.ClientName, RedirectURIs: doc.RedirectURIs, AuthMethod: "none"}
	if err := s.put(ctx, key, c, documentTTL, false); err != nil {
		return nil, err
	}
	s.log.Info("auth: client ID metadata document fetched", "client_id", id, "client_name", c.Name)
	return &c, nil
}
