package testenv

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// RedisServer returns the path of redis-server (Debian's redis-server
// package), the shared store of the many-replica tests.
func RedisServer(t testing.TB) string {
	t.Helper()
	for _, p := range []string{"redis-server", "/usr/bin/redis-server"} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	missing(t, "redis-server (Debian package redis-server)")
	return ""
}

// HAProxy returns the path of haproxy (Debian's haproxy package), the load
// balancer of the many-replica tests.
func HAProxy(t testing.TB) string {
	t.Helper()
	for _, p := range []string{"haproxy", "/usr/sbin/haproxy"} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	missing(t, "haproxy (Debian package haproxy)")
	return ""
}

// Redis is a redis-server a test started on loopback.
type Redis struct {
	Addr string // host:port
	bin  string
	dir  string
	cmd  *exec.Cmd
	t    testing.TB
}

// URL returns the redis:// URL of the server.
func (r *Redis) URL() string { return "redis://" + r.Addr }

// StartRedis starts redis-server on a free port of 127.0.0.1, with no
// persistence and its files in a temporary directory, and stops it (by
// its pid) when the test ends.
func StartRedis(t testing.TB) *Redis {
	t.Helper()
	bin := RedisServer(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	r := &Redis{Addr: addr, bin: bin, dir: t.TempDir(), t: t}
	r.Start()
	t.Cleanup(r.Stop)
	return r
}

// Start starts the server (again, on the same port, after Stop).
func (r *Redis) Start() {
	r.t.Helper()
	_, port, _ := net.SplitHostPort(r.Addr)
	r.cmd = exec.Command(r.bin, "--port", port, "--bind", "127.0.0.1", "--dir", r.dir,
		"--save", "", "--appendonly", "no", "--daemonize", "no", "--logfile", filepath.Join(r.dir, "redis.log"))
	if err := r.cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; {
		c, err := net.DialTimeout("tcp", r.Addr, time.Second)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(r.dir, "redis.log"))
			r.t.Fatalf("redis-server did not listen on %s within 10s: %v\n%s", r.Addr, err, log)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop kills the server by its pid and waits for it.
func (r *Redis) Stop() {
	if r.cmd == nil || r.cmd.Process == nil {
		return
	}
	r.cmd.Process.Kill()
	r.cmd.Wait()
	r.cmd = nil
}

// String names the server in messages.
func (r *Redis) String() string { return fmt.Sprintf("redis-server at %s", r.Addr) }
