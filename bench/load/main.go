// Command load measures tools/call over real HTTP: the same find_orders tool
// (a pattern, an enum, bounds with a default, structured output and its JSON
// text copy) served by an mcpgen connector (generated and built with the
// real mcpgen command from ./connector), by the go-sdk with the tool
// registered by hand (./sdkserver), by mark3labs/mcp-go (./mcpgoserver),
// and by the floor (./floorserver: net/http and encoding/json, the tool's
// constraints checked by hand), the least any Go server can do.
//
// Each server runs alone, pinned to CPU 0; the load generator is pinned to
// CPU 1. Every configuration (1 and 16 concurrent clients, in four modes:
// 2025-11-25 sessions; 2025-11-25 requests without a session, to the
// default server and to one run with --stateless; 2026-07-28) is run
// against every server in turn, the order rotating from one repetition to
// the next, and the medians are printed: calls/s, p50/p99 latency, server
// CPU per call (utime+stime from /proc) and RSS, with ratios against mcp-go
// and against the floor. A memory phase measures RSS per idle session and
// its growth per call.
//
// By default each client sends its next call as soon as the last is
// answered (closed loop), so a server that answers later gets less load,
// and CPU per call then compares servers at different loads. -rate offers
// the same calls/s to every server instead (open loop, each client paced,
// latency counted from when a call was due); a server that cannot keep up
// is marked.
//
//	cd bench/load && go run .
//	go run . -reps 5 -duration 5s -cpuprofile /tmp/prof
//	go run . -method tools/list    (or resources/read)
//	go run . -modes sessionless,sessionless-stateless -servers mcpgen,floor
//	go run . -servers mcpgen,mcpgen-redis -modes sessions -sessions 16 -rate 8000
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

type config struct {
	servers    []string
	eras       []string
	sessions   []int
	reps       int
	warmup     time.Duration
	duration   time.Duration
	idle       int
	perCall    int
	serverCPU  int
	loadCPU    int
	redisCPU   int
	baseBin    string
	cpuprofile string
	keep       bool
	method     string
	spin       time.Duration
	rate       float64 // calls/s offered in total (open loop); 0: each client calls as fast as it is answered
	binDir     string  // set in the pinned child: where the servers are built
}

func main() {
	var c config
	servers := flag.String("servers", "mcpgen,sdk,mcpgo,floor", "servers to measure (mcpgen, sdk, mcpgo, floor; mcpgen with telemetry on: mcpgen-otel,\nmcpgen-otel-sampled, mcpgen-prom; with a fixed cost added to each call: mcpgen-spin; mcpgen with its state in a redis-server it starts: mcpgen-redis)")
	const modesDoc = "modes: sessions (2025-11-25 in a session), sessionless (2025-11-25 without a session), sessionless-stateless (the same, servers run with --stateless), stateless (2026-07-28)"
	eras := flag.String("modes", strings.Join(allModes, ","), modesDoc)
	flag.StringVar(eras, "eras", strings.Join(allModes, ","), "the same as -modes")
	sessions := flag.String("sessions", "1,16", "concurrent clients")
	flag.IntVar(&c.reps, "reps", 3, "repetitions of every configuration (medians are printed)")
	flag.DurationVar(&c.warmup, "warmup", 500*time.Millisecond, "unmeasured load before each measurement")
	flag.DurationVar(&c.duration, "duration", 2*time.Second, "measured load per run")
	flag.IntVar(&c.idle, "idle", 1000, "idle sessions opened to measure memory per session (0: skip the memory phase)")
	flag.IntVar(&c.perCall, "percall", 20000, "calls in one session to measure memory growth per call")
	flag.IntVar(&c.serverCPU, "server-cpu", 0, "CPU the servers are pinned to")
	flag.IntVar(&c.loadCPU, "load-cpu", 1, "CPU the load generator is pinned to")
	flag.StringVar(&c.baseBin, "base-bin", "", "`FILE`: the mcpgen server of a run at another commit (its -keep directory's mcpgen),\nmeasured as server mcpgen-base (and mcpgen-redis-base with --store)")
	flag.IntVar(&c.redisCPU, "redis-cpu", -1, "CPU mcpgen-redis's redis-server is pinned to (default: the load generator's)")
	flag.StringVar(&c.cpuprofile, "cpuprofile", "", "write each server's CPU profile to `DIR`/SERVER-ERA-N-REP.pprof")
	flag.BoolVar(&c.keep, "keep", false, "keep the built servers (their directory is printed)")
	flag.StringVar(&c.method, "method", methodCall, "what each call is: tools/call (find_orders), tools/list or resources/read (orders://summary)")
	flag.Float64Var(&c.rate, "rate", 0, "offer `N` calls/s in total, spread evenly over the clients, whatever the answers' pace\n(open loop; latency counts from when a call was due), so that servers are compared at the same load;\n0: each client sends its next call as soon as the last is answered")
	flag.DurationVar(&c.spin, "spin", 2*time.Microsecond, "what server mcpgen-spin adds to every call: `DURATION` of its CPU spent spinning")
	flag.StringVar(&c.binDir, "bin-dir", "", "(internal) directory of built servers; set when re-run pinned")
	caps := flag.String("client-caps", "", "capabilities the load client declares: elicitation, sampling, roots (comma-separated; none by default)")
	flag.Parse()
	clientCaps = capsJSON(split(*caps))
	c.servers = split(*servers)
	c.eras = split(*eras)
	for _, s := range split(*sessions) {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			fatalf("-sessions: %q is not a positive count", s)
		}
		c.sessions = append(c.sessions, n)
	}
	for _, s := range c.servers {
		if _, ok := serverKinds[s]; !ok {
			fatalf("-servers: unknown server %q (mcpgen, mcpgen-otel, mcpgen-otel-sampled, mcpgen-prom, mcpgen-spin, mcpgen-redis, mcpgen-base, mcpgen-redis-base, sdk, mcpgo, floor)", s)
		}
	}
	if slices.Contains(c.servers, "mcpgen-base") || slices.Contains(c.servers, "mcpgen-redis-base") {
		abs, err := filepath.Abs(c.baseBin)
		if err != nil || c.baseBin == "" {
			fatalf("-servers mcpgen-base needs -base-bin FILE")
		}
		if _, err := os.Stat(abs); err != nil {
			fatalf("-base-bin: %v", err)
		}
		c.baseBin = abs
	}
	if c.method != methodCall && c.method != methodList && c.method != methodRead {
		fatalf("-method: %q is not tools/call, tools/list or resources/read", c.method)
	}
	if c.rate < 0 {
		fatalf("-rate: %v is not a rate (calls/s, 0 for none)", c.rate)
	}
	if c.method != methodCall {
		c.idle = 0 // the memory phase measures tools/call
	}
	for _, e := range c.eras {
		if !slices.Contains(allModes, e) {
			fatalf("-modes: unknown mode %q (%s)", e, strings.Join(allModes, ", "))
		}
	}
	if c.cpuprofile != "" {
		abs, err := filepath.Abs(c.cpuprofile)
		if err != nil {
			fatalf("-cpuprofile: %v", err)
		}
		c.cpuprofile = abs
		if err := os.MkdirAll(abs, 0o755); err != nil {
			fatalf("-cpuprofile: %v", err)
		}
	}
	if c.binDir == "" {
		os.Exit(buildAndRepin(c))
	}
	if err := measure(c); err != nil {
		fatalf("%v", err)
	}
}

