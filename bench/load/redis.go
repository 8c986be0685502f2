package main

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// redisServer is the redis-server the mcpgen-redis server keeps its state
// in (--store): one for the whole run, on the load generator's CPU, so
// that the connector's CPU per call stays its own; its CPU per call is
// reported apart.
type redisServer struct {
	cmd  *exec.Cmd
	addr string
}

// benchRedis is started by measure when mcpgen-redis is measured.
var benchRedis *redisServer

// redisPrefixes gives every connector started a key prefix of its own,
// so that no run sees an earlier one's sessions.
var redisPrefixes atomic.Int64

func startRedis(cpu int) (*redisServer, error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, fmt.Errorf("mcpgen-redis needs redis-server on PATH (scripts/setup.sh installs it): %v", err)
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	cmd := exec.Command("taskset", "-c", strconv.Itoa(cpu), bin, "--bind", "127.0.0.1", "--port", strconv.Itoa(port),
		"--save", "", "--appendonly", "no", "--dir", os.TempDir())
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	r := &redisServer{cmd: cmd, addr: addr}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := r.usedMemory(); err == nil {
			return r, nil
		}
		if time.Now().After(deadline) {
			r.stop()
			return nil, fmt.Errorf("redis-server on %s did not answer within 10s", addr)
		}
	}
}

func (r *redisServer) stop() {
	r.cmd.Process.Kill()
	r.cmd.Wait()
}

// url is the --store URL of a fresh connector.
func (r *redisServer) url() string {
	return fmt.Sprintf("redis://%s/0?prefix=bench%d:", r.addr, redisPrefixes.Add(1))
}

// cpu is the redis-server's CPU time so far.
func (r *redisServer) cpu() time.Duration {
	d, _ := procCPU(r.cmd.Process.Pid)
	return d
}

// usedMemory is Redis's own count of the bytes it holds (INFO memory,
// used_memory).
func (r *redisServer) usedMemory() (int64, error) {
	conn, err := net.DialTimeout("tcp", r.addr, time.Second)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := conn.Write([]byte("*2\r\n$4\r\nINFO\r\n$6\r\nmemory\r\n")); err != nil {
		return 0, err
	}
	br := bufio.NewReader(conn)
	head, err := br.ReadString('\n')
	if err != nil || !strings.HasPrefix(head, "$") {
		return 0, fmt.Errorf("INFO memory: unexpected answer %q (%v)", head, err)
	}
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return 0, fmt.Errorf("INFO memory: no used_memory")
		}
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "used_memory:"); ok {
			return strconv.ParseInt(v, 10, 64)
		}
	}
}
