package chromium

import (
	"errors"
	"strings"
	"testing"
)

func TestFindEnv(t *testing.T) {
	t.Setenv("MCPGEN_CHROME", "/nonexistent/chrome")
	if _, err := Find(); err == nil || !strings.Contains(err.Error(), "MCPGEN_CHROME=/nonexistent/chrome") {
		t.Errorf("Find with a bad MCPGEN_CHROME = %v", err)
	}
	t.Setenv("MCPGEN_CHROME", "")
	t.Setenv("PATH", t.TempDir())
	if _, err := Find(); !errors.Is(err, ErrNotFound) {
		t.Errorf("Find with an empty PATH = %v, want ErrNotFound", err)
	}
}

func TestFlags(t *testing.T) {
	flags := Flags()
	for _, want := range []string{"--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"} {
		found := false
		for _, f := range flags {
			found = found || f == want
		}
		if !found {
			t.Errorf("Flags() lacks %s: %v", want, flags)
		}
	}
	flags[0] = "changed"
	if Flags()[0] == "changed" {
		t.Error("Flags returns a shared slice")
	}
	for in, want := range map[string][2]string{"--no-sandbox": {"no-sandbox", ""}, "--disable-features=A,B": {"disable-features", "A,B"}} {
		if n, v := Split(in); n != want[0] || v != want[1] {
			t.Errorf("Split(%q) = %q, %q", in, n, v)
		}
	}
}
