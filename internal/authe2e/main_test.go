package authe2e_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testenv"
)

func TestMain(m *testing.M) {
	code := m.Run()
	stopProvider()
	testenv.RemoveMCPGen()
	os.Exit(code)
}

// The authorization server: one oidc-provider process for the package.
var as struct {
	once   sync.Once
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	issuer string
	err    error
	stderr bytes.Buffer
}

// issuer starts oidc-provider on first use and returns its issuer URL.
func issuer(t *testing.T) string {
	t.Helper()
	node := testenv.Node(t)
	nm := testenv.NodeModules(t, "oidc-provider", "@modelcontextprotocol/sdk")
	as.once.Do(func() {
		dir := scriptDir(t, nm)
		cmd := exec.Command(node, filepath.Join(dir, "provider.mjs"))
		cmd.Stderr = &as.stderr
		stdin, err := cmd.StdinPipe()
		if err != nil {
			as.err = err
			return
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			as.err = err
			return
		}
		if err := cmd.Start(); err != nil {
			as.err = err
			return
		}
		as.cmd, as.stdin = cmd, stdin
		line := make(chan string, 1)
		go func() {
			sc := bufio.NewScanner(stdout)
			if sc.Scan() {
				line <- sc.Text()
			}
			close(line)
		}()
		select {
		case l := <-line:
			var v struct{ Issuer string }
			if err := json.Unmarshal([]byte(l), &v); err != nil || v.Issuer == "" {
				as.err = fmt.Errorf("oidc-provider said %q: %v\n%s", l, err, as.stderr.String())
			}
			as.issuer = v.Issuer
		case <-time.After(30 * time.Second):
			as.err = fmt.Errorf("oidc-provider did not start within 30s\n%s", as.stderr.String())
		}
	})
	if as.err != nil {
		t.Fatal(as.err)
	}
	return as.issuer
}

func stopProvider() {
	if as.cmd == nil {
		return
	}
	as.stdin.Close() // the script exits when stdin closes
	done := make(chan struct{})
	go func() { as.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		as.cmd.Process.Kill()
		<-done
	}
}

// scriptDir copies the test's scripts into a temporary directory whose
// node_modules links to the test environment's, so Node resolves their
// imports.
var scripts struct {
	once sync.Once
	dir  string
}

func scriptDir(t *testing.T, nm string) string {
	scripts.once.Do(func() {
		dir, err := os.MkdirTemp("", "mcpgen-authe2e-")
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"provider.mjs", "client.mjs", "upstream.mjs"} {
			data, err := os.ReadFile(filepath.Join("testdata", f))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Symlink(nm, filepath.Join(dir, "node_modules")); err != nil {
			t.Fatal(err)
		}
		scripts.dir = dir
	})
	return scripts.dir
}

// The connector: testdata/journal built once with the real mcpgen.
var journal struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

// journalProject copies testdata/journal into a module that requires this
// checkout of mcpgen.
func journalProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join("testdata", "journal")
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root := testenv.Root()
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(mod), "\n")
	lines[0] = "module example.com/journal"
	gomod := strings.Join(lines, "\n") + "\nrequire github.com/mcpgen/mcpgen v0.0.0\n\nreplace github.com/mcpgen/mcpgen => " + root + "\n"
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644)
	os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644)
	return dir
}

func mcpgenBin(t *testing.T) string {
	t.Helper()
	bin, err := testenv.MCPGen()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// journalBinary builds the connector once for the package.
func journalBinary(t *testing.T) string {
	t.Helper()
	journal.once.Do(func() {
		dir := journalProject(t)
		bin := filepath.Join(os.TempDir(), fmt.Sprintf("mcpgen-journal-%d", os.Getpid()))
		cmd := exec.Command(mcpgenBin(t), "build", ".", "-o", bin)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			journal.err = fmt.Errorf("mcpgen build: %v\n%s", err, out)
			return
		}
		journal.bin = bin
	})
	if journal.err != nil {
		t.Fatal(journal.err)
	}
	t.Cleanup(func() {}) // the binary is removed with the temporary directory at exit
	return journal.bin
}

