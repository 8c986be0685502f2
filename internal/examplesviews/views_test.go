// Package examplesviews tests the views of every example connector under
// examples/ the way a user meets them: the example is built with the real
// mcpgen CLI into one binary, the binary serves MCP on 127.0.0.1, and each
// view is rendered by the official MCP Apps host bridge in headless Chromium
// (internal/browsertest), talking to that binary. The views are also
// type-checked with the real tsc against the generated ui/mcpgen.d.ts.
package examplesviews

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/bundler"
	"github.com/mcpgen/mcpgen/internal/browsertest"
	"github.com/mcpgen/mcpgen/internal/testenv"
)

var update = flag.Bool("update", false, "write the views' screenshots into docs/screenshots (also: MCPGEN_UPDATE_SCREENSHOTS=1)")

// viewTest is how one example view is exercised. Every view of every
// example must have one (keyed "example/view" in scenarios), so a new view
// cannot go untested.
type viewTest struct {
	Tool string
	Args map[string]any
	// DarkArgs, when set, are the arguments of the dark run.
	DarkArgs map[string]any
	// Steps are played in the light theme; shot is the screenshot path of
	// the view in its first state. They must show the tool result, make the
	// view call a tool through useApp().callTool and show that result, and
	// request a display mode.
	Steps func(shot string) []browsertest.Step
	// Dark are played in the dark theme; shot as for Steps.
	Dark func(shot string) []browsertest.Step
	// Check looks at what the light run saw, beyond the checks every view
	// gets; DarkCheck at what the dark run saw.
	Check, DarkCheck func(t *testing.T, res browsertest.Result)
}

var scenarios = map[string]viewTest{
	"sales/dashboard": salesDashboard,
}

// The sales example's dataset is fixed (examples/sales/ledger/orders.csv),
// so its figures are too.
var salesDashboard = viewTest{
	Tool: "summarize_sales",
	Args: map[string]any{"region": "all", "from": "2025-01-01", "to": "2025-12-31", "groupBy": "month", "top": 5},
	Steps: func(shot string) []browsertest.Step {
		return []browsertest.Step{
			// The tool result, through useToolData.
			{WaitText: "All regions · Jan 1, 2025 – Dec 31, 2025", WaitEvent: "size-changed"},
			{WaitText: "Revenue by month"},
			{Screenshot: shot},
			// useApp().callTool("drill_down") for one product.
			{Click: "Drill down into Barista Pro espresso machine", WaitText: "list price $749.00"},
			{WaitText: "By region"},
			// The table sorts on the client.
			{Click: "Sort by units"},
			// useApp().callTool("summarize_sales") with another grouping.
			{Click: "Quarter", WaitText: "Revenue by quarter"},
			{Click: "Full screen", WaitEvent: "request-display-mode", WaitText: "Exit full screen"},
		}
	},
	// Three products keep the screenshot with the drill-down open short.
	DarkArgs: map[string]any{"region": "all", "from": "2025-01-01", "to": "2025-12-31", "groupBy": "month", "top": 3},
	Dark: func(shot string) []browsertest.Step {
		return []browsertest.Step{
			{WaitText: "Revenue by month", WaitEvent: "size-changed"},
			{Click: "Drill down into Compact espresso machine", WaitText: "list price $329.00"},
			{WaitText: "By region", WaitEvent: "size-changed", Count: 3},
			{WaitText: "West"},
			{Screenshot: shot},
			// Regrouping refreshes the open drill-down too.
			{Click: "Week", WaitText: "Revenue by week"},
			{WaitText: "W51"},
		}
	},
	DarkCheck: func(t *testing.T, res browsertest.Result) {
		for _, w := range []string{"Revenue by week", "W51", "ESP-200 · Machines · list price $329.00", "Burr grinder"} {
			if !strings.Contains(res.Text, w) {
				t.Errorf("the dark run does not show %q", w)
			}
		}
		// Regrouping kept the three products the tool was asked for.
		if strings.Contains(res.Text, "House blend beans, 1 kg") {
			t.Error("after regrouping, the table shows a fourth product")
		}
	},
	Check: func(t *testing.T, res browsertest.Result) {
		var first struct {
			StructuredContent struct {
				Totals struct {
					Revenue      float64 `json:"revenue"`
					Orders       int     `json:"orders"`
					Units        int     `json:"units"`
					AverageOrder float64 `json:"averageOrder"`
				} `json:"totals"`
				TopProducts []struct {
					Name    string  `json:"name"`
					Revenue float64 `json:"revenue"`
					Units   int     `json:"units"`
				} `json:"topProducts"`
			} `json:"structuredContent"`
		}
		tr := res.Of("tool-result")
		if len(tr) != 1 || json.Unmarshal(tr[0].Data, &first) != nil {
			t.Fatalf("tool-result events: %v", tr)
		}
		sc := first.StructuredContent
		// The pinned figures of 2025, all regions.
		if sc.Totals.Revenue != 287972.1 || sc.Totals.Orders != 1449 || len(sc.TopProducts) != 5 || sc.TopProducts[0].Name != "Barista Pro espresso machine" {
			t.Errorf("summarize_sales result changed: totals %+v, top %+v", sc.Totals, sc.TopProducts)
		}
		// The KPI header and the table show the real result's numbers.
		want := []string{
			dollars(sc.Totals.Revenue), thousands(sc.Totals.Orders), thousands(sc.Totals.Units),
			fmt.Sprintf("$%s.%02d", thousands(int(sc.Totals.AverageOrder)), int(sc.Totals.AverageOrder*100+0.5)%100),
		}
		for _, p := range sc.TopProducts {
			want = append(want, p.Name, dollars(p.Revenue))
		}
		// The drill-down (callTool to drill_down) and the regrouping
		// (callTool to summarize_sales) replaced what the view shows.
		want = append(want, "Barista Pro espresso machine", "ESP-100 · Machines · list price $749.00", "Avg. price paid", "Rank", "#1",
			"Revenue by quarter", "Q1 '25", "Q4 '25", "Exit full screen")
		for _, w := range want {
			if !strings.Contains(res.Text, w) {
				t.Errorf("the view does not show %q", w)
			}
		}
		// Sorted by units (descending), beans outsell the espresso machine.
		beans, machine := strings.Index(res.Text, "House blend beans, 1 kg"), strings.Index(res.Text, "Barista Pro espresso machine\nESP-100")
		if beans < 0 || machine < 0 || beans > machine {
			t.Errorf("after sorting by units, the house blend (at %d) should come before the espresso machine (at %d)", beans, machine)
		}
	},
}

