package dev

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// child is one running connector process (the front's Process), serving Streamable HTTP on a
// private loopback port. It runs in its own process group, so stopping it
// also stops anything it started, and it dies with mcpgen dev (Pdeathsig).
type child struct {
	bin  string
	addr string // 127.0.0.1:PORT
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited
	err  error         // exit status, valid after done

	mu       sync.Mutex
	stopping bool
	tail     []string // last lines of stderr, for crash reports
}

// startChild starts bin --addr 127.0.0.1:PORT on a free port. Its stderr is
// copied to log line by line with a prefix.
func startChild(bin, dir string, env []string, log io.Writer) (*child, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "--addr", addr)
	cmd.Dir = dir
	cmd.Env = env
	ownGroup(cmd)
	// One pipe for stdout and stderr keeps the connector's lines in order.
	stderr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	c := &child{bin: bin, addr: addr, cmd: cmd, done: make(chan struct{})}
	err = cmd.Start()
	pw.Close()
	if err != nil {
		stderr.Close()
		return nil, err
	}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		defer stderr.Close()
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64*1024), 1024*1024)
		for sc.Scan() {
			line := sc.Text()
			c.mu.Lock()
			c.tail = append(c.tail, line)
			if len(c.tail) > 20 {
				c.tail = c.tail[len(c.tail)-20:]
			}
			c.mu.Unlock()
			if strings.HasSuffix(line, " at "+c.URL()) {
				// The connector announcing its private address: hosts must
				// connect to the front, or lose their session on reload.
				continue
			}
			fmt.Fprintf(log, "  │ %s\n", line)
		}
	}()
	go func() {
		<-copied
		c.err = cmd.Wait()
		close(c.done)
	}()
	return c, nil
}

// freeAddr returns a loopback address with a port that was free a moment ago.
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := l.Addr().String()
	l.Close()
	return addr, nil
}

// URL is the child's MCP endpoint.
func (c *child) URL() string { return "http://" + c.addr + "/mcp" }

// exited reports whether the process has exited.
func (c *child) exited() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// Done is closed when the process has exited.
func (c *child) Done() <-chan struct{} { return c.done }

// ExitStatus describes how the process exited, once it has.
func (c *child) ExitStatus() string { return exitText(c.err) }

// Expected reports whether the exit was asked for (Stop), as opposed to a crash.
func (c *child) Expected() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stopping
}

// LastLines returns the last lines the child wrote to stderr.
func (c *child) LastLines() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Join(c.tail, "\n")
}

// Stop ends the process group: SIGTERM, then SIGKILL after grace.
func (c *child) Stop(grace time.Duration) {
	c.mu.Lock()
	c.stopping = true
	c.mu.Unlock()
	if c.exited() {
		return
	}
	terminate(c.cmd.Process)
	select {
	case <-c.done:
		return
	case <-time.After(grace):
	}
	kill(c.cmd.Process)
	<-c.done
}

// waitReady polls the child's port until it accepts connections, the child
// exits, or ctx ends.
func (c *child) waitReady(ctx context.Context) error {
	d := net.Dialer{Timeout: 200 * time.Millisecond}
	for {
		conn, err := d.DialContext(ctx, "tcp", c.addr)
		if err == nil {
			conn.Close()
			return nil
		}
		select {
		case <-c.done:
			return fmt.Errorf("the connector exited before serving (%v)", exitText(c.err))
		case <-ctx.Done():
			return errors.Join(ctx.Err(), errors.New("the connector did not start serving on "+c.addr))
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func exitText(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}
