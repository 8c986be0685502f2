package connector

import (
	"net/http"
	"strings"
)

// The HTTP+SSE and WebSocket endpoints are protected resources of their
// own URL: a client that meets a 401 at /sse discovers the metadata named
// by its challenge and asks for a token for that resource, and the
// official TypeScript SDK refuses metadata whose resource is not a prefix
// of the URL it connects to (…/mcp is not one of …/sse). So /sse and /ws
// answer with challenges naming their own metadata (resource …/sse, …/ws),
// and the connector accepts tokens for any of its three resources.

// streamPaths are the paths of the message transports.
var streamPaths = []string{SSEPath, WebSocketPath}

// streamAudiences returns the resource identifiers of the /sse and /ws
// endpoints under public, accepted as audiences besides the /mcp one; none
// when the operator set the audience (--auth-audience).
func streamAudiences(audience, public string) []string {
	if audience != "" {
		return nil
	}
	var out []string
	for _, p := range streamPaths {
		out = append(out, strings.TrimSuffix(public, "/")+p)
	}
	return out
}

// ForPath returns the gate for another endpoint of the same connector
// (SSEPath, WebSocketPath): the same token checks, with challenges and
// metadata naming public URL + path as the resource. Its Mount serves that
// metadata only.
func (g *AuthGate) ForPath(path string) *AuthGate {
	cp := *g
	cp.sub = true
	cp.resource, cp.metadataURL = resourceURLs(g.public)
	cp.resource = strings.TrimSuffix(cp.resource, "/mcp") + path
	cp.metadataURL = strings.TrimSuffix(cp.metadataURL, "/mcp") + path
	cp.metadataPath = cp.metadataURL[strings.Index(cp.metadataURL, "/.well-known/"):]
	return &cp
}

// mountStreamAuth adds the metadata of the /sse and /ws resources.
func (s *Server) mountStreamAuth(mux *http.ServeMux) {
	for _, p := range streamPaths {
		s.auth.ForPath(p).Mount(mux)
	}
}
