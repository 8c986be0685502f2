package bundler

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evanw/esbuild/pkg/api"

	"github.com/mcpgen/mcpgen/internal/browserbundle"
	"github.com/mcpgen/mcpgen/internal/testenv"
)

// Benchmarks of the view pipeline; the numbers are recorded in
// docs/benchmarks.md ("## Views"):
//
//	go test ./bundler -run 'Size' -bench . -benchtime 20x -v

func gzipLen(b []byte) int {
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	w.Write(b)
	w.Close()
	return buf.Len()
}

// cardHTML is the production bundle of the reference card (mcpgen/ui).
func cardHTML(t testing.TB) string {
	b := newBundler(t, "testdata/card", true)
	return build(t, b)[0].HTML
}

// extAppsCardHTML bundles the same card written against the official MCP
// Apps client SDK (@modelcontextprotocol/ext-apps/react), with the same
// esbuild options, into the same kind of document.
func extAppsCardHTML(t testing.TB) string {
	nm := testenv.NodeModules(t, "react", "react-dom", "@modelcontextprotocol/ext-apps", "@modelcontextprotocol/client", "zod")
	dir, err := filepath.Abs("testdata/extapps-card")
	if err != nil {
		t.Fatal(err)
	}
	o := browserbundle.Options()
	o.EntryPoints = []string{filepath.Join(dir, "main.tsx")}
	o.AbsWorkingDir = dir
	o.Outdir = filepath.Join(dir, "out")
	o.Format = api.FormatIIFE
	o.Target = api.ES2020
	o.NodePaths = []string{nm}
	o.MinifyWhitespace, o.MinifyIdentifiers, o.MinifySyntax = true, true, true
	o.LegalComments = api.LegalCommentsNone
	o.Charset = api.CharsetASCII
	res := api.Build(o)
	if err := browserbundle.Error("bundling the ext-apps card", res.Errors); err != nil {
		t.Fatal(err)
	}
	var js, css []byte
	for _, f := range res.OutputFiles {
		switch filepath.Ext(f.Path) {
		case ".js":
			js = f.Contents
		case ".css":
			css = f.Contents
		}
	}
	return Document("card", "Greeting card", js, css)
}

// TestSizeVersusExtApps holds the size goal: a card built on mcpgen/ui is at
// most a third of the same card built on the official client SDK, raw and
// gzipped.
func TestSizeVersusExtApps(t *testing.T) {
	ours := cardHTML(t)
	theirs := extAppsCardHTML(t)
	or, tr := len(ours), len(theirs)
	og, tg := gzipLen([]byte(ours)), gzipLen([]byte(theirs))
	t.Logf("mcpgen/ui card:  %7d bytes, %6d gzipped", or, og)
	t.Logf("ext-apps card:   %7d bytes, %6d gzipped", tr, tg)
	t.Logf("ratio:           %.3f raw, %.3f gzipped", float64(or)/float64(tr), float64(og)/float64(tg))
	if or*3 > tr || og*3 > tg {
		t.Errorf("mcpgen/ui card is more than a third of the ext-apps card")
	}
	if strings.Contains(ours, "zod") {
		t.Errorf("mcpgen/ui card contains zod")
	}
}

// cpuTime is the CPU time (user + system) this process has used. On a
// shared machine it measures a build's cost better than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU adds the CPU time per operation since start as a metric.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64((cpuTime()-start).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// BenchmarkBundleSize reports the sizes the size test checks, as metrics.
func BenchmarkBundleSize(b *testing.B) {
	ours, theirs := cardHTML(b), extAppsCardHTML(b)
	for b.Loop() {
	}
	b.ReportMetric(float64(len(ours)), "mcpgen-B")
	b.ReportMetric(float64(gzipLen([]byte(ours))), "mcpgen-gzB")
	b.ReportMetric(float64(len(theirs)), "extapps-B")
	b.ReportMetric(float64(gzipLen([]byte(theirs))), "extapps-gzB")
}

// BenchmarkColdBuild is a first bundle of the card: a new context, every
// file parsed (React included), minified.
func BenchmarkColdBuild(b *testing.B) {
	nm := testenv.NodeModules(b, "react", "react-dom")
	start := cpuTime()
	defer func() { reportCPU(b, start) }()
	for b.Loop() {
		bu, err := New(Options{Dir: "testdata/card", Minify: true, NodePaths: []string{nm}})
		if err != nil {
			b.Fatal(err)
		}
		if _, diags := bu.Rebuild(context.Background()); diags.HasErrors() {
			b.Fatal(diags.Render(""))
		}
		bu.Close()
	}
}

// BenchmarkRebuildEdited edits one view of a project and rebuilds, as the
// dev loop does on a save: esbuild re-parses the edited file only.
func BenchmarkRebuildEdited(b *testing.B) {
	for _, n := range []int{1, 4} {
		for _, minify := range []bool{false, true} {
			b.Run(fmt.Sprintf("views=%d/minify=%v", n, minify), func(b *testing.B) {
				card, err := os.ReadFile("testdata/card/ui/card.tsx")
				if err != nil {
					b.Fatal(err)
				}
				css, err := os.ReadFile("testdata/card/ui/card.css")
				if err != nil {
					b.Fatal(err)
				}
				files := map[string]string{"ui/card.css": string(css)}
				for i := range n {
					files[fmt.Sprintf("ui/card%d.tsx", i)] = string(card)
				}
				dir := project(b, files)
				bu := newBundler(b, dir, minify)
				build(b, bu) // warm: the context exists, React is parsed
				edited := filepath.Join(dir, "ui", "card0.tsx")
				i := 0
				start := cpuTime()
				defer func() { reportCPU(b, start) }()
				for b.Loop() {
					i++
					src := strings.Replace(string(card), "Greeted", fmt.Sprintf("Greeted (%d)", i), 1)
					if err := os.WriteFile(edited, []byte(src), 0o644); err != nil {
						b.Fatal(err)
					}
					views := build(b, bu)
					if !strings.Contains(views[0].HTML, fmt.Sprintf("Greeted (%d)", i)) {
						b.Fatal("edit not in the bundle")
					}
				}
			})
		}
	}
}
