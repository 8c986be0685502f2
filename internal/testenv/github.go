package testenv

import (
	"crypto/sha256"
	"encoding/base64"
	"html/template"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"

	"github.com/mcpgen/mcpgen/connector/authserver"
)

// gitHubLogin is the GitHub stand-in's sign-in page: one button.
var gitHubLogin = template.Must(template.New("login").Parse(`<!doctype html><title>GitHub stand-in</title>
<form method="post" action="/login"><input type="hidden" name="redirect_uri" value="{{.Redirect}}">
<input type="hidden" name="state" value="{{.State}}"><input type="hidden" name="challenge" value="{{.Challenge}}">
<button type="submit">Sign in as octocat</button></form>`))

// GitHubStandIn answers GitHub's OAuth endpoints for one user, octocat:
// the token endpoint checks PKCE and issues gho_real, and /user answers
// for that token. With signInPage, /login/oauth/authorize shows a page
// whose "Sign in as octocat" button a browser presses; without, it signs
// in at once. It stops when the test ends.
func GitHubStandIn(t testing.TB, signInPage bool) *authserver.Upstream {
	var mu sync.Mutex
	challenges := map[string]string{}
	signIn := func(w http.ResponseWriter, r *http.Request, redirect, state, challenge string) {
		mu.Lock()
		challenges["c1"] = challenge
		mu.Unlock()
		http.Redirect(w, r, redirect+"?code=c1&state="+url.QueryEscape(state), http.StatusFound)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /login/oauth/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if !signInPage {
			signIn(w, r, q.Get("redirect_uri"), q.Get("state"), q.Get("code_challenge"))
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		gitHubLogin.Execute(w, map[string]string{"Redirect": q.Get("redirect_uri"), "State": q.Get("state"), "Challenge": q.Get("code_challenge")})
	})
	mux.HandleFunc("POST /login", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		signIn(w, r, r.PostForm.Get("redirect_uri"), r.PostForm.Get("state"), r.PostForm.Get("challenge"))
	})
	mux.HandleFunc("POST /login/oauth/access_token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		mu.Lock()
		ok := challenges[r.PostForm.Get("code")] == base64.RawURLEncoding.EncodeToString(sum[:])
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if !ok {
			io.WriteString(w, `{"error":"bad_verification_code"}`)
			return
		}
		io.WriteString(w, `{"access_token":"gho_real","token_type":"bearer","scope":"read:user"}`)
	})
	mux.HandleFunc("GET /user", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer gho_real" {
			http.Error(w, "{}", http.StatusUnauthorized)
			return
		}
		io.WriteString(w, `{"login":"octocat","id":583231,"name":"The Octocat","email":"octo@example.com"}`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &authserver.Upstream{Name: "github", AuthURL: srv.URL + "/login/oauth/authorize", TokenURL: srv.URL + "/login/oauth/access_token",
		UserURL: srv.URL + "/user", Scopes: []string{"read:user"}}
}
