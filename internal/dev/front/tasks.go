package front

import (
	"context"
	"net/http"
	"net/http/httputil"
	"net/url"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/mcpgen/mcpgen/internal/authgate"
	"github.com/mcpgen/mcpgen/internal/devlink"
	"github.com/mcpgen/mcpgen/internal/taskctx"
	"github.com/mcpgen/mcpgen/internal/wire"
)

// passTasks sends the connector, as they are, the MCP 2026-07-28 requests
// of tasks: a tools/call of a tool that runs as a task and tasks/get,
// tasks/update and tasks/cancel. The front forwards every other call over
// a 2025-11-25 session, where tasks do not exist; a task's records live in
// the connector, so these go where they are (a rebuild, which starts a new
// connector, forgets the tasks of the old one). Everything else goes to
// next.
func (f *Front) passTasks(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get("Mcp-Protocol-Version") < wire.StatelessVersion || !f.isTaskRequest(r.Header) {
			next.ServeHTTP(w, r)
			return
		}
		c, done, err := f.acquire()
		if err != nil {
			next.ServeHTTP(w, r) // the front answers that nothing runs yet
			return
		}
		defer done()
		f.forwardHTTP(w, r, c)
	})
}

// isTaskRequest reports whether a 2026-07-28 request is one of a task's.
func (f *Front) isTaskRequest(h http.Header) bool {
	switch h.Get("Mcp-Method") {
	case "tasks/get", "tasks/update", "tasks/cancel":
		return true
	case "tools/call":
		name := h.Get("Mcp-Name")
		f.mu.Lock()
		snap := f.snap
		f.mu.Unlock()
		if snap == nil {
			return false
		}
		for _, t := range snap.Tools {
			if t.Name == name {
				_, task := t.Meta[taskctx.MetaKey]
				return task
			}
		}
	}
	return false
}

// forwardHTTP sends r to the connector c with the caller's identity and
// address, as the front's own client sends forwarded calls, and copies the
// answer back as it comes (an event stream event by event).
func (f *Front) forwardHTTP(w http.ResponseWriter, r *http.Request, c *Conn) {
	target, err := url.Parse(c.proc.URL())
	if err != nil {
		http.Error(w, "mcpgen dev: the connector's address: "+err.Error(), http.StatusBadGateway)
		return
	}
	ctx := r.Context()
	if a := r.Header.Get(devlink.CallerAddrHeader); a != "" {
		ctx = context.WithValue(ctx, addrKey{}, a)
	}
	if id := authgate.FromTokenInfo(auth.TokenInfoFromContext(r.Context())); id != nil {
		ctx = context.WithValue(ctx, identityKey{}, id)
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out = pr.Out.WithContext(ctx)
			pr.Out.URL = target
			pr.Out.Host = target.Host
			// The front checked the token; the connector trusts the
			// identity the front's client adds (frontTransport).
			pr.Out.Header.Del("Authorization")
			pr.Out.Header.Del("Cookie")
		},
		Transport:     c.client.Transport,
		FlushInterval: -1,
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			http.Error(w, "mcpgen dev: the connector did not answer: "+err.Error(), http.StatusBadGateway)
		},
	}
	proxy.ServeHTTP(w, r)
}
