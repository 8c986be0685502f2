package inspector

import (
	"net/url"
	"strings"
	"sync"

	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/internal/sourcemap"
)

// Source maps: a view's error happens in the document the sandbox serves
// (/view/ID:21:1033); the bundle's source map, which the bundler keeps
// beside each view (Options.Views), turns that place back into the view's
// source (ui/summary.tsx:19:5). The sandbox links each document to its map,
// so the browser's developer tools show errors at their place in ui/, and
// SourcePlace and Rewrite do the same for tools that collect errors
// (mcpgen test).

// maps caches the parsed source maps of the views, by view hash.
type maps struct {
	views func() []ir.View // nil: no maps

	mu   sync.Mutex
	docs map[string]*sourcemap.Doc
}

// view returns the bundled view whose document is html.
func (m *maps) view(html string) (ir.View, bool) {
	if m == nil || m.views == nil {
		return ir.View{}, false
	}
	for _, v := range m.views() {
		if v.HTML == html && v.SourceMap != "" {
			return v, true
		}
	}
	return ir.View{}, false
}

// doc returns the source-map document of html, or nil when no view with a
// map has that document.
func (m *maps) doc(html string) *sourcemap.Doc {
	v, ok := m.view(html)
	if !ok {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if d, ok := m.docs[v.Hash]; ok {
		return d
	}
	pm, err := sourcemap.Parse([]byte(v.SourceMap))
	if err != nil {
		return nil
	}
	if m.docs == nil || len(m.docs) >= maxViews {
		m.docs = map[string]*sourcemap.Doc{}
	}
	d := &sourcemap.Doc{Map: pm, ScriptLine: v.ScriptLine}
	m.docs[v.Hash] = d
	return d
}

// storedHTML returns the document the sandbox serves at u, a URL of the
// sandbox (http://127.0.0.1:PORT/view/ID).
func (s *Server) storedHTML(u string) (string, bool) {
	pu, err := url.Parse(u)
	if err != nil || pu.Host != s.sandbox.addr() {
		return "", false
	}
	id, ok := strings.CutPrefix(pu.Path, "/view/")
	if !ok {
		return "", false
	}
	s.sandbox.mu.Lock()
	defer s.sandbox.mu.Unlock()
	v, ok := s.sandbox.views[id]
	return v.html, ok
}

// docAt returns the source-map document of the view served at u, or nil.
func (s *Server) docAt(u string) *sourcemap.Doc {
	html, ok := s.storedHTML(u)
	if !ok {
		return nil
	}
	return s.maps.doc(html)
}

// SourcePlace returns the place in a view's source (ui/summary.tsx:19:5)
// of line and col (from 1) of the view document at u, a URL the sandbox
// served; ok is false when u is no such document or its view has no
// source map.
func (s *Server) SourcePlace(u string, line, col int) (sourcemap.Pos, bool) {
	return s.docAt(u).Source(line, col)
}

// Rewrite replaces every URL:LINE:COL of a sandbox document in text (a
// stack trace) with the place in the view's source.
func (s *Server) Rewrite(text string) string {
	return sourcemap.Rewrite(text, s.docAt)
}

// withMapLink returns html with a comment linking its script to the map
// the sandbox serves at /map/ID, when the view has one. The comment goes
// after the script's last line, so no place in the script moves.
func withMapLink(html, id string, hasMap bool) string {
	if !hasMap {
		return html
	}
	i := strings.LastIndex(html, "</script>")
	if i < 0 {
		return html
	}
	return html[:i] + "//# sourceMappingURL=/map/" + id + "\n" + html[i:]
}
