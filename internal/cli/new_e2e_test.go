package cli_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpgen/mcpgen/internal/testenv"
)

// forecastGo is the handler a user adds to a fresh project: an enum type, a
// nested optional struct, doc comments and a min/max tag.
const forecastGo = `package main

import (
	"context"
	"fmt"
)

// Units is the unit system of a forecast.
type Units string

const (
	// Metric is degrees Celsius and km/h.
	Metric Units = "metric"
	// Imperial is degrees Fahrenheit and mph.
	Imperial Units = "imperial"
)

// Window narrows a forecast.
type Window struct {
	// Days is how many days ahead to forecast.
	Days int ` + "`" + `json:"days" mcpgen:"min=1,max=14"` + "`" + `
	// Hourly adds an hourly breakdown.
	Hourly bool ` + "`" + `json:"hourly,omitempty"` + "`" + `
}

// ForecastInput says where and how to forecast.
type ForecastInput struct {
	// City is the place to forecast, e.g. "Lisbon".
	City  string ` + "`" + `json:"city"` + "`" + `
	Units Units  ` + "`" + `json:"units,omitempty"` + "`" + `
	// Window narrows the forecast; the default is three days.
	Window *Window ` + "`" + `json:"window,omitempty"` + "`" + `
}

// ForecastOutput is a forecast.
type ForecastOutput struct {
	City    string    ` + "`" + `json:"city"` + "`" + `
	Summary string    ` + "`" + `json:"summary"` + "`" + `
	Highs   []float64 ` + "`" + `json:"highs"` + "`" + `
}

// Forecast returns the expected daily highs for a city.
//
//mcpgen:tool OPTIONS title="Weather forecast"
func Forecast(ctx context.Context, in ForecastInput) (ForecastOutput, error) {
	if in.City == "Atlantis" {
		return ForecastOutput{}, fmt.Errorf("no weather station in %s", in.City)
	}
	days := 3
	if in.Window != nil {
		days = in.Window.Days
	}
	out := ForecastOutput{City: in.City, Summary: fmt.Sprintf("%d days, %s", days, in.Units)}
	for i := range days {
		out.Highs = append(out.Highs, 20+float64(i))
	}
	return out, nil
}
`

