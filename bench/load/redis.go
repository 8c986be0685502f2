package main

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"slices"
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
	lines, err := r.info("memory")
	if err != nil {
		return 0, err
	}
	for _, line := range lines {
		if v, ok := strings.CutPrefix(line, "used_memory:"); ok {
			return strconv.ParseInt(v, 10, 64)
		}
	}
	return 0, fmt.Errorf("INFO memory: no used_memory")
}

// commands is how many times Redis has run each command so far (INFO
// commandstats), by lower-case name; the commands a script runs count
// too, under their own names.
func (r *redisServer) commands() (map[string]int64, error) {
	lines, err := r.info("commandstats")
	if err != nil {
		return nil, err
	}
	n := map[string]int64{}
	for _, line := range lines {
		// cmdstat_evalsha:calls=3,usec=...
		name, rest, ok := strings.Cut(strings.TrimPrefix(line, "cmdstat_"), ":")
		if !ok || len(name) == len(line) {
			continue
		}
		calls, _, _ := strings.Cut(strings.TrimPrefix(rest, "calls="), ",")
		if v, err := strconv.ParseInt(calls, 10, 64); err == nil {
			n[name] = v
		}
	}
	return n, nil
}

// info returns the lines of one section of INFO.
func (r *redisServer) info(section string) ([]string, error) {
	conn, err := net.DialTimeout("tcp", r.addr, time.Second)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := fmt.Fprintf(conn, "*2\r\n$4\r\nINFO\r\n$%d\r\n%s\r\n", len(section), section); err != nil {
		return nil, err
	}
	br := bufio.NewReader(conn)
	head, err := br.ReadString('\n')
	if err != nil || !strings.HasPrefix(head, "$") {
		return nil, fmt.Errorf("INFO %s: unexpected answer %q (%v)", section, head, err)
	}
	size, err := strconv.Atoi(strings.TrimSpace(head[1:]))
	if err != nil {
		return nil, fmt.Errorf("INFO %s: unexpected answer %q", section, head)
	}
	body := make([]byte, size+2)
	if _, err := io.ReadFull(br, body); err != nil {
		return nil, fmt.Errorf("INFO %s: %v", section, err)
	}
	return strings.Split(strings.TrimSpace(strings.ReplaceAll(string(body), "\r", "")), "\n"), nil
}

// perCall formats the commands run between a and b per call, most first:
// "evalsha 3.0, hset 4.0".
func perCall(a, b map[string]int64, calls int) string {
	type cmd struct {
		name string
		n    float64
	}
	var cs []cmd
	for name, v := range b {
		if d := v - a[name]; d > 0 && calls > 0 {
			cs = append(cs, cmd{name, float64(d) / float64(calls)})
		}
	}
	slices.SortFunc(cs, func(x, y cmd) int {
		if x.n != y.n {
			return cmp.Compare(y.n, x.n)
		}
		return strings.Compare(x.name, y.name)
	})
	var parts []string
	for _, c := range cs {
		if c.n >= 0.05 {
			parts = append(parts, fmt.Sprintf("%s %.1f", c.name, c.n))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}
