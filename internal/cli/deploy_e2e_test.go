package cli_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpgen/mcpgen/internal/testenv"
)

// holdGo is a tool whose call lasts until the test says: it creates the
// file Started, then returns once the file Release exists.
const holdGo = `package main

import (
	"context"
	"os"
	"time"
)

// HoldInput names the files that pace a held call.
type HoldInput struct {
	// Started is created when the call starts.
	Started string ` + "`json:\"started\"`" + `
	// Release ends the call once it exists.
	Release string ` + "`json:\"release\"`" + `
}

// Hold runs until the file Release exists.
//
//mcpgen:tool readonly
func Hold(ctx context.Context, in HoldInput) (string, error) {
	if err := os.WriteFile(in.Started, nil, 0o644); err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(in.Release); err == nil {
			return "released", nil
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}
`

// scaffoldDeploy makes a tools-only project "tally" with the hold tool.
func scaffoldDeploy(t *testing.T) (mcpgen, dir string) {
	t.Helper()
	mcpgen = mcpgenBinary(t)
	work := t.TempDir()
	if out, errOut, code := run(t, work, nil, mcpgen, "new", "tally", "--no-view"); code != 0 {
		t.Fatalf("mcpgen new: exit %d\n%s%s", code, out, errOut)
	}
	dir = filepath.Join(work, "tally")
	if err := os.WriteFile(filepath.Join(dir, "hold.go"), []byte(holdGo), 0o644); err != nil {
		t.Fatal(err)
	}
	return mcpgen, dir
}

// checkStatic checks that bin is a static, trimmed Go binary whose
// --version prints want.
func checkStatic(t *testing.T, bin, wantVersion string) {
	t.Helper()
	out, errOut, code := run(t, ".", nil, "go", "version", "-m", bin)
	if code != 0 || !regexp.MustCompile(`(?m)^\s+build\s+CGO_ENABLED=0$`).MatchString(out) || !regexp.MustCompile(`(?m)^\s+build\s+-trimpath=true$`).MatchString(out) {
		t.Errorf("go version -m %s: exit %d, no CGO_ENABLED=0 and -trimpath=true:\n%s%s", bin, code, out, errOut)
	}
	out, _, _ = run(t, ".", nil, testenv.File(t), bin)
	if !strings.Contains(out, "statically linked") || !strings.Contains(out, ", stripped") {
		t.Errorf("file %s: not statically linked and stripped: %s", bin, out)
	}
	out, errOut, code = run(t, ".", nil, bin, "--version")
	if code != 0 || out != wantVersion+"\n" {
		t.Errorf("%s --version: exit %d, %q %s; want %q", bin, code, out, errOut, wantVersion)
	}
}

// connector is a started connector binary.
type connector struct {
	cmd  *exec.Cmd
	url  string // http://127.0.0.1:PORT/mcp
	mu   sync.Mutex
	logs []string
	exit chan int
}

func (c *connector) stderr() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Join(c.logs, "\n")
}

