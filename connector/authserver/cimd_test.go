package authserver_test

import (
	"crypto/x509"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpgen/mcpgen/connector/authserver"
)

// document serves client ID metadata documents over TLS on loopback:
// /client.json describes itself; the others are wrong in one way each.
func document(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var fetches atomic.Int64
	var srv *httptest.Server
	srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		doc := map[string]any{"client_id": srv.URL + r.URL.Path, "client_name": "Doc Client", "redirect_uris": []string{redirectURI},
			"token_endpoint_auth_method": "none"}
		switch r.URL.Path {
		case "/other-id.json":
			doc["client_id"] = srv.URL + "/client.json"
		case "/bad-redirect.json":
			doc["redirect_uris"] = []string{"http://evil.example/cb"}
		case "/secret.json":
			doc["token_endpoint_auth_method"] = "client_secret_basic"
		case "/redirect.json":
			http.Redirect(w, r, "/client.json", http.StatusFound)
			return
		case "/huge.json":
			doc["client_name"] = strings.Repeat("x", 70<<10)
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(doc)
	}))
	t.Cleanup(srv.Close)
	return srv, &fetches
}

func withDocuments(srv *httptest.Server, loopback bool) func(*authserver.Config) {
	return func(c *authserver.Config) {
		roots := x509.NewCertPool()
		roots.AddCert(srv.Certificate())
		c.DocumentRoots, c.LoopbackDocuments = roots, loopback
	}
}

// TestClientIDDocument: a client whose client_id is the https URL of its
// metadata document signs in without registering; the document is
// fetched once and then kept.
func TestClientIDDocument(t *testing.T) {
	srv, fetches := document(t)
	r := newReplicas(t, nil, 1, withDocuments(srv, true))
	client := srv.URL + "/client.json"
	verifier, challenge := pkce()
	back := r.signIn(client, challenge)
	status, out := r.redeem(client, back.Query().Get("code"), verifier)
	if status != http.StatusOK {
		t.Fatalf("token: %d %v\n%s", status, out, r.logs)
	}
	g, err := r.verify(out["access_token"])
	if err != nil || g.ClientID != client {
		t.Fatalf("Verify = %+v, %v; want client %s", g, err, client)
	}
	if n := fetches.Load(); n != 1 {
		t.Errorf("the document was fetched %d times; want once, then kept", n)
	}
}

func TestClientIDDocumentRefusals(t *testing.T) {
	srv, _ := document(t)
	r := newReplicas(t, nil, 1, withDocuments(srv, true))
	_, challenge := pkce()
	for path, log := range map[string]string{
		"/other-id.json":     "names another client_id",
		"/bad-redirect.json": "loopback hosts only",
		"/secret.json":       "only none is supported",
		"/redirect.json":     "redirects are not followed",
		"/huge.json":         "is over",
	} {
		client := srv.URL + path
		status, loc, _ := authorizeRefusal(t, r.authorizeURL(client, redirectURI, challenge))
		if status != http.StatusBadRequest || loc != "" {
			t.Errorf("%s: %d to %q; want a 400 page", path, status, loc)
		}
		r.wantLog(log)
	}
	for _, bad := range []string{"https://" + strings.TrimPrefix(srv.URL, "https://"), srv.URL + "/a/../client.json", srv.URL + "/client.json#x"} {
		q := url.Values{"client_id": {bad}}
		status, loc, _ := authorizeRefusal(t, r.url+"/authorize?"+q.Encode())
		if status != http.StatusBadRequest || loc != "" {
			t.Errorf("client_id %s: %d to %q; want a 400 page", bad, status, loc)
		}
	}
}

// TestClientIDDocumentSSRF: without LoopbackDocuments, a document on a
// loopback address is never fetched.
func TestClientIDDocumentSSRF(t *testing.T) {
	srv, fetches := document(t)
	r := newReplicas(t, nil, 1, withDocuments(srv, false))
	_, challenge := pkce()
	status, loc, _ := authorizeRefusal(t, r.authorizeURL(srv.URL+"/client.json", redirectURI, challenge))
	if status != http.StatusBadRequest || loc != "" || fetches.Load() != 0 {
		t.Errorf("%d to %q after %d fetches; want a 400 page and no fetch", status, loc, fetches.Load())
	}
	r.wantLog("not a public address")
}
