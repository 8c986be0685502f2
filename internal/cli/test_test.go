package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTestWithoutChromium: mcpgen test on a machine without a browser says
// how to get one and fails, before building anything.
func TestTestWithoutChromium(t *testing.T) {
	t.Setenv("MCPGEN_CHROME", "")
	t.Setenv("PATH", t.TempDir())
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module acme\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runCLI(t, "test", dir)
	if code != ExitFailed || !strings.Contains(errOut, "mcpgen: test needs headless Chromium: no Chromium found: install one (Debian/Ubuntu: apt-get install chromium") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

func TestTestUsage(t *testing.T) {
	for _, args := range [][]string{{"test", "--host", "claud"}, {"test", "--theme", "dim"}} {
		_, errOut, code := runCLI(t, args...)
		if code != ExitUsage || !strings.Contains(errOut, "valid:") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
	}
}
