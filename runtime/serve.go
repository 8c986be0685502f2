package runtime

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// streamRetry is the reconnection delay a draining server gives the open
// event streams it ends (the SSE retry field): by then a replacement
// process or another replica is taking requests.
const streamRetry = time.Second

// serveHTTP serves s on ln until ctx is done, then drains: /healthz turns
// 503 (for requests on connections still open), the listener closes,
// requests in flight (tool calls ...) get up to drain to finish, and then
// open GET event streams are told to reconnect (an SSE retry field) and
// ended, so their clients resume with the replacement process. Streams stay
// open while calls finish because a client that cannot reconnect its
// stream may give up the whole session, calls in flight included. It
// returns the process exit code: 0 after a drain, 1 when serving failed.
func (s *Server) serveHTTP(ctx context.Context, ln net.Listener, stderr io.Writer, drain time.Duration, jsonLog bool) int {
	var draining atomic.Bool
	var streams streamSet
	var inflight sync.WaitGroup
	h := s.Handler()
	mux := http.NewServeMux()
	// The health check answers whatever the Host: platforms probe by IP
	// address, and it tells nothing but "serving".
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if draining.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, "draining\n")
			return
		}
		io.WriteString(w, "ok\n")
	})
	s.MountAuth(mux)
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Header.Get("Mcp-Method") != "subscriptions/listen" {
			inflight.Add(1)
			defer inflight.Done()
			h.ServeHTTP(w, r)
			return
		}
		// A GET stream (or a 2026-07-28 subscriptions/listen) stays open
		// until the client leaves, so a draining server refuses new ones
		// and ends the open ones.
		if draining.Load() {
			w.Header().Set("Retry-After", "1")
			http.Error(w, "Service Unavailable: shutting down; retry", http.StatusServiceUnavailable)
			return
		}
		sw, sr, done := streams.track(w, r)
		defer done()
		defer s.tel.StreamOpened(r.Context())() // observe.go
		h.ServeHTTP(sw, sr)
	})
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		// A request body must arrive within the read timeout, and an idle
		// keep-alive connection is closed after the idle timeout (WithHTTPTimeouts).
		// There is no write timeout: event streams stay open as long as
		// their clients keep them.
		ReadTimeout: s.opts.readTimeout,
		IdleTimeout: s.opts.idleTimeout,
		ErrorLog:    slog.NewLogLogger(s.logger.Handler(), slog.LevelWarn),
	}
	mode := ""
	if s.opts.stateless {
		mode = " (stateless)"
	}
	serving := fmt.Sprintf("%s serving MCP%s at http://%s/mcp", s.mcpName(), mode, ln.Addr())
	if jsonLog {
		// With --log-format json every line on stderr is one JSON object,
		// this one too; like the text line it is written at any --log-level.
		r := slog.NewRecord(time.Now(), slog.LevelInfo, serving, 0)
		r.AddAttrs(slog.String("addr", ln.Addr().String()))
		s.logger.Handler().Handle(ctx, r)
	} else {
		fmt.Fprintln(stderr, serving)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		s.logger.Error("http", "err", err)
		return 1
	case <-ctx.Done():
	}
	start := time.Now()
	draining.Store(true)
	// Questions to clients are not waited for: their calls end at once.
	s.asks.closeAll(errShuttingDown)
	ln.Close()
	srv.SetKeepAlivesEnabled(false) // also closes idle connections
	s.logger.Info("draining", "drain", drain)
	deadline := time.NewTimer(drain)
	defer deadline.Stop()
	finished := make(chan struct{})
	go func() { inflight.Wait(); close(finished) }()
	cut := false
	select {
	case <-finished:
	case <-deadline.C:
		s.logger.Warn("drain: requests still running after --drain; closing them", "drain", drain)
		cut = true
	}
	n := streams.endAll(streamRetry)
	if cut {
		// The retry fields went out in endAll; nothing is left to wait for.
		srv.Close()
	} else {
		// The ended streams' handlers return at once; give them a moment
		// to finish their responses before every connection is closed.
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil {
			srv.Close()
		}
	}
	s.logger.Info("stopped", "after", time.Since(start).Round(time.Millisecond), "streams_ended", n)
	return 0
}

// streamSet holds the open GET event streams so a draining server can end
// them.
type streamSet struct {
	mu     sync.Mutex
	open   map[*streamWriter]context.CancelFunc
	closed bool
}

// track wraps a GET request's writer and context; done forgets it.
func (ss *streamSet) track(w http.ResponseWriter, r *http.Request) (*streamWriter, *http.Request, func()) {
	ctx, cancel := context.WithCancel(r.Context())
	sw := &streamWriter{w: w}
	ss.mu.Lock()
	if ss.open == nil {
		ss.open = map[*streamWriter]context.CancelFunc{}
	}
	if ss.closed {
		cancel()
	} else {
		ss.open[sw] = cancel
	}
	ss.mu.Unlock()
	return sw, r.WithContext(ctx), func() {
		ss.mu.Lock()
		delete(ss.open, sw)
		ss.mu.Unlock()
		cancel()
	}
}

// endAll writes an SSE retry field to every open stream, then ends it,
// and reports how many there were.
func (ss *streamSet) endAll(retry time.Duration) int {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.closed = true
	for sw, cancel := range ss.open {
		sw.retry(retry)
		cancel()
	}
	return len(ss.open)
}

// streamWriter serializes the SDK's writes to an event stream with the
// retry field a draining server adds, and drops writes after it.
type streamWriter struct {
	mu      sync.Mutex
	w       http.ResponseWriter
	started bool // the header went out
	ended   bool
}

func (sw *streamWriter) Header() http.Header { return sw.w.Header() }

func (sw *streamWriter) WriteHeader(code int) {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if !sw.ended && !sw.started {
		sw.started = true
		sw.w.WriteHeader(code)
	}
}

func (sw *streamWriter) Write(p []byte) (int, error) {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if sw.ended {
		return 0, http.ErrHandlerTimeout
	}
	sw.started = true
	return sw.w.Write(p)
}

func (sw *streamWriter) Flush() {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if !sw.ended {
		http.NewResponseController(sw.w).Flush()
	}
}

func (sw *streamWriter) retry(d time.Duration) {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if sw.ended {
		return
	}
	sw.ended = true
	if sw.started && strings.HasPrefix(sw.w.Header().Get("Content-Type"), "text/event-stream") {
		fmt.Fprintf(sw.w, "retry: %d\n\n", d.Milliseconds())
		http.NewResponseController(sw.w).Flush()
	}
}

// probeHealth asks the server listening on addr for GET /healthz and
// returns 0 when it answers 200, 1 otherwise. An unspecified host (0.0.0.0,
// ::) is reached on loopback.
func probeHealth(ctx context.Context, addr string, stderr io.Writer) int {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		fmt.Fprintf(stderr, "healthcheck: invalid address %q: %v\n", addr, err)
		return 1
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	url := "http://" + net.JoinHostPort(host, port) + "/healthz"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		fmt.Fprintf(stderr, "healthcheck: %v\n", err)
		return 1
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintf(stderr, "healthcheck: %v\n", err)
		return 1
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintf(stderr, "healthcheck: %s answered %s\n", url, resp.Status)
		return 1
	}
	return 0
}