// dollars formats like the view's Intl.NumberFormat USD with no decimals.
func dollars(v float64) string { return "$" + thousands(int(v+0.5)) }

func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// TestExampleViews builds every example with a ui/ directory and drives each
// of its views in Chromium against the built connector.
func TestExampleViews(t *testing.T) {
	if testing.Short() {
		t.Skip("builds connectors and runs a browser")
	}
	dirs, err := filepath.Glob(filepath.Join(testenv.Root(), "examples", "*", "ui"))
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) == 0 {
		t.Fatal("no example has a ui/ directory")
	}
	for _, ui := range dirs {
		dir := filepath.Dir(ui)
		t.Run(filepath.Base(dir), func(t *testing.T) { testExample(t, dir) })
	}
}

func testExample(t *testing.T, dir string) {
	name := filepath.Base(dir)
	nodeModules := filepath.Join(dir, "node_modules")
	if _, err := os.Stat(filepath.Join(nodeModules, "react", "package.json")); err != nil {
		msg := fmt.Sprintf("examples/%s/node_modules lacks React; run scripts/setup.sh (npm ci in every example with a package.json)", name)
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}

	// The views, bundled as mcpgen build bundles them.
	b, err := bundler.New(bundler.Options{Dir: dir, Minify: true, NodePaths: []string{nodeModules}})
	if err != nil {
		t.Fatal(err)
	}
	views, diags := b.Rebuild(context.Background())
	b.Close()
	if len(diags) > 0 {
		t.Fatalf("bundling the views of examples/%s:\n%s", name, diags)
	}
	var names []string
	for _, v := range views {
		names = append(names, v.Name)
		if len(v.HTML) < 1000 || !strings.HasPrefix(v.URI, "ui://"+v.Name+"/") {
			t.Errorf("view %s: URI %q, %d bytes of HTML", v.Name, v.URI, len(v.HTML))
		}
	}
	if len(names) == 0 {
		t.Fatalf("examples/%s/ui holds no view", name)
	}

	mcpgen := mcpgenBinary(t)
	work := copyExample(t, dir)
	t.Run("generated", func(t *testing.T) {
		out, err := exec.Command(mcpgen, "generate", "--check", work).CombinedOutput()
		if err != nil {
			t.Errorf("the generated files committed in examples/%s are not current: %v\n%s\nrun: go run ./cmd/mcpgen generate examples/%s", name, err, out, name)
		}
	})
	bin := filepath.Join(t.TempDir(), name)
	if out, err := exec.Command(mcpgen, "build", work, "-o", bin).CombinedOutput(); err != nil {
		t.Fatalf("mcpgen build examples/%s: %v\n%s", name, err, out)
	}
	t.Run("tsc", func(t *testing.T) { typecheck(t, work) })

	testenv.Chromium(t)
	endpoint := testenv.ServeConnector(t, bin)
	for _, view := range names {
		t.Run(view, func(t *testing.T) {
			vt, ok := scenarios[name+"/"+view]
			if !ok {
				t.Fatalf("examples/%s/ui/%s has no browser scenario: add one to scenarios in internal/examplesviews/views_test.go", name, view)
			}
			srv := browsertest.ServeURL(t, endpoint)
			shot := screenshotPath(t, name+"-"+view)
			res := browsertest.Run(t, srv, browsertest.Scenario{Tool: vt.Tool, Args: vt.Args, Steps: vt.Steps(shot), Timeout: 20 * time.Second})
			if res.Error != "" {
				t.Fatalf("browser run failed:\n%s", res.Report())
			}
			checkCommon(t, res, view, "light")
			if vt.Check != nil {
				vt.Check(t, res)
			}
			if t.Failed() {
				t.Logf("what the host saw:\n%s", res.Report())
			}
			if st, err := os.Stat(shot); err != nil || st.Size() < 5000 {
				t.Errorf("screenshot %s: %v", shot, err)
			}

			if vt.Dark == nil {
				return
			}
			dshot := screenshotPath(t, name+"-"+view+"-dark")
			args := vt.Args
			if vt.DarkArgs != nil {
				args = vt.DarkArgs
			}
			dark := browsertest.Run(t, srv, browsertest.Scenario{Tool: vt.Tool, Args: args, Theme: "dark", Steps: vt.Dark(dshot), Timeout: 20 * time.Second})
			if dark.Error != "" {
				t.Fatalf("browser run (dark) failed:\n%s", dark.Report())
			}
			if dark.Theme != "dark" || dark.Background != "#262624" {
				t.Errorf("dark host context not applied: data-theme %q, --color-background-primary %q", dark.Theme, dark.Background)
			}
			if vt.DarkCheck != nil {
				vt.DarkCheck(t, dark)
			}
			if t.Failed() {
				t.Logf("what the host saw (dark):\n%s", dark.Report())
			}
		})
	}
}