// capsJSON is the client capabilities object declaring names.
func capsJSON(names []string) string {
	var parts []string
	for _, n := range names {
		switch n {
		case "elicitation", "sampling", "roots":
			parts = append(parts, strconv.Quote(n)+":{}")
		default:
			fatalf("-client-caps: unknown capability %q (elicitation, sampling, roots)", n)
		}
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// buildAndRepin builds the three servers (unpinned, with both cores), then
// runs this program again pinned to the load generator's CPU, so that the
// Go runtime of the load generator starts with one CPU.
func buildAndRepin(c config) int {
	bin, err := os.MkdirTemp("", "mcpgen-bench-load-")
	if err != nil {
		fatalf("%v", err)
	}
	if c.keep {
		fmt.Fprintln(os.Stderr, "servers built in", bin)
	} else {
		defer os.RemoveAll(bin)
	}
	if err := buildServers(bin); err != nil {
		fatalf("%v", err)
	}
	self, err := os.Executable()
	if err != nil {
		fatalf("%v", err)
	}
	args := append([]string{"-c", strconv.Itoa(c.loadCPU), self, "-bin-dir", bin}, os.Args[1:]...)
	cmd := exec.Command("taskset", args...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		fatalf("taskset: %v (the benchmark pins processes with taskset from util-linux)", err)
	}
	return 0
}

// buildServers builds every server into dir: the mcpgen connector with
// the mcpgen command of this checkout (a copy of ./connector whose go.mod
// points at the checkout), the other two with go build.
func buildServers(dir string) error {
	here, err := moduleDir()
	if err != nil {
		return err
	}
	root := filepath.Join(here, "..", "..")
	start := time.Now()
	if err := run(here, "go", "build", "-o", filepath.Join(dir, "sdk"), "./sdkserver"); err != nil {
		return err
	}
	if err := run(here, "go", "build", "-o", filepath.Join(dir, "mcpgo"), "./mcpgoserver"); err != nil {
		return err
	}
	if err := run(here, "go", "build", "-o", filepath.Join(dir, "floor"), "./floorserver"); err != nil {
		return err
	}
	mcpgenCmd := filepath.Join(dir, "mcpgen-cmd")
	if err := run(root, "go", "build", "-o", mcpgenCmd, "./cmd/mcpgen"); err != nil {
		return err
	}
	conn := filepath.Join(dir, "connector")
	if err := os.MkdirAll(conn, 0o755); err != nil {
		return err
	}
	for _, f := range []string{"main.go", "findorders.go", "go.mod", "go.sum"} {
		b, err := os.ReadFile(filepath.Join(here, "connector", f))
		if err != nil {
			return err
		}
		if f == "go.mod" {
			b = []byte(strings.Replace(string(b), "=> ../../..", "=> "+root, 1))
		}
		if err := os.WriteFile(filepath.Join(conn, f), b, 0o644); err != nil {
			return err
		}
	}
	if err := run(conn, "go", "mod", "tidy"); err != nil {
		return err
	}
	if err := run(conn, mcpgenCmd, "build", ".", "-o", filepath.Join(dir, "mcpgen")); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "built the servers in %.1fs\n", time.Since(start).Seconds())
	return nil
}

// moduleDir finds bench/load from the working directory (bench/load itself
// or the repository root).
func moduleDir() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for _, d := range []string{wd, filepath.Join(wd, "bench", "load")} {
		if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && strings.HasPrefix(string(b), "module github.com/mcpgen/mcpgen/bench/load\n") {
			return d, nil
		}
	}
	return "", fmt.Errorf("run the benchmark from bench/load (cd bench/load && go run .)")
}

func run(dir, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s (in %s): %v\n%s", name, strings.Join(args, " "), dir, err, out)
	}
	return nil
}

func split(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench/load: "+format+"\n", args...)
	os.Exit(1)
}
