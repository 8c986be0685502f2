package authe2e_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/browser"
	"github.com/mcpgen/mcpgen/internal/testenv"
)

// TestDevInspectorOAuth: the inspector `mcpgen dev --auth-upstream` serves
// at its front's / signs in by OAuth in headless Chromium, on the origin
// where the front is the authorization server: Sign in with OAuth
// registers the inspector, the user allows it on the front's consent page,
// signs in at the upstream OpenID provider (its own login and consent
// pages), comes back to the inspector signed in, and a tool that calls the
// upstream with the user's upstream token answers for that user.
func TestDevInspectorOAuth(t *testing.T) {
	chrome := testenv.Chromium(t)
	addr := freeAddr(t)
	base := "http://" + addr
	up := startUpstream(t, base+"/oauth/callback")
	dir := journalProject(t)
	p := startEnv(t, base, "MCP endpoint", []string{"MCPGEN_AUTH_UPSTREAM=" + up, "MCPGEN_AUTH_CLIENT_ID=mcpgen-connector",
		"MCPGEN_AUTH_CLIENT_SECRET=connector-secret", "UPSTREAM_USERINFO=" + up + "/me"},
		mcpgenBin(t), "dev", dir, "--addr", addr, "--auth-upstream-scopes", "openid")

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	b, err := browser.Launch(ctx, browser.Options{Exec: chrome})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	// The inspector's / shows no view, so Open reports a timeout once
	// the page has loaded; the test drives the page itself.
	v, err := b.Open(ctx, base+"/", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	defer func() {
		if t.Failed() {
			text, _ := v.HostEval(ctx, `location.href + "\n" + (document.body ? document.body.innerText : "")`)
			t.Logf("the page:\n%s\nproblems: %v", text, v.Problems())
		}
	}()
	// wait waits until the JavaScript expression is truthy in the page;
	// the page navigates meanwhile (an evaluation it cuts short is tried
	// again).
	wait := func(what, expr string) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			err := v.HostWait(ctx, "!!("+expr+")", 5*time.Second)
			if err == nil {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("waiting for %s: %v", what, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	// waitText waits until the page's text contains s.
	waitText := func(s string) {
		t.Helper()
		wait(jsString(s)+" on the page", `document.body && document.body.innerText.includes(`+jsString(s)+`)`)
	}
	// click waits for a button (or submit input) whose text is name and
	// clicks it.
	click := func(name string) {
		t.Helper()
		find := `Array.from(document.querySelectorAll("button, input[type=submit]")).find((e) => (e.innerText || e.value || "").trim() === ` + jsString(name) + ` && !e.disabled)`
		wait("the button "+jsString(name), find)
		if _, err := v.HostEval(ctx, `(`+find+`).click(), true`); err != nil {
			t.Fatalf("clicking %s: %v", name, err)
		}
	}
	// at waits until the page has loaded from an address that starts with
	// prefix.
	at := func(prefix string) {
		t.Helper()
		wait("the page at "+prefix, `location.href.startsWith(`+jsString(prefix)+`) && document.readyState === "complete"`)
	}

	waitText("The server requires a bearer token")
	click("Sign in with OAuth")
	// The front's consent page, naming the inspector.
	at(base + "/authorize")
	waitText("Allow mcpgen inspector")
	click("Allow")
	// The upstream's development login and consent pages.
	at(up + "/")
	wait("the upstream's login form", `document.querySelector("input[name=login]")`)
	if _, err := v.HostEval(ctx, `(() => { const f = document.querySelector("input[name=login]").form;
		f.login.value = "alice"; if (f.password) f.password.value = "secret"; f.requestSubmit ? f.requestSubmit() : f.submit(); return true; })()`); err != nil {
		t.Fatal(err)
	}
	wait("the upstream's consent or the inspector", `location.href.startsWith(`+jsString(base)+`) || (document.readyState === "complete" && !document.querySelector("input[name=login]") && document.querySelector("form button, form input[type=submit]"))`)
	if got, _ := v.HostEval(ctx, `location.href`); strings.HasPrefix(strings.Trim(string(got), `"`), up) {
		// oidc-provider's consent: its one button.
		if _, err := v.HostEval(ctx, `document.querySelector("form button, form input[type=submit]").click(), true`); err != nil {
			t.Fatal(err)
		}
	}
	// Back at the inspector, signed in.
	at(base + "/")
	wait("the inspector signed in", `location.pathname === "/" && !document.querySelector("form.signin") && document.body.innerText.includes("upstream_user")`)
	if got, _ := v.HostEval(ctx, `location.pathname`); string(got) != `"/"` {
		t.Errorf("after signing in the inspector is at %s; want /", got)
	}
	tok, _ := v.HostEval(ctx, `sessionStorage.getItem("mcpgen.inspector.token") || ""`)
	if string(tok) == `""` {
		t.Fatalf("sessionStorage holds no access token after signing in")
	}
	click("upstream_user")
	click("Call")
	waitText("upstream says alice")
	if !p.waitLog("auth: signed in upstream") {
		t.Errorf("mcpgen dev's log does not record the sign-in")
	}
	if !p.waitLog("auth: client registered") {
		t.Errorf("mcpgen dev's log does not record the inspector's registration")
	}
	for _, pr := range v.Problems() {
		if pr.Kind == "csp" || pr.Kind == "exception" {
			t.Errorf("the page had a problem: %s", pr)
		}
	}
}

func jsString(s string) string { return fmt.Sprintf("%q", s) }
