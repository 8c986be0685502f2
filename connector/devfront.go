package connector

import (
	"crypto/subtle"
	"net/http"

	"github.com/mcpgen/mcpgen/internal/authgate"
	"github.com/mcpgen/mcpgen/internal/devlink"
	"github.com/mcpgen/mcpgen/internal/httpedge"
)

// devFront admits only requests carrying the run's key, and passes the
// identity the front verified, and the address of the client the front
// serves, on to the handlers.
func (s *Server) devFront(next http.Handler) http.Handler {
	withInfo := authgate.SDKTokenInfo()(next)
	key := []byte(s.opts.devFrontKey)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get(devlink.KeyHeader)), key) != 1 {
			s.logger.Warn("dev: refused a request that did not come from mcpgen dev's front", "remote", r.RemoteAddr)
			http.Error(w, "Forbidden: this connector runs behind mcpgen dev; connect to the address mcpgen dev printed", http.StatusForbidden)
			return
		}
		if a := r.Header.Get(devlink.CallerAddrHeader); a != "" {
			r.Header.Set(httpedge.CallerHeader, a) // callerAddr set the front's own
		}
		raw := r.Header.Get(devlink.IdentityHeader)
		r.Header.Del(devlink.KeyHeader)
		r.Header.Del(devlink.IdentityHeader)
		r.Header.Del(devlink.CallerAddrHeader)
		if raw == "" {
			next.ServeHTTP(w, r) // the front's own requests (lists) have no caller
			return
		}
		id, ok := devlink.DecodeIdentity(raw)
		if !ok {
			http.Error(w, "Bad Request: malformed "+devlink.IdentityHeader, http.StatusBadRequest)
			return
		}
		r.Header.Set("Authorization", "Bearer mcpgen-dev-front")
		withInfo.ServeHTTP(w, r.WithContext(authgate.WithIdentity(r.Context(), id)))
	})
}
