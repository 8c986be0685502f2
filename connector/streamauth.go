package connector

import (
	"net/http"

	"github.com/mcpgen/mcpgen/internal/authgate"
)

// mountStreamAuth adds the metadata of the /sse and /ws resources.
func (s *Server) mountStreamAuth(mux *http.ServeMux) {
	for _, p := range authgate.StreamPaths {
		s.auth.ForPath(p).Mount(mux)
	}
}
