package inspector

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/internal/devtrace"
	"github.com/mcpgen/mcpgen/internal/hosts"
)

//go:generate go run ./gen

// indexHTML is the app: one document with its script and style inline,
// bundled from app/ by `go generate` (see package appbundle).
//
//go:embed index.html
var indexHTML []byte

// Options configure New.
type Options struct {
	// MCP, when set, is served at /mcp on the app's origin. mcpgen dev
	// leaves it nil and serves /mcp itself beside the app.
	MCP http.Handler
	// MCPURL, when set (and MCP is nil), is an MCP endpoint elsewhere, such
	// as a built connector's http://127.0.0.1:8080/mcp; the app's /mcp
	// proxies to it.
	MCPURL string
	// ProjectDir is the connector's directory: its fixtures/ are listed.
	// "" lists none.
	ProjectDir string
	// Name is shown in the app's title bar (the project's name).
	Name string
	// SandboxAddr is where the view sandbox origin listens; "" is
	// 127.0.0.1:0 (a free port).
	SandboxAddr string
	// AllowHosts are extra Host (and Origin) names accepted besides
	// loopback ones, as mcpgen dev's --allow-host: "*.example.com" matches
	// subdomains, "*" any name.
	AllowHosts []string
	// Log receives one line per refused request (why it was refused). Nil
	// uses the standard logger.
	Log *log.Logger
	// Views, when set, returns the views as bundled, with their source
	// maps (sourcemaps.go): a document the sandbox serves that is one of
	// them is linked to its map, and SourcePlace and Rewrite map places
	// in it back to the view's source.
	Views func() []ir.View
	// Traces, when set, receives the traces the connector exports
	// (devtrace.ReceivePath) and answers the app's questions about them
	// (devtrace.TracePath): the app then sends a traceparent with each
	// request and shows its trace in the protocol panel.
	Traces *devtrace.Collector
}

// Server is the inspector: an http.Handler for the app's origin, and the
// view sandbox listening on its own port.
type Server struct {
	opts    Options
	mux     *http.ServeMux
	csp     string
	sandbox *sandbox
	status  *statusFeed
	maps    *maps
}

// New starts the view sandbox and returns the app's handler. Close stops
// the sandbox.
func New(opts Options) (*Server, error) {
	if opts.Log == nil {
		opts.Log = log.Default()
	}
	if opts.SandboxAddr == "" {
		opts.SandboxAddr = "127.0.0.1:0"
	}
	if opts.Name == "" {
		opts.Name = "mcpgen"
	}
	s := &Server{opts: opts, status: newStatusFeed(), maps: &maps{views: opts.Views}}
	sb, err := newSandbox(opts.SandboxAddr, s.allowed, s.maps)
	if err != nil {
		return nil, err
	}
	s.sandbox = sb
	_, port, _ := net.SplitHostPort(sb.addr())
	s.csp = appCSP(indexHTML, port)
	s.mux = http.NewServeMux()
	switch {
	case opts.MCP != nil:
		s.mux.Handle("/mcp", opts.MCP)
	case opts.MCPURL != "":
		p, err := proxy(opts.MCPURL)
		if err != nil {
			sb.close()
			return nil, err
		}
		s.mux.Handle("/mcp", p)
	}
	s.mux.HandleFunc("GET /_mcpgen/config", s.config)
	s.mux.HandleFunc("GET /_mcpgen/fixtures", s.fixtures)
	s.mux.HandleFunc("GET /_mcpgen/status", s.currentStatus)
	s.mux.HandleFunc("GET /_mcpgen/events", s.events)
	s.mux.HandleFunc("POST /_mcpgen/views", s.storeView)
	// The redirect URI of the app's OAuth sign-in: the app finishes it.
	s.mux.HandleFunc("GET /_mcpgen/oauth/callback", s.index)
	if opts.Traces != nil {
		s.mux.Handle("POST "+devtrace.ReceivePath, opts.Traces.ReceiveHandler())
		s.mux.Handle("GET "+devtrace.TracePath, opts.Traces.TraceHandler())
	}
	s.mux.HandleFunc("/_mcpgen/", http.NotFound)
	s.mux.HandleFunc("/", s.index)
	return s, nil
}

// SandboxURL is the view sandbox's origin, such as http://127.0.0.1:40123.
func (s *Server) SandboxURL() string { return "http://" + s.sandbox.addr() }

// Close stops the view sandbox and ends the app's event streams.
func (s *Server) Close() error {
	s.status.close()
	return s.sandbox.close()
}

// ServeHTTP serves the app's origin: every route checks Host and Origin
// (DNS-rebinding protection) and sends no-store, frame and CSP headers.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if why := s.refuse(r); why != "" {
		s.opts.Log.Printf("inspector: refused %s %s: %s", r.Method, r.URL.Path, why)
		http.Error(w, "mcpgen inspector: "+why, http.StatusForbidden)
		return
	}
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	if r.URL.Path != "/mcp" {
		h.Set("Content-Security-Policy", s.csp)
	}
	s.mux.ServeHTTP(w, r)
}

