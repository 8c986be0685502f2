package main

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// serverKinds names the servers, in the order of the tables; mcpgo is the
// baseline of the ratios.
var serverKinds = map[string]string{
	"mcpgen": "mcpgen (generated)",
	// The same binary with telemetry on: every call a span exported over
	// OTLP to a sink in the load generator, metrics for /metrics and OTLP;
	// then with one trace in ten sampled; then metrics for /metrics only.
	"mcpgen-otel":         "mcpgen, OTLP, every call traced",
	"mcpgen-otel-sampled": "mcpgen, OTLP, 10% of calls traced",
	"mcpgen-prom":         "mcpgen, Prometheus /metrics only",
	// The same binary with a fixed cost added to every call (-spin): how
	// much more CPU a call the harness measures for a server that does
	// that much more work, at its lower load.
	"mcpgen-spin": "mcpgen, each call spinning -spin",
	// The same binary with its state in a redis-server (--store).
	"mcpgen-redis": "mcpgen, --store redis://",
	// mcpgen built from another commit (-base-bin), to compare a change
	// with what it changes, run for run.
	"mcpgen-base":       "mcpgen, the -base-bin build",
	"mcpgen-redis-base": "mcpgen, the -base-bin build, --store redis://",
	"sdk":               "go-sdk by hand (mcp.AddTool)",
	"mcpgo":             "mark3labs/mcp-go",
	"floor":             "floor (net/http + encoding/json)",
}

// baseline is the first reference of the ratios; floor the second.
const (
	baseline = "mcpgo"
	floor    = "floor"
)

// clockTick is the unit of utime and stime in /proc/PID/stat (USER_HZ).
const clockTick = 10 * time.Millisecond

type key struct {
	server, era string
	n           int
}

type sample struct {
	calls    int
	callsPS  float64
	behind   bool // with -rate: fewer calls answered than were due
	p50, p99 time.Duration
	cpuPer   time.Duration // server CPU per call
	busy     float64       // server CPU time / wall time (1 = its core saturated)
	loadBusy float64       // the same for the load generator
	rssKB    int
	storeCPU time.Duration // redis-server CPU per call (mcpgen-redis)
	storeCmd string        // the commands Redis ran per call (mcpgen-redis)
}

// server is one running server process.
type server struct {
	cmd  *exec.Cmd
	url  string
	done chan struct{}
	log  *os.File // the server's stderr
}

// modes remembers, per server, whether the stateless era needed
// --stateless (the server does not answer 2026-07-28 on its default
// endpoint).
var modes = map[string]bool{}

