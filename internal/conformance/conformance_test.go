package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testenv"
)

// Scenarios are the 32 server scenarios of @modelcontextprotocol/conformance
// 0.1.16 (`conformance server --suite all`), in the suite's order. The suite
// version is pinned in internal/testenv/npm/package-lock.json; a new version
// with other scenarios makes TestConformance fail until this list and
// docs/conformance.md are updated.
var Scenarios = []string{
	"server-initialize", "logging-set-level", "ping", "completion-complete",
	"tools-list", "tools-call-simple-text", "tools-call-image", "tools-call-audio",
	"tools-call-embedded-resource", "tools-call-mixed-content", "tools-call-with-logging",
	"tools-call-error", "tools-call-with-progress", "tools-call-sampling",
	"tools-call-elicitation", "json-schema-2020-12", "elicitation-sep1034-defaults",
	"server-sse-polling", "server-sse-multiple-streams", "elicitation-sep1330-enums",
	"resources-list", "resources-read-text", "resources-read-binary",
	"resources-templates-read", "resources-subscribe", "resources-unsubscribe",
	"prompts-list", "prompts-get-simple", "prompts-get-with-args",
	"prompts-get-embedded-resource", "prompts-get-with-image", "dns-rebinding-protection",
}

// check is one entry of a scenario's checks.json.
type check struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	Description  string `json:"description"`
	Status       string `json:"status"` // SUCCESS, FAILURE, WARNING, INFO
	ErrorMessage string `json:"errorMessage"`
}

// resultDir matches the directory the suite writes one scenario's checks
// into: server-SCENARIO-TIMESTAMP.
var resultDir = regexp.MustCompile(`^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$`)

// TestConformance runs every server scenario of the official MCP
// conformance suite against examples/everything and fails on any FAILURE or
// WARNING check, listing them all.
func TestConformance(t *testing.T) {
	runSuite(t, "@modelcontextprotocol/conformance", Scenarios, nil)
}

// runSuite runs `conformance server --suite all` of the suite installed as
// npm package module against examples/everything. Every scenario must pass
// with no FAILURE nor WARNING check, except those in failing, which must
// fail: a scenario that starts passing fails the test until it is taken
// off the list, so the list only shrinks.
func runSuite(t *testing.T, module string, scenarios []string, failing map[string]string) {
	node := testenv.Node(t)
	modules := testenv.NodeModules(t, module)
	if testing.Short() {
		t.Skip("builds and serves examples/everything; skipped in -short mode")
	}
	url := serve(t, everythingBinary(t))

	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	suite := filepath.Join(modules, filepath.FromSlash(module), "dist", "index.js")
	cmd := exec.CommandContext(ctx, node, suite, "server", "--url", url, "--suite", "all", "-o", out)
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(node)+string(os.PathListSeparator)+os.Getenv("PATH"), "NO_COLOR=1")
	start := time.Now()
	output, runErr := cmd.CombinedOutput()
	t.Logf("conformance suite %s: %d scenarios in %v", module, len(scenarios), time.Since(start).Round(time.Millisecond))

	results, err := readResults(out)
	if err != nil {
		t.Fatalf("%v\nsuite output:\n%s", err, output)
	}
	var problems []string
	for _, s := range scenarios {
		checks, ok := results[s]
		delete(results, s)
		why, expectFail := failing[s]
		var bad []string
		passed := 0
		for _, c := range checks {
			switch c.Status {
			case "SUCCESS":
				passed++
			case "FAILURE", "WARNING":
				bad = append(bad, fmt.Sprintf("%s: %s %s: %s", s, c.Status, c.ID, orText(c.ErrorMessage, c.Description)))
			}
		}
		switch {
		case expectFail && ok && len(bad) == 0 && passed > 0:
			problems = append(problems, fmt.Sprintf("%s: passes now (%d checks); take it off the expected failures (%s)", s, passed, why))
		case expectFail:
			t.Logf("%-48s expected to fail (%s): %d checks passed, %d did not", s, why, passed, len(bad))
		case !ok:
			problems = append(problems, fmt.Sprintf("%s: the suite wrote no checks.json", s))
		case passed == 0 && len(bad) == 0:
			problems = append(problems, fmt.Sprintf("%s: no check succeeded (only informational results)", s))
		default:
			problems = append(problems, bad...)
			t.Logf("%-48s %d checks passed", s, passed)
		}
	}
	for s := range results {
		problems = append(problems, fmt.Sprintf("%s: a scenario this test does not know; add it to the scenarios and docs/conformance.md", s))
	}
	if len(problems) > 0 {
		t.Errorf("conformance: %d problems:\n\t%s", len(problems), strings.Join(problems, "\n\t"))
		// The summary is enough next to the problems above; the whole
		// output when the suite did not get that far.
		out := string(output)
		if i := strings.Index(out, "=== SUMMARY ==="); i >= 0 {
			out = out[i:]
		}
		t.Logf("suite output:\n%s", out)
	}
	if runErr != nil && len(problems) == 0 && len(failing) == 0 {
		t.Errorf("the suite exited with %v although every check passed:\n%s", runErr, output)
	}
}

// readResults reads every checks.json under dir, by scenario.
func readResults(dir string) (map[string][]check, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	results := make(map[string][]check)
	for _, e := range entries {
		m := resultDir.FindStringSubmatch(e.Name())
		if !e.IsDir() || m == nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name(), "checks.json"))
		if err != nil {
			return nil, err
		}
		var checks []check
		if err := json.Unmarshal(b, &checks); err != nil {
			return nil, fmt.Errorf("%s/checks.json: %v", e.Name(), err)
		}
		results[m[1]] = append(results[m[1]], checks...)
	}
	if len(results) == 0 {
		return nil, fmt.Errorf("the suite wrote no results into %s", dir)
	}
	return results, nil
}

func orText(s, fallback string) string {
	if s != "" {
		return s
	}
	return fallback
}
