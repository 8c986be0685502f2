package connector

import (
	"context"
	"net/http"
	"time"

	"github.com/mcpgen/mcpgen/internal/cmdline"
	"github.com/mcpgen/mcpgen/internal/drain"
	"github.com/mcpgen/mcpgen/internal/httpedge"
	"github.com/mcpgen/mcpgen/internal/msgstream"
)

// streamOptions configure the HTTP+SSE and WebSocket transports
// (msgtransport.go).
type streamOptions struct {
	noSSE, noWebSocket      bool
	writeTimeout, keepAlive time.Duration
}

// streams returns the server's message transports, made on first use.
func (s *Server) streams() *msgstream.Transports {
	s.streamsOnce.Do(func() {
		o := s.opts.streams
		cfg := msgstream.Config{
			Logger: s.logger, MaxMessageBytes: s.opts.maxBodyBytes,
			WriteTimeout: o.writeTimeout, KeepAlive: o.keepAlive,
			OnClose: func(id string) { s.asks.cancelSession(id, errSessionClosed) },
			// A session on /sse or /ws takes a slot of --max-sessions and
			// --max-sessions-per-caller like one on /mcp (sessions.go).
			Admit: func(r *http.Request) (func(), int, string) {
				e, no := s.sessions.reserve(sessionCaller(r))
				if no != nil {
					return nil, no.status, no.msg
				}
				return func() { s.sessions.settle(e) }, 0, ""
			},
		}
		if s.sharesSSE() {
			cfg.Peers = ssePeers{s} // ssepeers.go
		}
		s.streamsT = msgstream.New(s.mcp, cfg)
	})
	return s.streamsT
}

// sharesSSE reports whether this server's HTTP+SSE sessions are shared
// with the other replicas of a shared store.
func (s *Server) sharesSSE() bool {
	return s.sharedStore() && !s.opts.stateless && !s.opts.streams.noSSE && s.opts.devFrontKey == ""
}

// SSEHandler returns the handler of the HTTP+SSE transport of 2024-11-05
// (mount it at /sse), behind the same Host, Origin and token checks as
// Handler.
func (s *Server) SSEHandler() http.Handler { return s.protectPath(s.streams().SSE(), httpedge.SSEPath) }

// WebSocketHandler returns the handler of the WebSocket transport (mount
// it at /ws), behind the same Host, Origin and token checks as Handler.
func (s *Server) WebSocketHandler() http.Handler {
	return s.protectPath(s.streams().WebSocket(), httpedge.WebSocketPath)
}

// protectPath is protect for the endpoint at path: with auth, its
// challenges name that endpoint's own resource metadata (streamauth.go).
func (s *Server) protectPath(h http.Handler, path string) http.Handler {
	if s.auth == nil || s.opts.devFrontKey != "" {
		return s.protect(h)
	}
	return s.protectWith(h, s.auth.ForPath(path))
}

// mountStreams adds the message transports that are on to mux and returns
// their paths; none behind mcpgen dev's front. A message POSTed to /sse
// passes gate like a POST to /mcp (refused once the drain has begun).
func (s *Server) mountStreams(mux *http.ServeMux, gate *drain.Gate) []string {
	if s.opts.devFrontKey != "" {
		return nil // mcpgen dev's front serves /sse and /ws itself
	}
	var paths []string
	if !s.opts.streams.noSSE && !s.opts.stateless {
		h := s.SSEHandler()
		mux.HandleFunc(httpedge.SSEPath, func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost {
				if !gate.Enter() {
					s.refuseDraining(w, r)
					return
				}
				defer gate.Leave()
			}
			h.ServeHTTP(w, r)
		})
		paths = append(paths, httpedge.SSEPath)
	}
	if !s.opts.streams.noWebSocket {
		mux.Handle(httpedge.WebSocketPath, s.WebSocketHandler())
		paths = append(paths, httpedge.WebSocketPath)
	}
	return paths
}

// drainStreams returns a channel closed once finished is and the requests
// of the open HTTP+SSE and WebSocket sessions are answered (or ctx is
// done).
func (s *Server) drainStreams(ctx context.Context, finished <-chan struct{}) <-chan struct{} {
	if s.streamsT == nil {
		return finished
	}
	done := make(chan struct{})
	go func() {
		<-finished
		s.streamsT.Wait(ctx)
		close(done)
	}()
	return done
}

// endStreams ends the open HTTP+SSE and WebSocket sessions and reports
// how many there were.
func (s *Server) endStreams() int {
	if s.streamsT == nil {
		return 0
	}
	return s.streamsT.CloseAll()
}

// streamFlags declares the flags that turn the message transports on and
// off.
func streamFlags(c *cmdline.Set) func() []Option {
	sse := c.Bool("sse", "MCPGEN_SSE", true,
		"also serve the HTTP+SSE transport of 2024-11-05 at /sse, for clients configured\nwith \"sse\" (--sse=false turns it off; off with --stateless)")
	ws := c.Bool("ws", "MCPGEN_WS", true,
		"also serve MCP over WebSocket at /ws (subprotocol mcp) (--ws=false turns it off)")
	return func() []Option { return []Option{WithSSE(*sse), WithWebSocket(*ws)} }
}