func measure(c config) error {
	res := map[key][]sample{}
	failed := map[key]string{} // configurations a server does not serve
	fmt.Fprintf(os.Stderr, "servers on CPU %d, load generator on CPU %d; %d reps of %v (after %v warm-up) per configuration\n",
		c.serverCPU, c.loadCPU, c.reps, c.duration, c.warmup)
	if slices.Contains(c.servers, "mcpgen-redis") || slices.Contains(c.servers, "mcpgen-redis-base") {
		cpu := c.redisCPU
		if cpu < 0 {
			cpu = c.loadCPU
		}
		r, err := startRedis(cpu)
		if err != nil {
			return err
		}
		benchRedis = r
		defer r.stop()
	}
	for rep := range c.reps {
		for _, era := range c.eras {
			for _, n := range c.sessions {
				for i := range c.servers {
					name := c.servers[(i+rep)%len(c.servers)] // alternate who goes first
					k := key{name, era, n}
					if _, ok := failed[k]; ok {
						continue
					}
					s, err := runOnce(c, name, era, n, rep)
					if err != nil {
						// A server that does not serve a mode (the go-sdk's
						// stateful handler refuses requests without a
						// session) is reported, not measured.
						failed[k] = strings.Join(strings.Fields(err.Error()), " ")
						fmt.Fprintf(os.Stderr, "rep %d %-9s %2d clients %-6s not served: %v\n", rep+1, era, n, name, err)
						continue
					}
					fmt.Fprintf(os.Stderr, "rep %d %-9s %2d clients %-6s %6.0f calls/s  p50 %8s  p99 %8s  cpu/call %6s  rss %5.1f MB  server busy %3.0f%%  load generator busy %3.0f%%\n",
						rep+1, era, n, name, s.callsPS, us(s.p50), us(s.p99), us(s.cpuPer), float64(s.rssKB)/1024, 100*s.busy, 100*s.loadBusy)
					if s.behind {
						fmt.Fprintf(os.Stderr, "      behind: %.0f calls/s answered of the %.0f offered\n", s.callsPS, c.rate)
					}
					if s.storeCPU > 0 {
						fmt.Fprintf(os.Stderr, "      redis-server cpu/call %s  commands/call: %s\n", us(s.storeCPU), s.storeCmd)
					}
					res[k] = append(res[k], s)
				}
			}
		}
	}
	printTables(c, res, failed)
	if c.idle > 0 && slices.Contains(c.eras, eraSessions) {
		fmt.Println()
		fmt.Println("Memory (sessions era, one server process each):")
		fmt.Println()
		fmt.Println("| server | RSS at start | per idle session | per call (growth over " + strconv.Itoa(c.perCall) + " calls in one session) |")
		fmt.Println("|---|---:|---:|---:|")
		for _, name := range c.servers {
			m, err := memory(c, name)
			if err != nil {
				return fmt.Errorf("memory %s: %w", name, err)
			}
			fmt.Printf("| %s | %.1f MB | %.1f KB | %.1f B |\n", serverKinds[name], float64(m.startKB)/1024, m.perSessionKB, m.perCallB)
			if name == "mcpgen-redis" {
				fmt.Printf("| (its redis-server, used_memory) | | %.1f KB | |\n", m.storeKB)
			}
		}
	}
	return nil
}

func runOnce(c config, name, era string, n, rep int) (sample, error) {
	var profile string
	if c.cpuprofile != "" {
		profile = filepath.Join(c.cpuprofile, fmt.Sprintf("%s-%s-%d-%d.pprof", name, era, n, rep+1))
	}
	s, err := startFor(c, name, era, profile)
	if err != nil {
		return sample{}, err
	}
	defer s.stop()
	hc := newHTTPClient(n)
	defer hc.CloseIdleConnections()
	clients := make([]*client, n)
	for i := range clients {
		clients[i] = newClient(hc, s.url, era)
		clients[i].method = c.method
		if err := clients[i].open(); err != nil {
			return sample{}, err
		}
		defer clients[i].close()
	}
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		lat      []time.Duration
		firstErr error
	)
	start := time.Now()
	measureFrom := start.Add(c.warmup)
	until := measureFrom.Add(c.duration)
	var cpu0, self0, store0 time.Duration
	var cmds0 map[string]int64
	var cpuOnce sync.Once
	readCPU0 := func() {
		cpu0, _ = procCPU(s.cmd.Process.Pid)
		self0, _ = procCPU(os.Getpid())
		if strings.HasPrefix(name, "mcpgen-redis") {
			store0 = benchRedis.cpu()
			cmds0, _ = benchRedis.commands()
		}
	}
	go func() {
		time.Sleep(time.Until(measureFrom))
		cpuOnce.Do(readCPU0)
	}()
	for _, cl := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine := make([]time.Duration, 0, 1<<14)
			// With -rate, call i is due at start+i*every (each client
			// starting at a different offset), and its latency counts
			// from then: a server that falls behind is not let off.
			var every time.Duration
			if c.rate > 0 {
				every = time.Duration(float64(time.Second) * float64(n) / c.rate)
			}
			due := start.Add(time.Duration(rand.Int64N(int64(max(every, 1)))))
			for i := 0; ; i++ {
				if every > 0 {
					if d := time.Until(due); d > 0 {
						time.Sleep(d)
					}
				}
				// sent decides the window a call counts in; t0 is what
				// its latency counts from.
				sent := time.Now()
				t0 := sent
				if every > 0 {
					t0 = due
					due = due.Add(every)
				}
				if sent.After(until) {
					break
				}
				res, err := cl.call()
				if err == nil {
					if i == 0 {
						err = checkFull(c.method, res)
					} else {
						err = checkQuick(c.method, res)
					}
				}
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					return
				}
				if !sent.Before(measureFrom) {
					mine = append(mine, time.Since(t0))
				}
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(measureFrom)
	cpuOnce.Do(readCPU0)
	cpu1, err := procCPU(s.cmd.Process.Pid)
	if err != nil {
		return sample{}, err
	}
	self1, _ := procCPU(os.Getpid())
	var store1 time.Duration
	var storeCmd string
	if strings.HasPrefix(name, "mcpgen-redis") {
		store1 = benchRedis.cpu()
		cmds1, _ := benchRedis.commands()
		storeCmd = perCall(cmds0, cmds1, len(lat))
	}
	rss, _ := procRSS(s.cmd.Process.Pid)
	if firstErr != nil {
		return sample{}, firstErr
	}
	if len(lat) == 0 {
		return sample{}, fmt.Errorf("no call completed in the measured window")
	}
	slices.Sort(lat)
	callsPS := float64(len(lat)) / elapsed.Seconds()
	return sample{
		behind:   c.rate > 0 && callsPS < 0.95*c.rate,
		calls:    len(lat),
		callsPS:  callsPS,
		p50:      lat[len(lat)/2],
		p99:      lat[min(len(lat)-1, len(lat)*99/100)],
		cpuPer:   (cpu1 - cpu0) / time.Duration(len(lat)),
		busy:     float64(cpu1-cpu0) / float64(elapsed),
		loadBusy: float64(self1-self0) / float64(elapsed),
		rssKB:    rss,
		storeCPU: (store1 - store0) / time.Duration(len(lat)),
		storeCmd: storeCmd,
	}, nil
}