// refuse says why a request must be refused, or "".
func (s *Server) refuse(r *http.Request) string {
	if !s.allowed(hostOnly(r.Host)) {
		return fmt.Sprintf("Host %s is not allowed (DNS-rebinding protection); start mcpgen dev with --allow-host %s to accept it", r.Host, hostOnly(r.Host))
	}
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		if err != nil || u.Hostname() == "" || !s.allowed(u.Hostname()) {
			return fmt.Sprintf("Origin %s is not allowed; start mcpgen dev with --allow-host NAME to accept its host name", o)
		}
	}
	if r.Method == http.MethodPost && r.URL.Path != "/mcp" && r.URL.Path != devtrace.ReceivePath {
		// (The connector's trace exports carry the collector's token
		// instead: devtrace.Collector.ReceiveHandler.)
		// The app's own writes are same-origin fetches: a browser always
		// sends Origin on them.
		o := r.Header.Get("Origin")
		if o == "" {
			return "a POST needs an Origin header"
		}
		if u, _ := url.Parse(o); u == nil || u.Host != r.Host {
			return fmt.Sprintf("Origin %s is not this server's origin", o)
		}
	}
	return ""
}

func (s *Server) allowed(host string) bool { return HostAllowed(host, s.opts.AllowHosts) }

// index serves the app at every other path (deep links keep their state
// in the query).
func (s *Server) index(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if strings.HasPrefix(r.URL.Path, "/mcp/") {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(indexHTML)
}

func (s *Server) config(w http.ResponseWriter, r *http.Request) {
	_, port, _ := net.SplitHostPort(s.sandbox.addr())
	p, _ := strconv.Atoi(port)
	writeJSON(w, map[string]any{"name": s.opts.Name, "mcp": "/mcp", "sandboxPort": p, "traces": s.opts.Traces != nil})
}

func (s *Server) fixtures(w http.ResponseWriter, r *http.Request) {
	if s.opts.ProjectDir == "" {
		writeJSON(w, map[string]any{"fixtures": []Fixture{}, "diagnostics": []Diagnostic{}})
		return
	}
	fx, diags := LoadFixtures(s.opts.ProjectDir)
	if fx == nil {
		fx = []Fixture{}
	}
	ds := []Diagnostic{}
	for _, d := range diags {
		ds = append(ds, fromDiag(d, s.opts.ProjectDir))
	}
	writeJSON(w, map[string]any{"fixtures": fx, "diagnostics": ds})
}

// maxView bounds a stored view document.
const maxView = 32 << 20

// storeView keeps a view document for the sandbox and answers its URL there.
func (s *Server) storeView(w http.ResponseWriter, r *http.Request) {
	var req struct {
		HTML string          `json:"html"`
		CSP  json.RawMessage `json:"csp"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, maxView)).Decode(&req); err != nil {
		http.Error(w, "bad view: "+err.Error(), http.StatusBadRequest)
		return
	}
	var csp ViewCSP
	if len(req.CSP) > 0 && string(req.CSP) != "null" {
		if err := json.Unmarshal(req.CSP, &csp); err != nil {
			http.Error(w, "bad _meta.ui.csp: "+err.Error(), http.StatusBadRequest)
			return
		}
	}
	origin := r.Header.Get("Origin")
	id := s.sandbox.put(req.HTML, csp, origin)
	writeJSON(w, map[string]any{"path": "/view/" + id, "csp": csp.Policy(origin)})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Write(b)
}

// appCSP is the app's policy: its one inline script and style by hash,
// fetches to its own origin only, frames from the sandbox's port only.
func appCSP(doc []byte, sandboxPort string) string {
	hashes := func(re *regexp.Regexp) string {
		var out []string
		for _, m := range re.FindAllSubmatch(doc, -1) {
			sum := sha256.Sum256(m[1])
			out = append(out, "'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'")
		}
		if len(out) == 0 {
			return "'none'"
		}
		return strings.Join(out, " ")
	}
	return "default-src 'none'; script-src " + hashes(scriptRe) + "; style-src " + hashes(styleRe) + "; " +
		"img-src 'self' data:; media-src 'self' data:; font-src 'self' data:; connect-src 'self'; " +
		"frame-src http://*:" + sandboxPort + "; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}

var (
	scriptRe = regexp.MustCompile(`(?s)<script>(.*?)</script>`)
	styleRe  = regexp.MustCompile(`(?s)<style>(.*?)</style>`)
)

// proxy forwards the app's /mcp to an MCP endpoint elsewhere.
func proxy(raw string) (http.Handler, error) {
	target, err := url.Parse(raw)
	if err != nil || target.Host == "" {
		return nil, fmt.Errorf("inspector: MCPURL %q: want a URL such as http://127.0.0.1:8080/mcp", raw)
	}
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.Out.URL.Scheme, r.Out.URL.Host, r.Out.URL.Path, r.Out.URL.RawPath = target.Scheme, target.Host, target.Path, ""
			r.Out.Host = target.Host
			r.Out.Header.Del("Origin")
		},
		FlushInterval: -1, // server-sent events pass through at once
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Read the body in full first: streamed from the browser's
		// connection, a POST beside an open event stream can stall.
		body, err := io.ReadAll(io.LimitReader(r.Body, maxView))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		rp.ServeHTTP(w, r)
	}), nil
}

// HostAllowed reports whether host (a name or IP, no port) is loopback or
// matches one of allow: a name, "*.example.com" for its subdomains, or "*"
// (hosts.Allowed, the rule the runtime's guard uses too).
func HostAllowed(host string, allow []string) bool { return hosts.Allowed(host, allow) }

func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return strings.Trim(hostport, "[]")
}
