package conformance

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testenv"
)

// workDir holds what the tests build: the mcpgen binary, a copy of the
// example and the example's binary. TestMain removes it.
var workDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcpgen-conformance-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	workDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	testenv.RemoveMCPGen()
	os.Exit(code)
}

var built struct {
	once sync.Once
	bin  string
	err  error
}

// everythingBinary builds examples/everything once per test run, the way a
// user does: `go build ./cmd/mcpgen`, then `mcpgen build DIR -o BIN`. The
// example is built from a copy, so generation never writes into the source
// tree while tests run. $MCPGEN_EVERYTHING_BIN names an already built
// binary to test instead.
func everythingBinary(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("MCPGEN_EVERYTHING_BIN"); bin != "" {
		return bin
	}
	built.once.Do(func() { built.bin, built.err = buildEverything() })
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

func buildEverything() (string, error) {
	root := testenv.Root()
	mcpgen, err := testenv.MCPGen()
	if err != nil {
		return "", err
	}
	src := filepath.Join(workDir, "everything")
	if err := testenv.CopyExample(filepath.Join(root, "examples", "everything"), src); err != nil {
		return "", err
	}
	bin := filepath.Join(workDir, "everything-server")
	if out, err := run(src, mcpgen, "build", src, "-o", bin); err != nil {
		return "", fmt.Errorf("mcpgen build examples/everything: %v\n%s", err, out)
	}
	return bin, nil
}

func run(dir, name string, args ...string) ([]byte, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	return cmd.CombinedOutput()
}

// syncBuffer collects a child process's output for the test log.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// serve starts bin on a free loopback port and returns its MCP endpoint.
// The server is stopped (SIGINT, then SIGKILL) when the test ends; its log
// is shown if the test failed.
func serve(t *testing.T, bin string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()

	var logs syncBuffer
	cmd := exec.Command(bin, "--addr", addr)
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-exited
			t.Errorf("the server did not stop within 5s of SIGINT")
		}
		if t.Failed() {
			t.Logf("server log:\n%s", logs.String())
		}
	})

	deadline := time.Now().Add(15 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("the server exited before serving: %v\n%s", err, logs.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server did not listen on %s within 15s:\n%s", addr, logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return "http://" + addr + "/mcp"
}

// TestGeneratedFilesCurrent checks that the generated files committed in
// examples/everything are what `mcpgen generate` writes today, so the
// example builds with plain `go build` and shows users current output, and
// that the example (its own module, outside `go vet ./...` of mcpgen) is
// vet-clean.
func TestGeneratedFilesCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mcpgen; skipped in -short mode")
	}
	mcpgen, err := testenv.MCPGen()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(testenv.Root(), "examples", "everything")
	if out, err := run(dir, mcpgen, "generate", "--check", dir); err != nil {
		t.Errorf("mcpgen generate --check examples/everything: %v\n%s\nrun: go run ./cmd/mcpgen generate examples/everything", err, out)
	}
	if out, err := run(dir, "go", "vet", "./..."); err != nil {
		t.Errorf("go vet in examples/everything: %v\n%s", err, out)
	}
}