// startFor starts server name for era. In the stateless era a server is
// first tried on its default endpoint; one that does not answer a
// 2026-07-28 call there is run with --stateless from then on.
func startFor(c config, name, era, profile string) (*server, error) {
	var args []string
	if era == eraSessionlessStateless {
		args = []string{"--stateless"}
	}
	if era == eraStateless {
		need, known := modes[name]
		if !known {
			s, err := start(c, name, nil, "")
			if err != nil {
				return nil, err
			}
			cl := newClient(newHTTPClient(1), s.url, eraStateless)
			res, err := cl.call()
			if err == nil {
				err = checkCall(res)
			}
			s.stop()
			need = err != nil
			modes[name] = need
			if need {
				fmt.Fprintf(os.Stderr, "%s does not answer 2026-07-28 on its default endpoint (%v); the stateless era runs it with --stateless\n", name, err)
			}
		}
		if need {
			args = []string{"--stateless"}
		}
	}
	return start(c, name, args, profile)
}

// start starts server name on a free port. A port found free can be
// taken by another process (a client's connection) before the server
// binds it: then the server is started again on another, a few times.
func start(c config, name string, args []string, profile string) (*server, error) {
	for try := 1; ; try++ {
		s, err := startOn(c, name, args, profile)
		if err == nil || try == 3 || !errors.Is(err, errPortTaken) {
			return s, err
		}
	}
}

// errPortTaken is startOn's error when the server exited because its
// port was taken.
var errPortTaken = errors.New("port taken")