// TestNewBuildServe is the flow a new user follows: scaffold, add a tool,
// build, serve, and see the tool as a host sees it; then misspell a
// directive option and get a positioned diagnostic.
func TestNewBuildServe(t *testing.T) {
	t.Parallel()
	mcpgen := mcpgenBinary(t)
	work := t.TempDir()
	args := []string{"new", "acme"}
	_, err := exec.LookPath("npm")
	view := err == nil
	if !view {
		t.Log("npm is not installed: scaffolding without the view")
		args = append(args, "--no-view")
	}
	out, errOut, code := run(t, work, nil, mcpgen, args...)
	if code != 0 {
		t.Fatalf("mcpgen new acme: exit %d\n%s%s", code, out, errOut)
	}
	dir := filepath.Join(work, "acme")
	files := []string{"go.mod", "go.sum", "main.go", "textstats.go", "textstats_test.go", "README.md", ".gitignore", "mcpgen_gen.go"}
	if view {
		files = append(files, "ui/stats.tsx", "ui/mcpgen.d.ts", "package.json", "node_modules/react/package.json")
	}
	for _, f := range files {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("mcpgen new did not create %s: %v", f, err)
		}
	}
	if !strings.Contains(out, "cd acme") {
		t.Errorf("mcpgen new printed no next steps:\n%s", out)
	}
	// The scaffold's own test passes as it is.
	if out, errOut, code := run(t, dir, nil, "go", "test", "./..."); code != 0 {
		t.Fatalf("go test in the new project: exit %d\n%s%s", code, out, errOut)
	}
	// Its test binary links neither the generator nor what the generator
	// needs: generator/check runs the pinned mcpgen in a child process.
	out, errOut, code = run(t, dir, nil, "go", "list", "-deps", "-test", "./...")
	if code != 0 {
		t.Fatalf("go list -deps -test: exit %d\n%s", code, errOut)
	}
	for _, dep := range strings.Fields(out) {
		for _, banned := range []string{"github.com/evanw/esbuild/", "golang.org/x/tools/go/packages", "github.com/mcpgen/mcpgen/internal/pipeline", "github.com/mcpgen/mcpgen/generator/load"} {
			if strings.HasPrefix(dep, banned) {
				t.Errorf("the scaffold's go test links %s", dep)
			}
		}
	}
	if view {
		// The view type-checks against the generated ui/mcpgen.d.ts.
		if out, errOut, code := run(t, dir, nil, "npm", "run", "--silent", "typecheck"); code != 0 {
			t.Errorf("npm run typecheck: exit %d\n%s%s", code, out, errOut)
		}
	}
	// A second `new` into the same directory is refused.
	if _, errOut, code := run(t, work, nil, mcpgen, "new", "acme"); code != 2 || !strings.Contains(errOut, "not empty") {
		t.Errorf("mcpgen new into a non-empty dir: exit %d, %s", code, errOut)
	}

	writeForecast(t, dir, "readonly")
	// A tool added without regenerating: the scaffold's own test says so.
	if out, errOut, code := run(t, dir, nil, "go", "test", "./..."); code == 0 || !strings.Contains(out+errOut, "generated files are out of date with the sources: mcpgen_gen.go") {
		t.Errorf("go test with a stale mcpgen_gen.go: exit %d, want a failure naming it\n%s%s", code, out, errOut)
	}
	bin := filepath.Join(dir, "bin", "acme")
	out, errOut, code = run(t, dir, nil, mcpgen, "build", "-o", "bin/acme")
	if code != 0 {
		t.Fatalf("mcpgen build: exit %d\n%s%s", code, out, errOut)
	}
	wantBuilt := "built " + bin + ": 2 tools"
	if view {
		wantBuilt += ", 1 view"
	}
	if out != wantBuilt+"\n" {
		t.Errorf("mcpgen build printed %q, want %q", out, wantBuilt)
	}
	t.Run("http", func(t *testing.T) {
		cs := connectHTTP(t, serveHTTP(t, bin, nil))
		checkForecast(t, cs)
		if view {
			checkStatsView(t, cs)
		}
	})
	t.Run("stdio", func(t *testing.T) { checkForecast(t, connectStdio(t, bin, nil)) })

	// After the build regenerated, the scaffold's test passes again.
	if out, errOut, code := run(t, dir, nil, "go", "test", "./..."); code != 0 {
		t.Errorf("go test after mcpgen build: exit %d\n%s%s", code, out, errOut)
	}
	// generate --check agrees that everything is up to date.
	if out, errOut, code := run(t, dir, nil, mcpgen, "generate", "--check"); code != 0 {
		t.Errorf("mcpgen generate --check after build: exit %d\n%s%s", code, out, errOut)
	}

	// A misspelt option is an error at its file:line:col, naming it.
	writeForecast(t, dir, "readonyl")
	src, _ := os.ReadFile(filepath.Join(dir, "forecast.go"))
	line, col := position(t, string(src), "readonyl")
	_, errOut, code = run(t, dir, nil, mcpgen, "generate")
	if code != 1 {
		t.Fatalf("mcpgen generate with a misspelt option: exit %d, want 1\n%s", code, errOut)
	}
	want := fmt.Sprintf("forecast.go:%d:%d: ", line, col)
	if !strings.Contains(errOut, want) || !strings.Contains(errOut, `"readonyl"`) || !strings.Contains(errOut, "readonly") {
		t.Errorf("diagnostic does not name forecast.go:%d:%d, the misspelling and the fix:\n%s", line, col, errOut)
	}
	if !regexp.MustCompile(`(?m)^1 error$`).MatchString(errOut) {
		t.Errorf("no summary line \"1 error\":\n%s", errOut)
	}
	// --check sees the same problem.
	if _, _, code := run(t, dir, nil, mcpgen, "generate", "--check"); code != 1 {
		t.Errorf("generate --check with a misspelt option: exit %d, want 1", code)
	}
}

