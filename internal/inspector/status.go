package inspector

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/generator/diag"
)

// Status is what the last build of the project left: the app shows its
// errors as an overlay until a status without errors arrives.
type Status struct {
	// Build counts the builds reported so far.
	Build int `json:"build"`
	// OK is false while any error remains (the last good build still serves).
	OK          bool         `json:"ok"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// Diagnostic is one problem at file:line:col, the path relative to the
// project.
type Diagnostic struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Col      int    `json:"col"`
	Severity string `json:"severity"`
	Code     string `json:"code,omitempty"`
	Message  string `json:"message"`
	Hint     string `json:"hint,omitempty"`
	// Text is the whole diagnostic as mcpgen prints it.
	Text string `json:"text"`
	// Stage is the check that found it: "go" (generation and the Go
	// build) or "views" (bundling), which keep the last good build
	// serving, or "types" (the views' type check), which does not stop a
	// view from serving. Empty: a build.
	Stage string `json:"stage,omitempty"`
}

// Diagnostics converts mcpgen diagnostics, paths made relative to root.
func Diagnostics(list diag.List, root string) []Diagnostic {
	out := []Diagnostic{}
	for _, d := range list {
		out = append(out, fromDiag(d, root))
	}
	return out
}

func fromDiag(d diag.Diagnostic, root string) Diagnostic {
	file := d.Pos.File
	if root != "" && filepath.IsAbs(file) {
		if rel, err := filepath.Rel(root, file); err == nil && !strings.HasPrefix(rel, "..") {
			file = filepath.ToSlash(rel)
		}
	}
	return Diagnostic{
		File: file, Line: d.Pos.Line, Col: d.Pos.Col,
		Severity: fmt.Sprint(d.Severity), Code: d.Code, Message: d.Message, Hint: d.Hint,
		Text: d.Render(root),
	}
}

// SetStatus publishes the project's build status to every open app.
func (s *Server) SetStatus(st Status) {
	if st.Diagnostics == nil {
		st.Diagnostics = []Diagnostic{}
	}
	s.status.set(st)
}

// statusFeed holds the current status and wakes the event streams when it
// changes.
type statusFeed struct {
	mu     sync.Mutex
	cur    Status
	wake   chan struct{} // closed and replaced on every change
	closed bool
}

func newStatusFeed() *statusFeed {
	return &statusFeed{cur: Status{OK: true, Diagnostics: []Diagnostic{}}, wake: make(chan struct{})}
}

func (f *statusFeed) set(st Status) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	f.cur = st
	close(f.wake)
	f.wake = make(chan struct{})
}

func (f *statusFeed) get() (Status, <-chan struct{}, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cur, f.wake, f.closed
}

func (f *statusFeed) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.closed {
		f.closed = true
		close(f.wake)
	}
}

func (s *Server) currentStatus(w http.ResponseWriter, r *http.Request) {
	st, _, _ := s.status.get()
	writeJSON(w, st)
}

// keepAlive is how often an idle event stream sends a comment, so proxies
// and tunnels keep it open.
const keepAlive = 20 * time.Second

// events streams the status as server-sent events: the current one at
// once, then every change.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no")
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	for {
		st, wake, closed := s.status.get()
		if closed {
			return
		}
		b, _ := json.Marshal(st)
		if _, err := fmt.Fprintf(w, "event: status\ndata: %s\n\n", b); err != nil {
			return
		}
		fl.Flush()
	wait:
		for {
			select {
			case <-r.Context().Done():
				return
			case <-wake:
				break wait
			case <-tick.C:
				if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil {
					return
				}
				fl.Flush()
			}
		}
	}
}
