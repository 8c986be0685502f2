package testenv

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

var servingRE = regexp.MustCompile(`serving MCP.* at (http://\S+/mcp)`)

// ServeConnector starts a built connector binary on a free port of
// 127.0.0.1 (with env added to the environment) and returns its MCP
// endpoint, read from the line it prints on start. The process is
// interrupted when the test ends; if the test failed, its stderr is logged.
func ServeConnector(t testing.TB, bin string, env ...string) string {
	t.Helper()
	cmd := exec.Command(bin, "--addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var (
		mu   sync.Mutex
		logs []string
	)
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			mu.Lock()
			t.Logf("%s stderr:\n%s", filepath.Base(bin), strings.Join(logs, "\n"))
			mu.Unlock()
		}
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			mu.Lock()
			logs = append(logs, sc.Text())
			mu.Unlock()
			if m := servingRE.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
		close(found)
	}()
	select {
	case u, ok := <-found:
		if !ok {
			t.Fatalf("%s exited without serving", bin)
		}
		return u
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not start serving within 30s", bin)
	}
	return ""
}