func startOn(c config, name string, args []string, profile string) (*server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	bin := name
	var env []string
	switch name {
	case "mcpgen-otel", "mcpgen-otel-sampled":
		sink, err := otlpSink()
		if err != nil {
			return nil, err
		}
		bin = "mcpgen"
		args = append(args, "--metrics-addr", "127.0.0.1:0")
		env = []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + sink, "OTEL_SERVICE_NAME=bench"}
		if name == "mcpgen-otel-sampled" {
			env = append(env, "OTEL_TRACES_SAMPLER=parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG=0.1")
		}
	case "mcpgen-spin":
		bin = "mcpgen"
		env = []string{"BENCH_SPIN=" + c.spin.String()}
	case "mcpgen-prom":
		bin = "mcpgen"
		args = append(args, "--metrics-addr", "127.0.0.1:0")
	case "mcpgen-redis", "mcpgen-redis-base":
		bin = "mcpgen"
		args = append(args, "--store", benchRedis.url())
	}
	path := filepath.Join(c.binDir, bin)
	if name == "mcpgen-base" || name == "mcpgen-redis-base" {
		path = c.baseBin
	}
	argv := append([]string{"-c", strconv.Itoa(c.serverCPU), path, "--addr", addr}, args...)
	cmd := exec.Command("taskset", argv...)
	// Every client of the harness has one address: the memory phase's
	// idle sessions are many sessions of one caller, which mcpgen bounds
	// by default (the other servers ignore the variable).
	cmd.Env = append(append(os.Environ(), "MCPGEN_MAX_SESSIONS_PER_CALLER=0"), env...)
	if profile != "" {
		cmd.Env = append(cmd.Env, "BENCH_CPUPROFILE="+profile)
	}
	// The server's log (mcpgen writes a line per request) goes to a file,
	// not through a pipe to this process: reading it would take the load
	// generator's CPU, and so calls from the servers that log.
	log, err := os.CreateTemp("", "bench-load-"+name+"-*.log")
	if err != nil {
		return nil, err
	}
	cmd.Stderr = log
	if err := cmd.Start(); err != nil {
		log.Close()
		os.Remove(log.Name())
		return nil, err
	}
	s := &server{cmd: cmd, url: "http://" + addr + "/mcp", done: make(chan struct{}), log: log}
	go func() { cmd.Wait(); close(s.done) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			conn.Close()
			return s, nil
		}
		select {
		case <-s.done:
			tail := s.logTail()
			s.removeLog()
			if strings.Contains(tail, "address already in use") {
				return nil, fmt.Errorf("%s exited: %s: %w", name, tail, errPortTaken)
			}
			return nil, fmt.Errorf("%s exited: %s", name, tail)
		default:
		}
		if time.Now().After(deadline) {
			s.stop()
			return nil, fmt.Errorf("%s did not listen on %s within 10s", name, addr)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// stop ends the server with SIGTERM (so that a CPU profile is written),
// killing it if it has not exited after 5 seconds.
func (s *server) stop() {
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
	s.removeLog()
}

// logTail is the end of the server's log, for an error.
func (s *server) logTail() string {
	b, _ := os.ReadFile(s.log.Name())
	const max = 4 << 10
	if len(b) > max {
		b = b[len(b)-max:]
	}
	return string(b)
}

func (s *server) removeLog() {
	s.log.Close()
	os.Remove(s.log.Name())
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// procCPU is the CPU time (user + system) process pid has used.
func procCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// Fields after the command name (which is in parentheses and may hold
	// spaces): state is field 3, utime 14, stime 15.
	i := bytes.LastIndexByte(b, ')')
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: too few fields", pid)
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * clockTick, nil
}

// procRSS is the resident set size of process pid in KiB.
func procRSS(pid int) (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			return strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
		}
	}
	return 0, fmt.Errorf("/proc/%d/status: no VmRSS", pid)
}

type mem struct {
	startKB      int
	perSessionKB float64
	perCallB     float64
	storeKB      float64 // Redis's used_memory per idle session (mcpgen-redis)
}

