package dev_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpgen/mcpgen/internal/testenv"
)

// reportLatency records the p50 and p90 of the measured edits.
func reportLatency(b *testing.B, lat, rebuild []time.Duration) {
	if len(lat) == 0 {
		return
	}
	pct := func(d []time.Duration, p float64) time.Duration {
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		return d[int(p*float64(len(d)-1)+0.5)]
	}
	b.ReportMetric(float64(pct(lat, 0.5).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(pct(lat, 0.9).Microseconds())/1000, "p90-ms")
	b.ReportMetric(float64(pct(rebuild, 0.5).Microseconds())/1000, "rebuild-p50-ms")
	b.ReportMetric(0, "ns/op")
	b.Logf("%d edits: p50 %s, p90 %s, min %s, max %s; rebuild alone (after the debounce) p50 %s",
		len(lat), pct(lat, 0.5), pct(lat, 0.9), lat[0], lat[len(lat)-1], pct(rebuild, 0.5))
}

// BenchmarkViewEdit measures, on a scaffolded connector served by mcpgen
// dev, the time from writing a view file to a connected client having both
// the resources/list_changed notification and the new view content.
func BenchmarkViewEdit(b *testing.B) {
	dir := scaffold(b)
	ds := startDev(b, dir, nil)
	n := newNotes()
	cs := connect(b, ds.url, n)
	var lat, rebuild []time.Duration
	i := 0
	for b.Loop() {
		i++
		marker := fmt.Sprintf("card edit %d", i)
		src := strings.Replace(cardTSX, "card v1", marker, 1)
		n.drain()
		start := time.Now()
		if err := os.WriteFile(filepath.Join(dir, "ui", "card.tsx"), []byte(src), 0o644); err != nil {
			b.Fatal(err)
		}
		expect(b, n.resources, "resources/list_changed")
		tNote := time.Since(start)
		uri := viewURI(b, tool(b, cs, "hello"))
		tList := time.Since(start)
		if got := readText(b, cs, uri); !strings.Contains(got, marker) {
			b.Fatalf("edit %d: the view does not have the new content", i)
		}
		lat = append(lat, time.Since(start))
		if os.Getenv("MCPGEN_BENCH_TRACE") != "" {
			b.Logf("notified %s, listed %s, read %s", tNote, tList, lat[len(lat)-1])
		}
		rebuild = append(rebuild, ds.wait(b, "views").Duration)
	}
	reportLatency(b, lat, rebuild)
}

// BenchmarkHandlerEdit measures the time from writing a handler's Go file
// (new doc comment and result) to a connected client having the
// tools/list_changed notification and a call answered by the new handler.
func BenchmarkHandlerEdit(b *testing.B) {
	dir := scaffold(b)
	ds := startDev(b, dir, nil)
	n := newNotes()
	cs := connect(b, ds.url, n)
	var lat, rebuild []time.Duration
	i := 0
	for b.Loop() {
		i++
		marker := fmt.Sprintf("v%d", i+1)
		src := strings.Replace(helloGo, `" v1"`, `" `+marker+`"`, 1)
		src = strings.Replace(src, "// Hello greets someone", "// Hello greets someone (edit "+marker+")", 1)
		n.drain()
		start := time.Now()
		if err := os.WriteFile(filepath.Join(dir, "hello.go"), []byte(src), 0o644); err != nil {
			b.Fatal(err)
		}
		expect(b, n.tools, "tools/list_changed")
		if got := callText(b, cs, "hello", map[string]any{"name": "ada"}); got != "hello ada "+marker {
			b.Fatalf("edit %d: hello = %q", i, got)
		}
		lat = append(lat, time.Since(start))
		e := ds.wait(b, "go")
		if !e.OK {
			b.Fatal("rebuild failed")
		}
		rebuild = append(rebuild, e.Duration)
	}
	reportLatency(b, lat, rebuild)
}

// BenchmarkHandlerBodyEdit measures the commonest Go edit, a change inside
// a handler's body: the tool's metadata is unchanged, so no notification is
// due (none is sent), and the time is from the write to the first call
// answered by the new code.
func BenchmarkHandlerBodyEdit(b *testing.B) {
	dir := scaffold(b)
	ds := startDev(b, dir, nil)
	n := newNotes()
	cs := connect(b, ds.url, n)
	var lat, rebuild []time.Duration
	i := 0
	for b.Loop() {
		i++
		marker := fmt.Sprintf("v%d", i+1)
		src := strings.Replace(helloGo, `" v1"`, `" `+marker+`"`, 1)
		start := time.Now()
		if err := os.WriteFile(filepath.Join(dir, "hello.go"), []byte(src), 0o644); err != nil {
			b.Fatal(err)
		}
		e := ds.wait(b, "go")
		if !e.OK {
			b.Fatal("rebuild failed")
		}
		if got := callText(b, cs, "hello", map[string]any{"name": "ada"}); got != "hello ada "+marker {
			b.Fatalf("edit %d: hello = %q", i, got)
		}
		lat = append(lat, time.Since(start))
		rebuild = append(rebuild, e.Duration)
	}
	select {
	case <-n.tools:
		b.Errorf("a body-only edit announced tools/list_changed")
	default:
	}
	reportLatency(b, lat, rebuild)
}

// BenchmarkInterrupt measures how long the real `mcpgen dev` takes to exit
// on SIGINT (Ctrl-C) while a client holds a session (with its event stream
// open) on a scaffolded connector it has called.
func BenchmarkInterrupt(b *testing.B) {
	mcpgen, err := testenv.MCPGen()
	if err != nil {
		b.Fatal(err)
	}
	if bin := os.Getenv("MCPGEN_BENCH_BIN"); bin != "" {
		mcpgen = bin // another mcpgen, to compare
	}
	dir := scaffold(b)
	var took []time.Duration
	for b.Loop() {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		cmd := exec.Command(mcpgen, "dev", dir, "--addr", addr)
		out := &syncBuffer{}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		for !strings.Contains(out.String(), "MCP endpoint") {
			if cmd.ProcessState != nil {
				b.Fatalf("mcpgen dev exited:\n%s", out.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
		cs := connect(b, "http://"+addr+"/mcp", newNotes())
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "hello", Arguments: map[string]any{"name": "x"}}); err != nil {
			b.Fatalf("%v\n%s", err, out.String())
		}
		start := time.Now()
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
		took = append(took, time.Since(start))
		cs.Close()
	}
	sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(took[len(took)-1].Microseconds())/1000, "max-ms")
	b.ReportMetric(0, "ns/op")
	b.Logf("%d interrupts: %v", len(took), took)
}
