package connector

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/internal/drain"
	"github.com/mcpgen/mcpgen/internal/msgstream"
)

// serveHTTP serves s on ln until ctx is done, then drains: /healthz turns
// 503 (for requests on connections still open), the listener closes,
// requests in flight (tool calls ...) get up to drainFor to finish, and then
// open GET event streams are told to reconnect (an SSE retry field) and
// ended, so their clients resume with the replacement process. Streams stay
// open while calls finish because a client that cannot reconnect its
// stream may give up the whole session, calls in flight included. It
// returns the process exit code: 0 after a drain, 1 when serving failed.
func (s *Server) serveHTTP(ctx context.Context, ln net.Listener, stderr io.Writer, drainFor time.Duration, jsonLog bool) int {
	var gate drain.Gate
	var streams drain.Streams
	h := s.Handler()
	relayCtx, stopRelay := context.WithCancel(context.WithoutCancel(ctx))
	defer stopRelay()
	go s.runRelay(relayCtx) // notify.go
	mux := http.NewServeMux()
	// The health check answers whatever the Host: platforms probe by IP
	// address, and it tells nothing but "serving".
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if gate.Draining() {
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, "draining\n")
			return
		}
		// A store that is down is reported, not a reason to be taken out
		// of rotation or restarted: what needs no store keeps working,
		// and the store reconnects by itself.
		if err := s.storeHealth(); err != nil {
			fmt.Fprintf(w, "ok, degraded: %v\n", err)
			return
		}
		io.WriteString(w, "ok\n")
	})
	s.MountAuth(mux)
	// The server card is public metadata, readable from any origin and
	// under any Host, like the health check.
	mux.Handle(cardPath, s.CardHandler())
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Header.Get("Mcp-Method") != "subscriptions/listen" {
			// A request that comes in once the drain has begun is
			// refused before it runs, with an answer that says to retry:
			// a call that ran must have its answer reach the client, and
			// a connection the server is closing may not carry it.
			if !gate.Enter() {
				s.refuseDraining(w, r)
				return
			}
			defer gate.Leave()
			h.ServeHTTP(w, r)
			return
		}
		// A GET stream (or a 2026-07-28 subscriptions/listen) stays open
		// until the client leaves, so a draining server refuses new ones
		// and ends the open ones.
		if gate.Draining() {
			s.refuseDraining(w, r)
			return
		}
		sw, sr, done := streams.Track(w, r)
		defer done()
		defer s.tel.StreamOpened(r.Context())() // observe.go
		h.ServeHTTP(sw, sr)
	})
	also := s.mountStreams(mux, &gate) // streamserve.go: /sse, /ws
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
	if len(also) > 0 {
		s.logger.Info("also serving", "paths", strings.Join(also, " "))
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
	// From here on requests are refused before they run; those already
	// running are waited for. The gate closes before any connection does,
	// so a request read from a connection the server closes under it
	// (golang/go#65802) is refused, never run without its answer.
	finished := gate.Close()
	// Questions to clients are not waited for: their calls end at once.
	s.asks.closeAll(errShuttingDown)
	ln.Close()
	// Keep-alive connections stay open while the drain lasts: a request
	// already on its way over one gets the refusal above, which closes
	// the connection, rather than an EOF the client could not tell from a
	// lost answer. Shutdown closes the idle ones at the end.
	s.logger.Info("draining", "drain", drainFor)
	deadline := time.NewTimer(drainFor)
	defer deadline.Stop()
	dctx, dcancel := context.WithTimeout(context.Background(), drainFor)
	defer dcancel()
	finished = s.drainStreams(dctx, finished) // streamserve.go: then the calls on /sse and /ws
	cut := false
	select {
	case <-finished:
	case <-deadline.C:
		s.logger.Warn("drain: requests still running after --drain; closing them", "drain", drainFor)
		cut = true
	}
	n := streams.EndAll(msgstream.Retry) + s.endStreams()
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

// refuseDraining answers a request that came in during the drain: 503,
// Retry-After, Connection: close (the client reconnects, reaching the
// replacement process or another replica) and a JSON-RPC error naming the
// request when its body can be read. Nothing ran: retrying is safe.
func (s *Server) refuseDraining(w http.ResponseWriter, r *http.Request) {
	var body []byte
	if r.Method == http.MethodPost && r.Body != nil {
		body, _ = io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.maxBodyBytes))
	}
	w.Header().Set("Connection", "close")
	retryLater(w, http.StatusServiceUnavailable, int(msgstream.Retry/time.Second), body,
		"Service Unavailable: the server is shutting down; the request was not run; retry")
}
