package inspector

import (
	"crypto/rand"
	"encoding/hex"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/generator/ir"
)

// ViewCSP is a view resource's declared _meta.ui.csp (MCP Apps, SEP-1865).
type ViewCSP struct {
	ConnectDomains  []string `json:"connectDomains,omitempty"`
	ResourceDomains []string `json:"resourceDomains,omitempty"`
	FrameDomains    []string `json:"frameDomains,omitempty"`
	BaseURIDomains  []string `json:"baseUriDomains,omitempty"`
}

// Policy renders the Content-Security-Policy a host applies to the view:
// inline script and style (views are single documents), no network unless
// declared, and framing only by the app at appOrigin.
func (c ViewCSP) Policy(appOrigin string) string {
	src := func(base string, extra []string) string {
		parts := []string{}
		if base != "" {
			parts = append(parts, base)
		}
		for _, d := range extra {
			if d = sanitizeSource(d); d != "" {
				parts = append(parts, d)
			}
		}
		if len(parts) == 0 {
			return "'none'"
		}
		return strings.Join(parts, " ")
	}
	res := c.ResourceDomains
	ancestors := "'none'"
	if o := sanitizeSource(appOrigin); o != "" {
		ancestors = o
	}
	return strings.Join([]string{
		"default-src 'none'",
		"script-src " + src("'unsafe-inline'", res),
		"style-src " + src("'unsafe-inline'", res),
		"img-src " + src("data: blob:", res),
		"font-src " + src("data:", res),
		"media-src " + src("data: blob:", res),
		"connect-src " + src("", c.ConnectDomains),
		"frame-src " + src("", c.FrameDomains),
		"base-uri " + src("", c.BaseURIDomains),
		"object-src 'none'",
		"form-action 'none'",
		"frame-ancestors " + ancestors,
	}, "; ")
}

// sanitizeSource keeps a declared domain from adding directives: no
// spaces, semicolons, commas or quotes.
func sanitizeSource(d string) string {
	d = strings.TrimSpace(d)
	if d == "" || strings.ContainsAny(d, " \t\r\n;,'\"") {
		return ""
	}
	return d
}

// sandbox is the second origin: it serves each view document under an
// unguessable path, with the view's CSP as a header.
type sandbox struct {
	ln      net.Listener
	srv     *http.Server
	allowed func(host string) bool
	maps    *maps // the views' source maps (sourcemaps.go)

	mu    sync.Mutex
	views map[string]storedView
	order []string // oldest first
}

type storedView struct {
	html   string
	policy string
}

// maxViews bounds the documents kept: the newest renderings only.
const maxViews = 64

func newSandbox(addr string, allowed func(string) bool, m *maps) (*sandbox, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &sandbox{ln: ln, allowed: allowed, maps: m, views: map[string]storedView{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /view/{id}", s.serve)
	mux.HandleFunc("GET /map/{id}", s.serveMap)
	s.srv = &http.Server{Handler: s.guard(mux), ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln)
	return s, nil
}

func (s *sandbox) addr() string { return s.ln.Addr().String() }

func (s *sandbox) close() error { return s.srv.Close() }

func (s *sandbox) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.allowed(hostOnly(r.Host)) {
			http.Error(w, "mcpgen inspector sandbox: Host "+r.Host+" is not allowed", http.StatusForbidden)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		next.ServeHTTP(w, r)
	})
}

func (s *sandbox) put(html string, csp ViewCSP, appOrigin string) string {
	var b [16]byte
	rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	s.mu.Lock()
	defer s.mu.Unlock()
	s.views[id] = storedView{html: html, policy: csp.Policy(appOrigin)}
	s.order = append(s.order, id)
	for len(s.order) > maxViews {
		delete(s.views, s.order[0])
		s.order = s.order[1:]
	}
	return id
}

func (s *sandbox) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	v, ok := s.views[r.PathValue("id")]
	s.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	_, hasMap := s.maps.view(v.html)
	w.Header().Set("Content-Security-Policy", v.policy)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write([]byte(withMapLink(v.html, r.PathValue("id"), hasMap)))
}

// serveMap serves the source map of the view document stored as id, for
// the browser's developer tools.
func (s *sandbox) serveMap(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	v, ok := s.views[r.PathValue("id")]
	s.mu.Unlock()
	var view ir.View
	if ok {
		view, ok = s.maps.view(v.html)
	}
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte(view.SourceMap))
}
