package examplesviews

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/browsertest"
	"github.com/mcpgen/mcpgen/internal/testenv"
)

// scaffoldText is what the scaffold's view is shown measuring: 27 words, 4
// sentences, 2 paragraphs; "the" is its most frequent word (5 times), "fox"
// the next (4), and "the fox" its most frequent word pair (2).
const scaffoldText = "The quick brown fox jumps over the lazy dog. The dog sleeps, the fox runs!\n\n" +
	"A fox is quick; a dog is lazy. Is the fox happy?"

// TestScaffoldView is the first view a new user sees: `mcpgen new` scaffolds
// a connector, `mcpgen build` builds it, and its ui/stats.tsx is rendered in
// Chromium by the official MCP Apps host bridge against the running binary.
func TestScaffoldView(t *testing.T) {
	if testing.Short() {
		t.Skip("scaffolds a connector (npm install, go mod tidy) and runs a browser")
	}
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not installed: mcpgen new needs it for the view")
	}
	testenv.Chromium(t)
	mcpgen := mcpgenBinary(t)
	work := t.TempDir()
	cmd := exec.Command(mcpgen, "new", "--mcpgen", testenv.Root(), "tally")
	cmd.Dir = work
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mcpgen new tally: %v\n%s", err, out)
	}
	dir := filepath.Join(work, "tally")
	bin := filepath.Join(t.TempDir(), "tally")
	if out, err := exec.Command(mcpgen, "build", dir, "-o", bin).CombinedOutput(); err != nil {
		t.Fatalf("mcpgen build: %v\n%s", err, out)
	} else if !strings.Contains(string(out), "1 view") {
		t.Errorf("mcpgen build of the scaffold built no view: %s", out)
	}
	t.Run("tsc", func(t *testing.T) { typecheck(t, dir) })
	// The scaffold's fixture passes `mcpgen test` in every host preset and
	// theme, and its view test (package mcpgentest) passes from the
	// scaffolded project itself, outside this repository.
	t.Run("mcpgen test", func(t *testing.T) {
		out, err := exec.Command(mcpgen, "test", dir).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "ok: 4 cases passed") {
			t.Errorf("mcpgen test: %v\n%s", err, out)
		}
	})
	t.Run("go test", func(t *testing.T) {
		cmd := exec.Command("go", "test", "-count=1", "-run", "TestStatsView", "-v", ".")
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestStatsView") {
			t.Errorf("go test in the scaffold: %v\n%s", err, out)
		}
	})

	srv := browsertest.ServeURL(t, testenv.ServeConnector(t, bin))
	args := map[string]any{"text": scaffoldText, "top": 5}

	t.Run("light", func(t *testing.T) {
		shot := screenshotPath(t, "scaffold-stats")
		res := browsertest.Run(t, srv, browsertest.Scenario{Tool: "text_stats", Args: args, Timeout: 20 * time.Second, Steps: []browsertest.Step{
			// The tool result, through useToolData.
			{WaitText: "Top words", WaitEvent: "size-changed"},
			{Screenshot: shot},
			// useApp().callTool("text_stats") ranking word pairs instead.
			{Click: "Word pairs", WaitText: "Top word pairs"},
			{WaitText: "the fox"},
			{Click: "Full screen", WaitEvent: "request-display-mode", WaitText: "Exit full screen"},
		}})
		if res.Error != "" {
			t.Fatalf("browser run failed:\n%s", res.Report())
		}
		checkCommon(t, res, "stats", "light")
		checkScaffoldResult(t, res)
		// After the callTool round trip the ranking is of word pairs, with
		// the server's count for "the fox".
		if !strings.Contains(res.Text, "\nthe fox\n2\n") {
			t.Error("the word-pair ranking does not show \"the fox\" first, twice")
		}
		if strings.Contains(res.Text, "Top words") {
			t.Error("the view still shows the word ranking after asking for word pairs")
		}
		var modes []string
		for _, e := range res.Of("request-display-mode") {
			modes = append(modes, string(e.Data))
		}
		if len(modes) != 1 || !strings.Contains(modes[0], `"fullscreen"`) {
			t.Errorf("display-mode requests %v, want one for fullscreen", modes)
		}
		if t.Failed() {
			t.Logf("what the host saw:\n%s", res.Report())
		}
		if st, err := os.Stat(shot); err != nil || st.Size() < 5000 {
			t.Errorf("screenshot %s: %v", shot, err)
		}
	})

	t.Run("dark", func(t *testing.T) {
		shot := screenshotPath(t, "scaffold-stats-dark")
		res := browsertest.Run(t, srv, browsertest.Scenario{Tool: "text_stats", Args: args, Theme: "dark", Timeout: 20 * time.Second, Steps: []browsertest.Step{
			{WaitText: "Top words", WaitEvent: "size-changed"},
			// Letters, through callTool; "o" and "e" lead the text's letters.
			{Click: "Letters", WaitText: "Top letters"},
			{Screenshot: shot},
			{Click: "Full screen", WaitEvent: "request-display-mode"},
		}})
		if res.Error != "" {
			t.Fatalf("browser run (dark) failed:\n%s", res.Report())
		}
		checkCommon(t, res, "stats", "dark")
		if res.Background != "#262624" {
			t.Errorf("dark host context not applied: --color-background-primary %q", res.Background)
		}
		checkScaffoldResult(t, res)
		if !strings.Contains(res.Text, "pairs\no\n9\ne\n8\n") {
			t.Error("the letter ranking does not start with o (9 times) and e (8 times)")
		}
		if t.Failed() {
			t.Logf("what the host saw (dark):\n%s", res.Report())
		}
		if st, err := os.Stat(shot); err != nil || st.Size() < 5000 {
			t.Errorf("screenshot %s: %v", shot, err)
		}
	})
}

// checkScaffoldResult checks the text_stats result the host received and
// the figures the view shows from it.
func checkScaffoldResult(t *testing.T, res browsertest.Result) {
	t.Helper()
	var first struct {
		StructuredContent struct {
			Words, Sentences, Paragraphs, ReadingTimeSeconds int
			Top                                              []struct {
				Unit  string
				Count int
			}
		} `json:"structuredContent"`
	}
	tr := res.Of("tool-result")
	if len(tr) != 1 || json.Unmarshal(tr[0].Data, &first) != nil {
		t.Fatalf("tool-result events: %v", tr)
	}
	sc := first.StructuredContent
	if sc.Words != 27 || sc.Sentences != 4 || sc.Paragraphs != 2 || sc.ReadingTimeSeconds != 7 ||
		len(sc.Top) != 5 || sc.Top[0].Unit != "the" || sc.Top[0].Count != 5 || sc.Top[1].Unit != "fox" || sc.Top[1].Count != 4 {
		t.Errorf("text_stats of the sample text: %+v", sc)
	}
	// The KPIs, each a label (in capitals) above its figure.
	for _, kpi := range []string{"WORDS\n27", "SENTENCES\n4", "PARAGRAPHS\n2", "READING TIME\n7 s"} {
		if !strings.Contains(res.Text, kpi) {
			t.Errorf("the view does not show the figure %q", strings.ReplaceAll(kpi, "\n", " "))
		}
	}
}
