package dev

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/generator/diag"
	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/internal/dev/front"
)

// term writes what a developer wants to read while editing: what changed,
// what was rebuilt, how long it took, and where to connect.
type term struct {
	mu   sync.Mutex
	w    io.Writer // progress
	errw io.Writer // diagnostics and the connector's output
	root string
}

func stamp() string { return time.Now().Format("15:04:05") }

func (t *term) printf(w io.Writer, format string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(w, format, args...)
}

func (t *term) banner(dir string) {
	t.printf(t.w, "mcpgen dev  %s\n", dir)
}

func (t *term) ready(url string, allow []string) {
	if url == "stdio" {
		t.printf(t.w, "\n  serving the host over stdio; this log goes to stderr\n")
		t.printf(t.w, "  watching for changes; the session survives rebuilds\n\n")
		return
	}
	t.printf(t.w, "\n  MCP endpoint  %s\n", url)
	t.printf(t.w, "  inspector     %s\n", strings.TrimSuffix(url, "mcp"))
	if len(allow) > 0 {
		t.printf(t.w, "  also allowed  %s\n", strings.Join(allow, ", "))
	}
	t.printf(t.w, "  watching for changes; sessions survive rebuilds (Ctrl-C to stop)\n\n")
}

func (t *term) line(format string, args ...any) {
	t.printf(t.w, "%s %s\n", stamp(), fmt.Sprintf(format, args...))
}

func (t *term) warn(format string, args ...any) {
	t.printf(t.errw, "%s warning: %s\n", stamp(), fmt.Sprintf(format, args...))
}

func (t *term) fail(format string, args ...any) {
	t.printf(t.errw, "%s ✗ %s\n", stamp(), fmt.Sprintf(format, args...))
}

func (t *term) diags(l diag.List) {
	l = dedupe(t.root, l)
	l.Sort()
	t.printf(t.errw, "%s", l.Render(t.root))
}

func (t *term) changed(files []string) {
	if len(files) == 0 {
		return
	}
	s := strings.Join(files, ", ")
	if len(files) > 4 {
		s = strings.Join(files[:4], ", ") + fmt.Sprintf(" and %d more", len(files)-4)
	}
	t.line("changed %s", s)
}

func (t *term) views(views []ir.View, d time.Duration) {
	var names []string
	for _, v := range views {
		names = append(names, fmt.Sprintf("%s (%s)", v.Name, size(len(v.HTML))))
	}
	t.line("✓ bundled %s in %s: %s", count(len(views), "view"), round(d), strings.Join(names, ", "))
}

// viewSwap reports a swap of views: the ones rebundled (their old URIs
// are in old), added and removed (before holds the names served before).
func (t *term) viewSwap(views []ir.View, before, old []string, ch front.Changes, d time.Duration) {
	var tools []string
	for _, n := range ch.Changed {
		if !strings.Contains(n, "://") {
			tools = append(tools, n)
		}
	}
	var rebundled, added, removed []string
	now := map[string]bool{}
	for _, v := range views {
		now[v.Name] = true
		desc := fmt.Sprintf("%s (%s)", v.URI, size(len(v.HTML)))
		switch {
		case !slices.Contains(before, v.Name):
			added = append(added, desc)
		case slices.ContainsFunc(old, func(o string) bool { return front.ViewName(o) == v.Name }):
			rebundled = append(rebundled, desc)
		}
	}
	for _, n := range before {
		if !now[n] {
			removed = append(removed, n)
		}
	}
	noun := "view"
	if len(rebundled)+len(added)+len(removed) > 1 {
		noun = "views"
	}
	var msg string
	var rest []string
	switch {
	case len(rebundled) > 0:
		msg = fmt.Sprintf("✓ %s rebundled in %s → %s", noun, round(d), strings.Join(rebundled, ", "))
		if len(added) > 0 {
			rest = append(rest, "added "+strings.Join(added, ", "))
		}
		if len(removed) > 0 {
			rest = append(rest, "removed "+strings.Join(removed, ", "))
		}
	case len(added) > 0:
		msg = fmt.Sprintf("✓ %s added in %s → %s", noun, round(d), strings.Join(added, ", "))
		if len(removed) > 0 {
			rest = append(rest, "removed "+strings.Join(removed, ", "))
		}
	case len(removed) > 0:
		msg = fmt.Sprintf("✓ %s %s removed in %s", noun, strings.Join(removed, ", "), round(d))
	default:
		t.line("✓ views rebundled in %s, unchanged output", round(d))
		return
	}
	if len(rest) > 0 {
		msg += "; " + strings.Join(rest, "; ")
	}
	if len(tools) > 0 {
		msg += "; relinked " + strings.Join(tools, ", ")
	}
	t.line("%s", msg)
}

func (t *term) swapped(kind string, built time.Duration, phases string, total time.Duration, snap *front.Snapshot, ch front.Changes, first bool) {
	what := "rebuilt"
	switch {
	case first:
		what = "built"
	case kind == "restart":
		what = "restarted"
	}
	timing := fmt.Sprintf("in %s", round(total))
	if built > 0 {
		if phases == "" {
			phases = "build " + round(built).String()
		}
		timing = fmt.Sprintf("in %s (%s)", round(total), phases)
	}
	summary := strings.Join([]string{count(len(snap.Tools), "tool"), count(len(snap.Resources), "resource"),
		count(len(snap.Templates), "template"), count(len(snap.Prompts), "prompt")}, ", ")
	if first {
		t.line("✓ %s %s: %s", what, timing, summary)
		return
	}
	t.line("✓ %s %s: %s", what, timing, describe(ch))
}

func (t *term) listChanged(ch front.Changes) {
	t.line("↻ the connector changed its lists: %s", describe(ch))
}

func describe(ch front.Changes) string {
	if ch.Empty() {
		return "no tool, resource or prompt changed"
	}
	var parts []string
	if len(ch.Added) > 0 {
		parts = append(parts, "+"+strings.Join(ch.Added, " +"))
	}
	if len(ch.Changed) > 0 {
		parts = append(parts, "~"+strings.Join(ch.Changed, " ~"))
	}
	if len(ch.Removed) > 0 {
		parts = append(parts, "-"+strings.Join(ch.Removed, " -"))
	}
	return strings.Join(parts, " ")
}

func size(n int) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f KiB", float64(n)/1024)
}

// dedupe drops an unpositioned diagnostic that only repeats compiler lines
// already present as positioned diagnostics (go list reports a package's
// errors both ways).
func dedupe(root string, l diag.List) diag.List {
	have := map[string]bool{}
	for _, d := range l {
		if d.Pos.Line > 0 {
			have[d.Pos.String()+"\x00"+d.Message] = true
		}
	}
	out := l[:0:0]
	for _, d := range l {
		if d.Pos.Line == 0 {
			inner := parseGoErrors(root, d.Message)
			dup := len(inner) > 0
			for _, in := range inner {
				if !have[in.Pos.String()+"\x00"+in.Message] {
					dup = false
				}
			}
			if dup {
				continue
			}
		}
		out = append(out, d)
	}
	return out
}

// count renders n with its noun: "1 tool", "3 tools".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