// memory measures one fresh server: RSS after a short warm-up, its growth
// per idle session over c.idle sessions, and its growth per call over
// c.perCall calls in one session (after a first batch of the same size,
// so that pools and caches are filled).
func memory(c config, name string) (mem, error) {
	var m mem
	s, err := start(c, name, nil, "")
	if err != nil {
		return m, err
	}
	defer s.stop()
	pid := s.cmd.Process.Pid
	hc := newHTTPClient(4)
	defer hc.CloseIdleConnections()
	one := newClient(hc, s.url, eraSessions)
	if err := one.open(); err != nil {
		return m, err
	}
	defer one.close()
	calls := func(n int) error {
		for range n {
			res, err := one.call()
			if err == nil {
				err = checkQuick(methodCall, res)
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
	if err := calls(200); err != nil {
		return m, err
	}
	time.Sleep(200 * time.Millisecond)
	r0, _ := procRSS(pid)
	m.startKB = r0
	var used0 int64
	if name == "mcpgen-redis" {
		used0, _ = benchRedis.usedMemory()
	}
	idle := make([]*client, c.idle)
	for i := range idle {
		idle[i] = newClient(hc, s.url, eraSessions)
		if err := idle[i].open(); err != nil {
			return m, err
		}
	}
	time.Sleep(500 * time.Millisecond)
	r1, _ := procRSS(pid)
	m.perSessionKB = float64(r1-r0) / float64(c.idle)
	if name == "mcpgen-redis" {
		used1, _ := benchRedis.usedMemory()
		m.storeKB = float64(used1-used0) / 1024 / float64(c.idle)
	}
	for _, cl := range idle {
		cl.close()
	}
	if err := calls(c.perCall); err != nil {
		return m, err
	}
	time.Sleep(200 * time.Millisecond)
	r2, _ := procRSS(pid)
	if err := calls(c.perCall); err != nil {
		return m, err
	}
	time.Sleep(200 * time.Millisecond)
	r3, _ := procRSS(pid)
	m.perCallB = float64(r3-r2) * 1024 / float64(c.perCall)
	return m, nil
}

func printTables(c config, res map[key][]sample, failed map[key]string) {
	fmt.Println()
	what := "tools/call of find_orders"
	if c.method != methodCall {
		what = c.method
	}
	fmt.Printf("%s over HTTP, server on 1 CPU; medians of %d runs of %v (range of calls/s in brackets)\n", what, c.reps, c.duration)
	if c.rate > 0 {
		fmt.Printf("offered: %.0f calls/s in total, paced (open loop); latency from when each call was due; \"behind\": fewer than 95%% of the calls due were answered\n", c.rate)
	}
	fmt.Println()
	fmt.Println("| mode | clients | server | calls/s | p50 | p99 | server CPU/call | server busy | RSS | calls/s vs mcp-go | CPU/call vs mcp-go | calls/s vs floor | CPU/call vs floor |")
	fmt.Println("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, era := range c.eras {
		for _, n := range c.sessions {
			base, haveBase := medians(res[key{baseline, era, n}])
			fl, haveFloor := medians(res[key{floor, era, n}])
			for _, name := range c.servers {
				ss := res[key{name, era, n}]
				m, ok := medians(ss)
				if !ok {
					if why, no := failed[key{name, era, n}]; no {
						if len(why) > 80 {
							why = why[:80] + "…"
						}
						fmt.Printf("| %s | %d | %s | not served: %s | | | | | | | | | |\n", modeLabel(era, name), n, serverKinds[name], strings.ReplaceAll(why, "|", "/"))
					}
					continue
				}
				lo, hi := ss[0].callsPS, ss[0].callsPS
				for _, s := range ss {
					lo, hi = min(lo, s.callsPS), max(hi, s.callsPS)
				}
				rc, rp := ratios(m, base, haveBase)
				fc, fp := ratios(m, fl, haveFloor)
				behind := ""
				if m.behind {
					behind = " behind"
				}
				fmt.Printf("| %s | %d | %s | %.0f (%.0f–%.0f)%s | %s | %s | %s | %.0f%% | %.1f MB | %s | %s | %s | %s |\n",
					modeLabel(era, name), n, serverKinds[name], m.callsPS, lo, hi, behind, us(m.p50), us(m.p99), us(m.cpuPer), 100*m.busy, float64(m.rssKB)/1024, rc, rp, fc, fp)
			}
		}
	}
	printPaired(c, res)
	if !slices.Contains(c.servers, "mcpgen-redis") {
		return
	}
	// The store's own work, which the connector's CPU per call leaves out.
	fmt.Println()
	fmt.Println("| mode | clients | redis-server CPU/call (mcpgen-redis) | Redis commands/call (those scripts run included) |")
	fmt.Println("|---|---:|---:|---|")
	for _, era := range c.eras {
		for _, n := range c.sessions {
			if m, ok := medians(res[key{"mcpgen-redis", era, n}]); ok {
				fmt.Printf("| %s | %d | %s | %s |\n", modeLabel(era, "mcpgen-redis"), n, us(m.storeCPU), m.storeCmd)
			}
		}
	}
}

// printPaired compares each variant of mcpgen (with a store, with
// telemetry) to plain mcpgen, and a -base-bin build to the same server of
// this build, run in the same repetition, one right after the other: on a shared machine whose speed drifts between repetitions,
// the median of these per-repetition ratios says more than the ratio of
// the medians.
func printPaired(c config, res map[key][]sample) {
	var rows []string
	for _, era := range c.eras {
		for _, n := range c.sessions {
			for _, name := range c.servers {
				if name == "mcpgen" || !strings.HasPrefix(name, "mcpgen") {
					continue
				}
				// A -base-bin build against the same server of this
				// build; any other variant against plain mcpgen.
				ref := "mcpgen"
				if strings.HasSuffix(name, "-base") {
					ref = strings.TrimSuffix(name, "-base")
				}
				base := res[key{ref, era, n}]
				ss := res[key{name, era, n}]
				if len(ss) != len(base) || len(ss) == 0 {
					continue // a failed run breaks the pairing
				}
				rs, ds := make([]float64, len(ss)), make([]float64, len(ss))
				for i := range ss {
					rs[i] = float64(ss[i].cpuPer) / float64(base[i].cpuPer)
					ds[i] = float64(ss[i].cpuPer - base[i].cpuPer)
				}
				slices.Sort(rs)
				slices.Sort(ds)
				pct := func(r float64) string { return fmt.Sprintf("%+.0f %%", 100*(r-1)) }
				rows = append(rows, fmt.Sprintf("| %s | %d | %s | %s | %s | %s to %s | %+.1f µs |", modeLabel(era, name), n, serverKinds[name], serverKinds[ref],
					pct(medianOf(rs)), pct(rs[0]), pct(rs[len(rs)-1]), medianOf(ds)/1e3))
			}
		}
	}
	if len(rows) == 0 {
		return
	}
	fmt.Println()
	fmt.Println("Server CPU per call against another server run in the same repetition (median and range of the per-repetition ratios):")
	fmt.Println()
	fmt.Println("| mode | clients | server | against | CPU/call | range | difference |")
	fmt.Println("|---|---:|---|---|---:|---|---:|")
	for _, r := range rows {
		fmt.Println(r)
	}
}

// medianOf is the median of sorted xs.
func medianOf(xs []float64) float64 {
	if len(xs)%2 == 1 {
		return xs[len(xs)/2]
	}
	return (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
}

// modeLabel names a mode in the tables.
func modeLabel(era, name string) string {
	switch era {
	case eraSessions:
		return "2025-11-25 sessions"
	case eraSessionless:
		return "2025-11-25 without a session"
	case eraSessionlessStateless:
		return "2025-11-25 without a session, --stateless"
	}
	if modes[name] {
		return "2026-07-28, --stateless"
	}
	return "2026-07-28"
}

// ratios are m's calls/s and CPU per call against ref's.
func ratios(m, ref sample, have bool) (calls, cpu string) {
	if !have || ref.callsPS <= 0 || ref.cpuPer <= 0 {
		return "—", "—"
	}
	return fmt.Sprintf("%.2f×", m.callsPS/ref.callsPS), fmt.Sprintf("%.2f×", float64(m.cpuPer)/float64(ref.cpuPer))
}

// medians is the per-field median of samples.
func medians(ss []sample) (sample, bool) {
	if len(ss) == 0 {
		return sample{}, false
	}
	med := func(f func(sample) float64) float64 {
		v := make([]float64, len(ss))
		for i, s := range ss {
			v[i] = f(s)
		}
		slices.Sort(v)
		if len(v)%2 == 1 {
			return v[len(v)/2]
		}
		return (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	behind := false
	for _, s := range ss {
		behind = behind || s.behind
	}
	return sample{
		behind:   behind,
		callsPS:  med(func(s sample) float64 { return s.callsPS }),
		p50:      time.Duration(med(func(s sample) float64 { return float64(s.p50) })),
		p99:      time.Duration(med(func(s sample) float64 { return float64(s.p99) })),
		cpuPer:   time.Duration(med(func(s sample) float64 { return float64(s.cpuPer) })),
		busy:     med(func(s sample) float64 { return s.busy }),
		rssKB:    int(med(func(s sample) float64 { return float64(s.rssKB) })),
		storeCPU: time.Duration(med(func(s sample) float64 { return float64(s.storeCPU) })),
		storeCmd: ss[len(ss)-1].storeCmd, // the same in every run but for the calls in flight
	}, true
}

func us(d time.Duration) string {
	return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond))
}