// freeAddr returns a loopback address whose port was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// proc is a started process whose output is kept.
type proc struct {
	cmd *exec.Cmd
	mu  sync.Mutex
	out bytes.Buffer
}

func (p *proc) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.Write(b)
}

// waitLog reports whether the output comes to contain s within a few
// seconds (it arrives through a pipe, after the response).
func (p *proc) waitLog(s string) bool {
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if strings.Contains(p.log(), s) {
			return true
		}
	}
	return false
}

func (p *proc) log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// start runs a command until the test ends (interrupting it then) and
// waits until base answers HTTP 401 and its output contains ready.
func start(t *testing.T, base, ready, dir, name string, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(name, args...)}
	p.cmd.Dir = dir
	return run(t, p, base, ready)
}

// startEnv is start with variables added to the environment.
func startEnv(t *testing.T, base, ready string, env []string, name string, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(name, args...)}
	p.cmd.Env = append(os.Environ(), env...)
	return run(t, p, base, ready)
}

func run(t *testing.T, p *proc, base, ready string) *proc {
	t.Helper()
	name := p.cmd.Path
	p.cmd.Stdout, p.cmd.Stderr = p, p
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { p.cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		p.cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			p.cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("%s output:\n%s", filepath.Base(name), p.log())
		}
	})
	deadline := time.Now().Add(120 * time.Second)
	for {
		resp, err := http.Post(base+"/mcp", "application/json", strings.NewReader("{}"))
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusUnauthorized && strings.Contains(p.log(), ready) {
				return p
			}
		}
		select {
		case <-exited:
			t.Fatalf("%s exited:\n%s", name, p.log())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not serve at %s within 120s:\n%s", name, base, p.log())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// serveJournal starts the built connector with auth against the test's
// authorization server and returns its base URL.
func serveJournal(t *testing.T, extra ...string) (string, *proc) {
	t.Helper()
	iss := issuer(t)
	bin := journalBinary(t)
	addr := freeAddr(t)
	base := "http://" + addr
	args := append([]string{"--addr", addr, "--public-url", base, "--auth-issuer", iss, "--auth-scopes", "notes:read"}, extra...)
	return base, start(t, base, "serving MCP", "", bin, args...)
}

// runClient runs the TypeScript SDK client flow against mcpURL.
func runClient(t *testing.T, mcpURL string, env ...string) map[string]any {
	t.Helper()
	node := testenv.Node(t)
	dir := scriptDir(t, testenv.NodeModules(t, "@modelcontextprotocol/sdk"))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "client.mjs"))
	cmd.Env = append(append(os.Environ(), "MCP_URL="+mcpURL, "LOGIN=alice"), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("client.mjs: %v\n%s\n%s", err, out, stderr.String())
	}
	var res map[string]any
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("client.mjs printed %q: %v\n%s", out, err, stderr.String())
	}
	if e, ok := res["error"]; ok {
		t.Fatalf("client.mjs failed: %v\nrequests: %v\nstderr: %s", e, res["requests"], stderr.String())
	}
	return res
}

// mint asks the authorization server for a token with chosen claims,
// signed with its current key (or, with key=stranger, one it never
// published).
func mint(t *testing.T, q url.Values) string {
	t.Helper()
	resp, err := http.Get(issuer(t) + "/test/mint?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v struct{ Token, Error string }
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil || v.Token == "" {
		t.Fatalf("mint %v: %v %s", q, err, v.Error)
	}
	return v.Token
}

func rotate(t *testing.T) string {
	t.Helper()
	resp, err := http.Post(issuer(t)+"/test/rotate", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v struct{ Kid string }
	json.NewDecoder(resp.Body).Decode(&v)
	return v.Kid
}