func writeForecast(t *testing.T, dir, options string) {
	t.Helper()
	src := strings.Replace(forecastGo, "OPTIONS", options, 1)
	if err := os.WriteFile(filepath.Join(dir, "forecast.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}

// position returns the 1-based line and byte column of the first substr.
func position(t *testing.T, src, substr string) (int, int) {
	t.Helper()
	i := strings.Index(src, substr)
	if i < 0 {
		t.Fatalf("%q not in source", substr)
	}
	line := strings.Count(src[:i], "\n") + 1
	return line, i - strings.LastIndex(src[:i], "\n")
}

func checkForecast(t *testing.T, cs *mcp.ClientSession) {
	ts := tools(t, cs)
	if _, ok := ts["text_stats"]; !ok {
		t.Error("the scaffold's text_stats tool is missing")
	}
	f, ok := ts["forecast"]
	if !ok {
		t.Fatalf("no forecast tool among %v", keys(ts))
	}
	if f.Description != "Forecast returns the expected daily highs for a city." {
		t.Errorf("description = %q", f.Description)
	}
	if f.Title != "Weather forecast" || f.Annotations == nil || !f.Annotations.ReadOnlyHint {
		t.Errorf("title %q, annotations %+v", f.Title, f.Annotations)
	}
	in := newSchema(t, f.InputSchema)
	if got := in.strings("required"); !slices.Equal(got, []string{"city"}) {
		t.Errorf("required = %v, want [city]", got)
	}
	if got := in.prop(t, "city").str("description"); got != `City is the place to forecast, e.g. "Lisbon".` {
		t.Errorf("city description = %q", got)
	}
	if got := in.prop(t, "units").strings("enum"); !slices.Equal(got, []string{"imperial", "metric"}) {
		t.Errorf("units enum = %v", got)
	}
	days := in.prop(t, "window").prop(t, "days")
	lo, _ := days.num("minimum")
	hi, _ := days.num("maximum")
	if lo != 1 || hi != 14 || !strings.Contains(days.str("description"), "how many days") {
		t.Errorf("window.days = %v", days.m)
	}
	if f.OutputSchema == nil || !newSchema(t, f.OutputSchema).prop(t, "highs").hasType("array") {
		t.Errorf("outputSchema = %v", f.OutputSchema)
	}

	got := structured(t, call(t, cs, "forecast", map[string]any{"city": "Lisbon", "units": "metric", "window": map[string]any{"days": 2}}))
	if highs, _ := got["highs"].([]any); len(highs) != 2 || got["city"] != "Lisbon" {
		t.Errorf("forecast = %v", got)
	}
	wantError(t, call(t, cs, "forecast", map[string]any{"city": "Lisbon", "window": map[string]any{"days": 15}}), "days")
	wantError(t, call(t, cs, "forecast", map[string]any{"city": "Lisbon", "units": "kelvin"}), "units")
	wantError(t, call(t, cs, "forecast", map[string]any{"city": "Atlantis"}), "no weather station in Atlantis")
}

// checkStatsView checks that text_stats links its view and that the view
// is served as an MCP Apps resource holding the bundled React code.
func checkStatsView(t *testing.T, cs *mcp.ClientSession) {
	ts := tools(t, cs)
	meta, _ := ts["text_stats"].Meta["ui"].(map[string]any)
	uri, _ := meta["resourceUri"].(string)
	if !strings.HasPrefix(uri, "ui://stats") {
		t.Fatalf("text_stats _meta.ui = %v, want a resourceUri ui://stats...", ts["text_stats"].Meta)
	}
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Contents) != 1 || res.Contents[0].MIMEType != "text/html;profile=mcp-app" {
		t.Fatalf("view resource = %+v", res.Contents)
	}
	html := res.Contents[0].Text
	for _, want := range []string{"<script", "word pairs", "reading time"} {
		if !strings.Contains(html, want) {
			t.Errorf("the view's HTML (%d bytes) lacks %q", len(html), want)
		}
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestNewTrimpath checks the scaffold of an mcpgen built without its source
// path (-trimpath) and without a release version: it cannot tell which
// mcpgen to require, says so, and works once given --mcpgen.
func TestNewTrimpath(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds binaries; skipped with -short")
	}
	bin := filepath.Join(t.TempDir(), "mcpgen")
	if out, errOut, code := run(t, testenv.Root(), nil, "go", "build", "-trimpath", "-o", bin, "./cmd/mcpgen"); code != 0 {
		t.Fatalf("go build -trimpath: %s%s", out, errOut)
	}
	work := t.TempDir()
	_, errOut, code := run(t, work, nil, bin, "new", "tally", "--no-view")
	if code != 1 || !strings.Contains(errOut, "--mcpgen") {
		t.Fatalf("new without a known mcpgen: exit %d, %s; want exit 1 asking for --mcpgen", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(work, "tally")); err == nil {
		t.Error("new wrote files before failing")
	}
	out, errOut, code := run(t, work, nil, bin, "new", "tally", "--no-view", "--mcpgen", testenv.Root())
	if code != 0 {
		t.Fatalf("new --mcpgen DIR: exit %d\n%s%s", code, out, errOut)
	}
	mod, _ := os.ReadFile(filepath.Join(work, "tally", "go.mod"))
	if !strings.Contains(string(mod), "replace github.com/mcpgen/mcpgen => ./third_party/mcpgen") || !strings.Contains(string(mod), "from "+testenv.Root()) {
		t.Errorf("go.mod does not replace mcpgen with a copy of the checkout:\n%s", mod)
	}
	if _, err := os.Stat(filepath.Join(work, "tally", "third_party", "mcpgen", "connector", "server.go")); err != nil {
		t.Errorf("the checkout was not copied into the project: %v", err)
	}
	if out, errOut, code := run(t, filepath.Join(work, "tally"), nil, "go", "vet", "./..."); code != 0 {
		t.Errorf("go vet in the new project: %s%s", out, errOut)
	}
}
