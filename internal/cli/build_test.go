package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A tool Claude cannot call (a name with a dot) fails mcpgen build with the
// lint finding as an error and its fix; --allow-lint lets it through, and
// an unknown rule there is a usage error.
func TestBuildFailsOnUncallableToolName(t *testing.T) {
	t.Parallel()
	dir := lintModule(t, map[string]string{
		"main.go": lintMain,
		"tools.go": "package main\n\n// Lists the expenses of a month, newest first.\n//\n//mcpgen:tool readonly title=\"List expenses\" name=expenses.list\n" +
			"func ListExpenses() (string, error) { return \"\", nil }\n",
	})
	bin := filepath.Join(t.TempDir(), "acme")
	out, errOut, code := runCLI(t, "build", dir, "-o", bin, "--no-typecheck")
	want := `tools.go:5:51: the Anthropic API cannot call tool "expenses.list": it holds characters other than a-z, A-Z, 0-9, _ and - [NAME001 tool-name-charset]`
	if code != ExitFailed || !strings.Contains(errOut, want) || !strings.Contains(errOut, "add --allow-lint NAME001") || !strings.Contains(errOut, "1 error") {
		t.Fatalf("build: exit %d\n%s%s\nwant %s", code, out, errOut, want)
	}
	if _, err := os.Stat(bin); err == nil {
		t.Fatal("a binary was built")
	}
	if out, errOut, code := runCLI(t, "build", dir, "-o", bin, "--no-typecheck", "--allow-lint", "NAME0001"); code != ExitUsage || !strings.Contains(errOut, `--allow-lint NAME0001: no such rule; did you mean "NAME001"?`) {
		t.Fatalf("build --allow-lint NAME0001: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = runCLI(t, "build", dir, "-o", bin, "--no-typecheck", "--allow-lint", "tool-name-charset")
	if code != ExitOK || !strings.Contains(errOut, "warning: the Anthropic API cannot call tool") {
		t.Fatalf("build --allow-lint: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatal(err)
	}
}