// checkCommon checks what every view must do with the host: the resource
// is an MCP App, the handshake names the view, the tool result arrived,
// the view reported its size, and its display-mode request was answered.
func checkCommon(t *testing.T, res browsertest.Result, view, theme string) {
	t.Helper()
	r := res.Of("resource")
	if len(r) != 1 || !strings.Contains(string(r[0].Data), `"mimeType":"text/html;profile=mcp-app"`) ||
		!strings.Contains(string(r[0].Data), `"uri":"ui://`+view+`/`) {
		t.Errorf("resource events: %v", r)
	}
	if in := res.Of("initialized"); len(in) != 1 || !strings.Contains(string(in[0].Data), `"name":"`+view+`"`) {
		t.Errorf("handshake: initialized events %v", in)
	}
	if tr := res.Of("tool-result"); len(tr) != 1 || strings.Contains(string(tr[0].Data), `"isError":true`) {
		t.Errorf("tool result: %v", tr)
	}
	sized := false
	for _, e := range res.Of("size-changed") {
		var p struct{ Width, Height int }
		if json.Unmarshal(e.Data, &p) == nil && p.Height > 100 && p.Width > 0 {
			sized = true
		}
	}
	if !sized {
		t.Errorf("no size-changed notification with a plausible size: %v", res.Of("size-changed"))
	}
	if d := res.Of("request-display-mode"); len(d) == 0 {
		t.Error("the view requested no display mode")
	}
	if res.Theme != theme {
		t.Errorf("data-theme %q, want %q", res.Theme, theme)
	}
	for _, c := range res.Console {
		// The host page's own fetches (favicon, the event stream cut at the
		// end) are not the view's errors.
		if strings.HasPrefix(c, "pageerror: ") || strings.HasPrefix(c, "error: ") && !strings.Contains(c, "Failed to load resource") {
			t.Errorf("browser console: %s", c)
		}
	}
}

// typecheck runs the real tsc (internal/testenv/npm) on the example's
// tsconfig.json, against its own @types and the generated ui/mcpgen.d.ts.
func typecheck(t *testing.T, dir string) {
	node := testenv.Node(t)
	tsc := filepath.Join(testenv.NodeModules(t, "typescript"), "typescript", "bin", "tsc")
	cmd := exec.Command(node, tsc, "-p", dir, "--noEmit", "--pretty", "false")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("tsc -p examples/%s: %v\n%s", filepath.Base(dir), err, out)
	}
}

// screenshotPath is where a view's screenshot goes: docs/screenshots/NAME.png
// under -update (or MCPGEN_UPDATE_SCREENSHOTS=1), else a temporary file.
func screenshotPath(t *testing.T, name string) string {
	if !*update && os.Getenv("MCPGEN_UPDATE_SCREENSHOTS") == "" {
		return filepath.Join(t.TempDir(), name+".png")
	}
	dir := filepath.Join(testenv.Root(), "docs", "screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, name+".png")
}

// mcpgenBinary builds cmd/mcpgen once per test process.
func mcpgenBinary(t *testing.T) string {
	t.Helper()
	bin, err := testenv.MCPGen()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

func TestMain(m *testing.M) {
	code := m.Run()
	testenv.RemoveMCPGen()
	os.Exit(code)
}

// copyExample copies an example into a temporary directory, pointing its
// replace directive at this checkout and linking its node_modules, so
// building it leaves the tree alone.
func copyExample(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := testenv.CopyExample(src, dst); err != nil {
		t.Fatal(err)
	}
	return dst
}