func startConnector(t *testing.T, bin string, env []string, args ...string) *connector {
	t.Helper()
	c := &connector{cmd: exec.Command(bin, append([]string{"--addr", "127.0.0.1:0"}, args...)...), exit: make(chan int, 1)}
	c.cmd.Env = append(os.Environ(), env...)
	pipe, err := c.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	found := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`serving MCP.* at (http://\S+/mcp)`)
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			c.mu.Lock()
			c.logs = append(c.logs, sc.Text())
			c.mu.Unlock()
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
		c.cmd.Wait()
		c.exit <- c.cmd.ProcessState.ExitCode()
	}()
	t.Cleanup(func() {
		c.cmd.Process.Kill()
		if t.Failed() {
			t.Logf("%s stderr:\n%s", filepath.Base(bin), c.stderr())
		}
	})
	select {
	case c.url = <-found:
	case code := <-c.exit:
		t.Fatalf("%s exited with %d without serving:\n%s", bin, code, c.stderr())
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not start serving", bin)
	}
	return c
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startCaddy runs Debian's Caddy on a loopback port as the reverse proxy
// of host (a public name), forwarding to upstream (HOST:PORT), and returns
// its port.
func startCaddy(t *testing.T, host, upstream string) int {
	t.Helper()
	caddy := testenv.Caddy(t)
	dir := t.TempDir()
	port := freePort(t)
	conf := fmt.Sprintf(`{
	admin off
	auto_https off
	storage file_system %s
}

http://%s:%d {
	bind 127.0.0.1
	reverse_proxy %s
}
`, filepath.Join(dir, "data"), host, port, upstream)
	file := filepath.Join(dir, "Caddyfile")
	if err := os.WriteFile(file, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(caddy, "run", "--config", file, "--adapter", "caddyfile")
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_DATA_HOME="+dir, "XDG_CONFIG_HOME="+dir)
	return startProxy(t, "caddy", cmd, port)
}

// startNginx runs Debian's nginx on a loopback port as the reverse proxy
// of host, forwarding to upstream with the settings docs/deploy.md gives,
// and returns its port.
func startNginx(t *testing.T, host, upstream string) int {
	t.Helper()
	nginx := testenv.Nginx(t)
	dir := t.TempDir()
	port := freePort(t)
	user := ""
	if os.Geteuid() == 0 {
		user = "user root;" // workers may not drop to nobody in a temporary directory
	}
	conf := fmt.Sprintf(`%s
daemon off;
master_process off;
pid %[2]s/nginx.pid;
error_log stderr info;
events { worker_connections 64; }
http {
	access_log off;
	client_body_temp_path %[2]s/body;
	proxy_temp_path %[2]s/proxy;
	fastcgi_temp_path %[2]s/fastcgi;
	uwsgi_temp_path %[2]s/uwsgi;
	scgi_temp_path %[2]s/scgi;
	server {
		listen 127.0.0.1:%[3]d;
		server_name %[4]s;
		location / {
			proxy_pass http://%[5]s;
			proxy_http_version 1.1;
			proxy_set_header Host $host;
			proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
			proxy_set_header X-Forwarded-Proto $scheme;
			proxy_set_header Connection "";
			proxy_buffering off;
			proxy_read_timeout 1h;
		}
		location = /ws {
			proxy_pass http://%[5]s;
			proxy_http_version 1.1;
			proxy_set_header Host $host;
			proxy_set_header Upgrade $http_upgrade;
			proxy_set_header Connection "upgrade";
			proxy_read_timeout 1h;
		}
	}
}
`, user, dir, port, host, upstream)
	file := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(file, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	return startProxy(t, "nginx", exec.Command(nginx, "-p", dir, "-c", file), port)
}

// startProxy starts cmd and waits until it listens on port.
func startProxy(t *testing.T, name string, cmd *exec.Cmd, port int) int {
	t.Helper()
	var logs syncWriter
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("%s:\n%s", name, logs.String())
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		conn, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			conn.Close()
			return port
		}
		select {
		case <-exited:
			t.Fatalf("%s exited:\n%s", name, logs.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s is not listening on %d:\n%s", name, port, logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

type syncWriter struct {
	mu sync.Mutex
	b  strings.Builder
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// browserTransport sends requests to the loopback proxy under its public
// host name, with a browser page's Origin.
type browserTransport struct{ host, origin string }

func (b browserTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Host = b.host
	if b.origin != "" {
		r.Header.Set("Origin", b.origin)
	}
	return http.DefaultTransport.RoundTrip(r)
}

func statusOf(t *testing.T, hc *http.Client, method, url, body string) int {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestDeployBehindProxy builds a connector as a release (static,
// versioned), serves it behind Debian's nginx and Caddy under a public host
// name with a browser origin admitted by flag, questions it through each
// proxy with the go-sdk client, and stops it with SIGTERM while a call is
// in flight through Caddy.
func TestDeployBehindProxy(t *testing.T) {
	t.Parallel()
	mcpgen, dir := scaffoldDeploy(t)
	if out, errOut, code := run(t, dir, nil, mcpgen, "build", "--version", "v1.2.3", "-o", "bin/tally"); code != 0 {
		t.Fatalf("mcpgen build: exit %d\n%s%s", code, out, errOut)
	}
	bin := filepath.Join(dir, "bin", "tally")
	checkStatic(t, bin, "tally v1.2.3")

	const public, app = "connector.example.test", "https://app.example.test"
	c := startConnector(t, bin, []string{"MCPGEN_ALLOW_ORIGIN=" + app}, "--public-url", "https://"+public, "--log-format", "json")
	upstream := strings.TrimSuffix(strings.TrimPrefix(c.url, "http://"), "/mcp")
	t.Run("nginx", func(t *testing.T) {
		cs := throughProxy(t, c, public, app, startNginx(t, public, upstream))
		cs.Close()
	})
	// Caddy, and the SIGTERM below, last.
	cs := throughProxy(t, c, public, app, startCaddy(t, public, upstream))
	defer cs.Close()
	ctx := context.Background()

	// SIGTERM while a call is in flight: the call finishes and returns its
	// result through the proxy, then the process exits 0.
	tmp := t.TempDir()
	started, release := filepath.Join(tmp, "started"), filepath.Join(tmp, "release")
	result := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "hold", Arguments: map[string]any{"started": started, "release": release}})
		if err != nil {
			t.Errorf("hold: %v", err)
		}
		result <- res
	}()
	waitFile(t, started)
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitLog(t, c, `"msg":"draining"`)
	select {
	case code := <-c.exit:
		t.Fatalf("exited with %d while a call was in flight", code)
	default:
	}
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case res := <-result:
		if res == nil || res.IsError || text(res) != "released" {
			t.Errorf("the call in flight: %+v", res)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the call in flight did not return")
	}
	select {
	case code := <-c.exit:
		if code != 0 {
			t.Errorf("exit code %d after SIGTERM", code)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the connector did not exit after the drain")
	}
	// A second SIGTERM ends a draining process at once, call or not.
	c2 := startConnector(t, bin, nil)
	cs2, err := mcp.NewClient(&mcp.Implementation{Name: "impatient", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: c2.url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs2.Close()
	started2 := filepath.Join(tmp, "started2")
	result2 := make(chan error, 1)
	go func() {
		_, err := cs2.CallTool(ctx, &mcp.CallToolParams{Name: "hold", Arguments: map[string]any{"started": started2, "release": filepath.Join(tmp, "never")}})
		result2 <- err
	}()
	waitFile(t, started2)
	c2.cmd.Process.Signal(syscall.SIGTERM)
	waitLog(t, c2, "msg=draining")
	c2.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case code := <-c2.exit:
		if code == 0 {
			t.Error("a second SIGTERM: exit code 0, want the signal's")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a second SIGTERM did not end the process")
	}
	if err := <-result2; err == nil {
		t.Error("the cut call returned no error")
	}

	// The request log has a line for the held call.
	var held bool
	for _, line := range strings.Split(c.stderr(), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && rec["msg"] == "request" && rec["tool"] == "hold" {
			// A 2026-07-28 client has no session (stateless requests).
			sid, _ := rec["session"].(string)
			held = rec["outcome"] == "ok" && sid == cs.ID()
		}
	}
	if !held {
		t.Errorf("no request log line for the held call:\n%s", c.stderr())
	}
}

// throughProxy questions connector c through the reverse proxy on
// port under the public name, as the browser app on origin app would, and
// checks that a foreign origin and a foreign name are refused. It returns
// the client session.
func throughProxy(t *testing.T, c *connector, public, app string, port int) *mcp.ClientSession {
	t.Helper()
	proxied := fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	hostHeader := fmt.Sprintf("%s:%d", public, port)

	browser := &http.Client{Transport: browserTransport{hostHeader, app}}
	if code := statusOf(t, browser, "GET", strings.TrimSuffix(proxied, "/mcp")+"/healthz", ""); code != 200 {
		t.Errorf("/healthz through the proxy: %d", code)
	}
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "browser-app", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: proxied, HTTPClient: browser}, nil)
	if err != nil {
		t.Fatalf("connect through the proxy: %v", err)
	}
	if got := cs.InitializeResult().ServerInfo.Version; got != "v1.2.3" {
		t.Errorf("serverInfo.version %q", got)
	}
	res := call(t, cs, "text_stats", map[string]any{"text": "one two three"})
	if res.IsError || !strings.Contains(text(res), `"words":3`) {
		t.Errorf("text_stats through the proxy: %s", text(res))
	}
	// A 2025-11-25 client: a session, answers as event streams.
	old, err := mcp.NewClient(&mcp.Implementation{Name: "browser-app", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: proxied, HTTPClient: browser}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect a 2025-11-25 client through the proxy: %v", err)
	}
	if old.ID() == "" {
		t.Error("no session for a 2025-11-25 client")
	}
	if res := call(t, old, "text_stats", map[string]any{"text": "a b"}); res.IsError || !strings.Contains(text(res), `"words":2`) {
		t.Errorf("text_stats in a session through the proxy: %s", text(res))
	}
	old.Close()
	legacyThroughProxy(t, public, app, port) // /sse and /ws

	// A foreign browser origin and a foreign name are refused.
	initBody := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	foreign := &http.Client{Transport: browserTransport{hostHeader, "https://evil.example.test"}}
	if code := statusOf(t, foreign, "POST", proxied, initBody); code != http.StatusForbidden {
		t.Errorf("a foreign origin through the proxy: %d, want 403", code)
	}
	if code := statusOf(t, &http.Client{Transport: browserTransport{"evil.example.test", ""}}, "POST", c.url, initBody); code != http.StatusForbidden {
		t.Errorf("a foreign Host: %d, want 403", code)
	}

	return cs
}

func waitFile(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s was not created", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func waitLog(t *testing.T, c *connector, substr string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(c.stderr(), substr) {
		if time.Now().After(deadline) {
			t.Fatalf("no %s in the log:\n%s", substr, c.stderr())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// dockerfile is the part of a Dockerfile the tests read: instructions by
// stage, with line continuations joined.
type dockerfile struct {
	stages [][]string // each: "FROM ...", then the stage's instructions
}

func parseDockerfile(t *testing.T, src string) dockerfile {
	t.Helper()
	var df dockerfile
	src = strings.ReplaceAll(src, "\\\n", " ")
	for _, line := range strings.Split(src, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "FROM ") {
			df.stages = append(df.stages, nil)
		}
		if len(df.stages) == 0 {
			t.Fatalf("Dockerfile: %q before the first FROM", line)
		}
		df.stages[len(df.stages)-1] = append(df.stages[len(df.stages)-1], line)
	}
	return df
}

// find returns the arguments of the instructions named op in stage i.
func (df dockerfile) find(i int, op string) []string {
	var out []string
	for _, in := range df.stages[i] {
		if rest, ok := strings.CutPrefix(in, op+" "); ok {
			out = append(out, strings.TrimSpace(rest))
		}
	}
	return out
}

// TestDeployDockerfile checks the Dockerfile `mcpgen new` writes (docker
// itself cannot run here): a multi-stage build whose final stage is a
// minimal base running as a non-root user with a health check; its build
// stage, run from the build context alone (buildStage), makes a static
// binary with the version stamped; and its environment and health check
// command work against that binary.
func TestDeployDockerfile(t *testing.T) {
	t.Parallel()
	_, dir := scaffoldDeploy(t)
	src, err := os.ReadFile(filepath.Join(dir, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".dockerignore")); err != nil {
		t.Error(err)
	}
	df := parseDockerfile(t, string(src))
	if len(df.stages) != 2 {
		t.Fatalf("Dockerfile has %d stages, want a build stage and a runtime stage", len(df.stages))
	}
	build, final := 0, 1
	if from := df.find(build, "FROM")[0]; !strings.HasPrefix(from, "golang:1.") || !strings.HasSuffix(from, " AS build") {
		t.Errorf("build stage: FROM %s", from)
	}
	from := df.find(final, "FROM")[0]
	if !strings.HasPrefix(from, "gcr.io/distroless/static") && from != "scratch" {
		t.Errorf("runtime stage FROM %s: want a minimal static base", from)
	}
	users := df.find(final, "USER")
	if len(users) != 1 || strings.HasPrefix(users[0], "root") || strings.HasPrefix(users[0], "0") {
		t.Errorf("runtime stage USER %v: want one non-root user", users)
	}

	// The build stage, run here as docker would, from the context alone.
	root := buildStage(t, dir, df)
	copies := df.find(final, "COPY")
	if len(copies) != 1 || !strings.HasPrefix(copies[0], "--from=build /out/tally ") {
		t.Fatalf("runtime stage COPY %v: want the built binary", copies)
	}
	binInImage := strings.Fields(copies[0])[2]
	bin := filepath.Join(root, "out", "tally")
	checkStatic(t, bin, "tally v7.7.7")

	var entry, health []string
	if e := df.find(final, "ENTRYPOINT"); len(e) == 1 {
		json.Unmarshal([]byte(e[0]), &entry)
	}
	if len(entry) != 1 || entry[0] != binInImage {
		t.Errorf("ENTRYPOINT %v: want [%q]", entry, binInImage)
	}
	if h := df.find(final, "HEALTHCHECK"); len(h) == 1 {
		if _, cmdJSON, ok := strings.Cut(h[0], "CMD "); ok {
			json.Unmarshal([]byte(cmdJSON), &health)
		}
	}
	if len(health) < 2 || health[0] != binInImage {
		t.Fatalf("HEALTHCHECK %v: want the binary's own check (there is no shell or curl in the image)", health)
	}

	// The image's environment, on a loopback port here.
	var env []string
	for _, e := range df.find(final, "ENV") {
		k, v, _ := strings.Cut(e, "=")
		if k == "MCPGEN_ADDR" {
			if !strings.HasPrefix(v, "0.0.0.0:") {
				t.Errorf("ENV MCPGEN_ADDR=%s: a container must listen on every interface", v)
			}
			v = fmt.Sprintf("127.0.0.1:%d", freePort(t))
		}
		env = append(env, k+"="+v)
	}
	probe := func() int {
		_, _, code := run(t, dir, env, bin, health[1:]...)
		return code
	}
	if code := probe(); code != 1 {
		t.Errorf("the health check passed with no server running: exit %d", code)
	}
	srv := exec.Command(bin)
	srv.Env = append(os.Environ(), env...)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { srv.Process.Signal(syscall.SIGTERM); srv.Wait() }()
	deadline := time.Now().Add(30 * time.Second)
	for probe() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the health check never passed with the server running")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// buildStage runs the build stage of the Dockerfile df of the project in
// dir the way docker would, from the build context alone, and returns the
// directory standing for the stage's file system (its /out is there).
// Docker itself cannot run here: its base images need a registry. So the
// project is copied without what .dockerignore leaves out, the stage's COPY
// and RUN instructions run in order in a clean directory with an empty
// GOPATH and the host's module cache as the only module proxy
// (VERSION=v7.7.7 as a build argument), and every module the build reads
// must come from the context or that proxy, never from a path on the host
// (as a replace directive naming a checkout would).
func buildStage(t *testing.T, dir string, df dockerfile) string {
	t.Helper()
	ignore, err := os.ReadFile(filepath.Join(dir, ".dockerignore"))
	if err != nil {
		t.Fatal(err)
	}
	ctxDir := filepath.Join(t.TempDir(), "context")
	copyContext(t, dir, ctxDir, string(ignore))
	root := t.TempDir() // the build stage's file system
	gopath := t.TempDir()
	hostCache, _, _ := run(t, ".", nil, "go", "env", "GOMODCACHE")
	// The module cache starts empty, as in an image build, and fills only
	// from the proxy; the build cache is the host's, which is content
	// addressed, so that compiling is not what this test waits on.
	buildCache, _, _ := run(t, ".", nil, "go", "env", "GOCACHE")
	env := []string{
		"HOME=" + t.TempDir(), "GOPATH=" + gopath, "GOMODCACHE=" + filepath.Join(gopath, "pkg", "mod"),
		"GOCACHE=" + strings.TrimSpace(buildCache),
		"GOFLAGS=-mod=mod", "GOPROXY=file://" + filepath.Join(strings.TrimSpace(hostCache), "cache", "download"),
		"GOSUMDB=off", "GOTOOLCHAIN=local", "GOWORK=off", "VERSION=v7.7.7",
	}
	in := func(p string) string { return filepath.Join(root, filepath.FromSlash(p)) }
	work := "/"
	for _, ins := range df.stages[0][1:] {
		op, rest, _ := strings.Cut(ins, " ")
		switch op {
		case "WORKDIR":
			work = rest
			os.MkdirAll(in(work), 0o755)
		case "ARG", "ENV":
		case "COPY":
			args := strings.Fields(rest)
			dst := args[len(args)-1]
			if !strings.HasPrefix(dst, "/") {
				dst = work + "/" + dst
			}
			for _, s := range args[:len(args)-1] {
				from := filepath.Join(ctxDir, filepath.FromSlash(s))
				fi, err := os.Stat(from)
				if err != nil {
					t.Fatalf("COPY %s: %s is not in the build context: %v", rest, s, err)
				}
				if fi.IsDir() {
					copyContext(t, from, in(dst), "")
				} else {
					copyContext(t, from, filepath.Join(in(dst), filepath.Base(s)), "")
				}
			}
		case "RUN":
			cmd := strings.ReplaceAll(rest, "/out/", in("/out")+"/")
			if o, e, code := run(t, in(work), env, "sh", "-c", cmd); code != 0 {
				t.Fatalf("RUN %s: exit %d\n%s%s", rest, code, o, e)
			}
		default:
			t.Fatalf("the build stage's %s is not emulated by this test", op)
		}
	}
	out, e, code := run(t, in(work), env, "go", "list", "-deps", "-f", "{{with .Module}}{{.Dir}}{{end}}", ".")
	if code != 0 {
		t.Fatalf("go list: exit %d\n%s", code, e)
	}
	seen := map[string]bool{}
	for _, d := range strings.Fields(out) {
		if seen[d] {
			continue
		}
		seen[d] = true
		if !strings.HasPrefix(d, root+string(filepath.Separator)) && !strings.HasPrefix(d, gopath+string(filepath.Separator)) {
			t.Errorf("the build reads the module in %s, outside the build context (docker cannot)", d)
		}
	}
	return root
}

// copyContext copies the directory (or file) src to dst, leaving out what
// the .dockerignore patterns in ignore match, as docker does: a pattern is
// matched against the path relative to src, and a directory it matches is
// left out whole.
func copyContext(t *testing.T, src, dst, ignore string) {
	t.Helper()
	var patterns []string
	for _, line := range strings.Split(ignore, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "!") {
			t.Fatalf(".dockerignore: exceptions (%s) are not emulated by this test", line)
		}
		patterns = append(patterns, filepath.Clean(strings.TrimPrefix(line, "/")))
	}
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		for _, pat := range patterns {
			if ok, _ := filepath.Match(pat, filepath.ToSlash(rel)); ok {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
		}
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		if d.Type()&os.ModeSymlink != 0 {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
