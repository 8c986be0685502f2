package connector_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpgen/mcpgen/connector"
	"github.com/mcpgen/mcpgen/internal/testenv"
)

// TestAuthUpstream: a connector with WithAuthUpstream signs a user in
// through the upstream; its handlers see the user and the upstream token,
// and the upstream's own token is refused at /mcp.
func TestAuthUpstream(t *testing.T) {
	t.Parallel()
	app := &connector.App{Name: "notes", Tools: []connector.Tool{
		{Name: "whoami", Description: "Who is calling.", InputSchema: emptyInput, Result: connector.ResultText,
			Handler: func(ctx context.Context, _ json.RawMessage) (any, error) {
				id := connector.IdentityFrom(ctx)
				tok, err := id.UpstreamToken(ctx)
				if err != nil {
					return nil, err
				}
				return id.Subject + " " + id.Email + " " + id.Name + " " + tok, nil
			}},
	}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	log := &syncBuffer{}
	s, err := connector.NewServer(app, connector.WithLogger(quietLogger(log)), connector.WithPublicURL(base),
		connector.WithAuthUpstream(connector.AuthUpstream{Provider: testenv.GitHubStandIn(t, false), ClientID: "gh", ClientSecret: "s"}))
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	s.MountAuth(mux)
	mux.Handle("/mcp", s.Handler())
	ts := &httptest.Server{Listener: ln, Config: &http.Server{Handler: mux}}
	ts.Start()
	t.Cleanup(ts.Close)

	// The protected-resource metadata names the connector itself.
	resp, err := http.Get(base + "/.well-known/oauth-protected-resource/mcp")
	if err != nil {
		t.Fatal(err)
	}
	var prm struct {
		AuthorizationServers []string `json:"authorization_servers"`
	}
	json.NewDecoder(resp.Body).Decode(&prm)
	resp.Body.Close()
	if len(prm.AuthorizationServers) != 1 || prm.AuthorizationServers[0] != base {
		t.Fatalf("authorization_servers = %v; want [%s]", prm.AuthorizationServers, base)
	}

	token := signInThrough(t, base)
	b := &bearer{token: token}
	cs, err := authClient(t, base+"/mcp", b)
	if err != nil {
		t.Fatalf("connecting with the connector's token: %v\n%s", err, log)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "whoami"})
	if err != nil || res.IsError {
		t.Fatalf("whoami: %v %+v", err, res)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != "583231 octo@example.com The Octocat gho_real" {
		t.Errorf("whoami = %q; want the GitHub user and token", got)
	}
	cs.Close()
	if _, err := authClient(t, base+"/mcp", &bearer{token: "gho_real"}); err == nil {
		t.Error("the upstream's token was accepted at /mcp")
	}
}

// signInThrough registers a client, consents, signs in upstream and
// redeems the code, as an MCP client and its user would; it returns the
// access token.
func signInThrough(t *testing.T, base string) string {
	t.Helper()
	const cb = "http://127.0.0.1:9/cb"
	resp, err := http.Post(base+"/register", "application/json", strings.NewReader(`{"redirect_uris":["`+cb+`"],"token_endpoint_auth_method":"none","client_name":"T"}`))
	if err != nil {
		t.Fatal(err)
	}
	var reg struct {
		ClientID string `json:"client_id"`
	}
	json.NewDecoder(resp.Body).Decode(&reg)
	resp.Body.Close()
	verifier := strings.Repeat("v", 50)
	sum := sha256.Sum256([]byte(verifier))
	q := url.Values{"client_id": {reg.ClientID}, "redirect_uri": {cb}, "response_type": {"code"}, "state": {"s"},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"}}
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar, CheckRedirect: func(req *http.Request, _ []*http.Request) error {
		if strings.HasPrefix(req.URL.String(), cb) {
			return http.ErrUseLastResponse
		}
		return nil
	}}
	resp, err = browser.Get(base + "/authorize?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	form := url.Values{"action": {"allow"}}
	for _, m := range regexp.MustCompile(`name="(pending|csrf)" value="([^"]*)"`).FindAllStringSubmatch(string(page), -1) {
		form.Set(m[1], m[2])
	}
	resp, err = browser.PostForm(base+"/authorize", form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	back, _ := url.Parse(resp.Header.Get("Location"))
	resp, err = http.PostForm(base+"/token", url.Values{"grant_type": {"authorization_code"}, "client_id": {reg.ClientID},
		"code": {back.Query().Get("code")}, "redirect_uri": {cb}, "code_verifier": {verifier}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	json.NewDecoder(resp.Body).Decode(&tok)
	if tok.AccessToken == "" {
		t.Fatalf("no access token (back at %s: %s)", back, resp.Status)
	}
	return tok.AccessToken
}
