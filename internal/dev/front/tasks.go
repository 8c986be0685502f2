package front

import (
	"bytes"
	"context"
	"io"
	"net/http"
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
// answer back as it comes (an event stream is flushed event by event).
func (f *Front) forwardHTTP(w http.ResponseWriter, r *http.Request, c *Conn) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		http.Error(w, "failed to read body: "+err.Error(), http.StatusRequestEntityTooLarge)
		return
	}
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
	out, err := http.NewRequestWithContext(ctx, http.MethodPost, target.String(), bytes.NewReader(body))
	if err != nil {
		http.Error(w, "mcpgen dev: "+err.Error(), http.StatusBadGateway)
		return
	}
	for k, vs := range r.Header {
		switch http.CanonicalHeaderKey(k) {
		case "Authorization", "Cookie", "Host", "Content-Length", "Connection":
			// The front checked the token; the connector trusts the
			// identity the front's client adds.
		default:
			out.Header[k] = vs
		}
	}
	resp, err := c.client.Do(out)
	if err != nil {
		http.Error(w, "mcpgen dev: the connector did not answer: "+err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	w.WriteHeader(resp.StatusCode)
	rc := http.NewResponseController(w)
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return
			}
			rc.Flush()
		}
		if err != nil {
			return
		}
	}
}
