package authe2e_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testenv"
)

// localRecipe is the "A local setup" section of docs/auth.md: its
// indented code blocks, in order.
func localRecipe(t *testing.T) []string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(testenv.Root(), "docs", "auth.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(doc), "\n## A local setup\n")
	if !ok {
		t.Fatal(`docs/auth.md has no "## A local setup" section`)
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	var blocks []string
	var cur []string
	flush := func() {
		for len(cur) > 0 && cur[len(cur)-1] == "" {
			cur = cur[:len(cur)-1]
		}
		if len(cur) > 0 {
			blocks = append(blocks, strings.Join(cur, "\n")+"\n")
		}
		cur = nil
	}
	for _, l := range strings.Split(sec, "\n") {
		switch {
		case strings.HasPrefix(l, "    "):
			cur = append(cur, l[4:])
		case l == "" && len(cur) > 0:
			cur = append(cur, "")
		default:
			flush()
		}
	}
	flush()
	return blocks
}

// recipeBlock returns the first block of the recipe that holds s.
func recipeBlock(t *testing.T, blocks []string, s string) string {
	t.Helper()
	for _, b := range blocks {
		if strings.Contains(b, s) {
			return b
		}
	}
	t.Fatalf("docs/auth.md's local setup has no code block with %q", s)
	return ""
}

var issuerLine = regexp.MustCompile(`issuer (http://127\.0\.0\.1:\d+) with scopes`)

// TestLocalIssuerRecipe runs docs/auth.md's local issuer as the doc
// writes it: the setup block in a fresh home directory (with the test
// environment's oidc-provider, of the version the doc installs, in place of
// npm install), the issuer started from a connector's directory with the
// doc's scopes, and a connector built with the real mcpgen run with the
// flags of the doc's mcpgen dev command against it. The official
// TypeScript SDK client goes through registration, login and consent and
// calls a tool with the token the recipe issued. The issuer stops on
// Ctrl-C, and when its parent dies; without scopes it says so and fails.
func TestLocalIssuerRecipe(t *testing.T) {
	node := testenv.Node(t)
	nm := testenv.NodeModules(t, "oidc-provider", "@modelcontextprotocol/sdk")
	blocks := localRecipe(t)
	setup := recipeBlock(t, blocks, "npm install")
	runLine := strings.TrimSpace(recipeBlock(t, blocks, "node ~/"))
	devLine := strings.TrimSpace(recipeBlock(t, blocks, "mcpgen dev"))
	example := recipeBlock(t, blocks, " issuer http://")

	// The setup, with the tested oidc-provider linked in for npm install.
	var pkg struct{ Version string }
	data, err := os.ReadFile(filepath.Join(nm, "oidc-provider", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(data, &pkg)
	install := regexp.MustCompile(`(?m)^npm install .*oidc-provider@(\S+)$`)
	m := install.FindStringSubmatch(setup)
	if m == nil || m[1] != pkg.Version {
		t.Fatalf("the recipe's npm install line installs %v; the tested oidc-provider is %s (internal/testenv/npm/package.json)", m, pkg.Version)
	}
	setup = install.ReplaceAllLiteralString(setup, "ln -s "+nm+" node_modules")
	home := t.TempDir()
	env := append(os.Environ(), "HOME="+home, "PATH="+filepath.Dir(node)+":"+os.Getenv("PATH"))
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", setup)
	cmd.Dir, cmd.Env = home, env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the recipe's setup: %v\n%s", err, out)
	}

	// The issuer, run from a connector's directory.
	fields := strings.Fields(strings.ReplaceAll(runLine, "~", home))
	if len(fields) < 3 || fields[0] != "node" {
		t.Fatalf("the recipe runs %q; want node SCRIPT SCOPE...", runLine)
	}
	scopes := fields[2:]
	if !slices.Contains(scopes, "expenses:read") || !slices.Contains(scopes, "expenses:write") {
		t.Fatalf("the recipe's scopes are %v; the test expects the doc's expenses:read and expenses:write", scopes)
	}
	project := t.TempDir()
	p := &proc{cmd: exec.Command(node, fields[1:]...)}
	p.cmd.Dir, p.cmd.Env = project, env
	p.cmd.Stdout, p.cmd.Stderr = p, p
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { p.cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-exited
	})
	var iss string
	for deadline := time.Now().Add(30 * time.Second); iss == ""; time.Sleep(50 * time.Millisecond) {
		if m := issuerLine.FindStringSubmatch(p.log()); m != nil {
			iss = m[1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("the issuer printed no issuer URL within 30s:\n%s", p.log())
		}
	}
	if !strings.Contains(p.log(), "with scopes "+strings.Join(scopes, " ")) {
		t.Errorf("the issuer does not name its scopes:\n%s", p.log())
	}
	docIss := issuerLine.FindStringSubmatch(example)
	if docIss == nil || !strings.Contains(devLine, "--auth-issuer "+docIss[1]) {
		t.Errorf("the doc's mcpgen dev command %q does not use the issuer its example output prints", devLine)
	}

	// A built connector with the doc's flags, the issuer's URL.
	args := strings.Fields(devLine)
	if len(args) < 2 || args[0] != "mcpgen" || args[1] != "dev" {
		t.Fatalf("the recipe's connector command is %q", devLine)
	}
	addr := freeAddr(t)
	base := "http://" + addr
	var flags []string
	for i := 2; i < len(args); i++ {
		switch args[i] {
		case "--addr":
			flags = append(flags, "--addr", addr, "--public-url", base)
			i++
		case "--auth-issuer":
			flags = append(flags, "--auth-issuer", iss)
			i++
		default:
			flags = append(flags, args[i])
		}
	}
	if !slices.Contains(flags, "--auth-scopes") {
		t.Fatalf("the doc's mcpgen dev command %q has no --auth-scopes", devLine)
	}
	start(t, base, "serving MCP", "", journalBinary(t), flags...)
	res := runClient(t, base+"/mcp", "ONLY_WHOAMI=1")
	if res["whoami"] != "alice" {
		t.Errorf("whoami with the recipe's token = %v, want alice", res["whoami"])
	}
	want := flags[slices.Index(flags, "--auth-scopes")+1]
	if res["scopeBefore"] != want {
		t.Errorf("the recipe's token has scope %v, want %q (the challenge's)", res["scopeBefore"], want)
	}
	if p := fmt.Sprint(res["prompts"]); p != "[login consent]" {
		t.Errorf("interactions = %s, want [login consent]", p)
	}
	if !p.waitLog("issued a token to alice for " + base + "/mcp") {
		t.Errorf("the issuer's log does not show the token it issued:\n%s", p.log())
	}

	// Ctrl-C stops it, saying so, with status 0.
	p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Fatalf("the issuer did not stop on SIGINT:\n%s", p.log())
	}
	if code := p.cmd.ProcessState.ExitCode(); code != 0 || !strings.Contains(p.log(), "stopped (interrupted)") {
		t.Errorf("after SIGINT: exit %d\n%s", code, p.log())
	}

	t.Run("no scopes", func(t *testing.T) {
		cmd := exec.Command(node, fields[1])
		cmd.Dir, cmd.Env = project, env
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "name the scopes your connector uses") {
			t.Errorf("without scopes: %v\n%s", err, out)
		}
	})
	t.Run("parent dies", func(t *testing.T) {
		// A shell starts it in the background and is killed.
		sh := exec.Command("bash", "-c", `"$0" "$@" >/dev/null 2>&1 & echo $!; wait`, node, fields[1], "a:b")
		sh.Dir, sh.Env = project, env
		stdout, _ := sh.StdoutPipe()
		if err := sh.Start(); err != nil {
			t.Fatal(err)
		}
		var pid int
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			fmt.Sscan(sc.Text(), &pid)
		}
		if pid == 0 {
			sh.Process.Kill()
			sh.Wait()
			t.Fatal("the shell printed no pid")
		}
		time.Sleep(2 * time.Second) // the issuer runs
		sh.Process.Kill()
		sh.Wait()
		for deadline := time.Now().Add(15 * time.Second); alive(pid); time.Sleep(100 * time.Millisecond) {
			if time.Now().After(deadline) {
				syscall.Kill(pid, syscall.SIGKILL)
				t.Fatalf("the issuer (pid %d) still runs 15s after its parent died", pid)
			}
		}
	})
}

// alive reports whether process pid runs (exists and is not a zombie).
func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(stat), ") ")
	return !strings.HasPrefix(rest, "Z")
}
