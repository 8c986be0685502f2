package authe2e_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testenv"
)

// startUpstream runs testdata/upstream.mjs, an OpenID provider with no
// registration endpoint and one static client whose redirect URI is
// callback, until the test ends, and returns its issuer.
func startUpstream(t *testing.T, callback string) string {
	t.Helper()
	node := testenv.Node(t)
	dir := scriptDir(t, testenv.NodeModules(t, "oidc-provider", "@modelcontextprotocol/sdk"))
	cmd := exec.Command(node, filepath.Join(dir, "upstream.mjs"), callback)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			line <- sc.Text()
		}
		close(line)
		cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	})
	select {
	case l := <-line:
		var v struct{ Issuer string }
		if err := json.Unmarshal([]byte(l), &v); err != nil || v.Issuer == "" {
			t.Fatalf("upstream.mjs said %q: %v\n%s", l, err, stderr.String())
		}
		return v.Issuer
	case <-time.After(30 * time.Second):
		t.Fatalf("upstream.mjs did not start within 30s\n%s", stderr.String())
	}
	return ""
}

// TestUpstreamFlow: the connector is the authorization server in front of
// an OpenID provider that lets no client register. The official
// TypeScript SDK client registers with the connector, the user consents on
// the connector's page naming the client, signs in at the provider, and
// the client calls a tool that returns the upstream subject with the
// connector's own access token.
func TestUpstreamFlow(t *testing.T) {
	addr := freeAddr(t)
	base := "http://" + addr
	up := startUpstream(t, base+"/oauth/callback")
	// The provider really has no registration endpoint.
	resp, err := http.Get(up + "/.well-known/openid-configuration")
	if err != nil {
		t.Fatal(err)
	}
	var md map[string]any
	json.NewDecoder(resp.Body).Decode(&md)
	resp.Body.Close()
	if md["issuer"] != up || md["registration_endpoint"] != nil {
		t.Fatalf("the upstream's metadata: %v; want no registration endpoint", md)
	}
	bin := journalBinary(t)
	p := startEnv(t, base, "serving MCP", []string{"MCPGEN_AUTH_CLIENT_SECRET=connector-secret", "UPSTREAM_USERINFO=" + md["userinfo_endpoint"].(string)},
		bin, "--addr", addr, "--public-url", base, "--auth-upstream", up, "--auth-client-id", "mcpgen-connector",
		"--auth-upstream-scopes", "openid")
	res := runClient(t, base+"/mcp", "UPSTREAM_USER=1")
	if res["whoami"] != "alice" {
		t.Errorf("whoami = %v, want alice (the upstream subject)", res["whoami"])
	}
	w, _ := res["write"].(string)
	if w == "" {
		w, _ = res["writeFirst"].(string)
	}
	if !strings.HasPrefix(w, `alice wrote "hello"`) || !strings.Contains(w, "notes:write") {
		t.Errorf("write_entry = %q; want alice writing with notes:write", w)
	}
	// A handler calls the upstream as the user with the token the
	// connector keeps (Identity.UpstreamToken).
	if res["upstreamUser"] != "upstream says alice" {
		t.Errorf("upstream_user = %v; want the upstream's userinfo for alice", res["upstreamUser"])
	}
	var reqs []string
	for _, r := range res["requests"].([]any) {
		reqs = append(reqs, fmt.Sprint(r))
	}
	all := strings.Join(reqs, "\n")
	for _, want := range []string{"GET /.well-known/oauth-authorization-server 200", "POST /register 201", "POST /token 200"} {
		if !strings.Contains(all, want) {
			t.Errorf("the client's requests lack %q:\n%s", want, all)
		}
	}
	if pr := fmt.Sprint(res["prompts"]); !strings.HasPrefix(pr, "[connector-consent login consent") {
		t.Errorf("interactions = %s; want the connector's consent, then the upstream's login and consent", pr)
	}
	if !p.waitLog("auth: signed in upstream") {
		t.Errorf("the connector's log does not record the sign-in:\n%s", p.log())
	}
}
