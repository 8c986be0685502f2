package connector

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"
)

// newLogger returns the logger of a connector binary: format "text"
// (key=value lines, for people) or "json" (one object a line, for log
// collectors), at level debug, info, warn or error.
func newLogger(w io.Writer, format, level string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("invalid --log-level %q: want debug, info, warn or error", level)
	}
	hopts := &slog.HandlerOptions{Level: lv}
	switch strings.ToLower(format) {
	case "text", "":
		return slog.New(newTextHandler(w, hopts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, hopts)), nil
	}
	return nil, fmt.Errorf("invalid --log-format %q: want text or json", format)
}

// textHandler is slog's TextHandler, except that multi-line values (panic
// stacks) and the lines after the first of a multi-line message are written
// as they are, indented, below the record's line instead of quoted with \n
// and \t escapes, so a stack in a terminal or journal reads like Go prints
// it. The JSON format keeps them as strings, which log tools unescape.
type textHandler struct {
	inner slog.Handler
	w     io.Writer
	mu    *sync.Mutex // one record and its trailing lines are written together
	plain bool        // inner has no source, ReplaceAttr, attributes or groups: appendText writes its lines
}

func newTextHandler(w io.Writer, opts *slog.HandlerOptions) *textHandler {
	plain := opts == nil || !opts.AddSource && opts.ReplaceAttr == nil
	return &textHandler{inner: slog.NewTextHandler(w, opts), w: w, mu: new(sync.Mutex), plain: plain}
}

func (h *textHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.inner.Enabled(ctx, l)
}

func (h *textHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &textHandler{inner: h.inner.WithAttrs(as), w: h.w, mu: h.mu}
}

func (h *textHandler) WithGroup(name string) slog.Handler {
	return &textHandler{inner: h.inner.WithGroup(name), w: h.w, mu: h.mu}
}

func (h *textHandler) Handle(ctx context.Context, r slog.Record) error {
	if singleLine(r) {
		// Nothing to move below: the record as it is (copying it would
		// give the same line, at the cost of a copy per record), written
		// by appendText where it can.
		if h.plain {
			bp := textLines.Get().(*[]byte)
			line, ok := appendText((*bp)[:0], r)
			if ok {
				return h.writeLine(bp, line)
			}
			textLines.Put(bp)
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		return h.inner.Handle(ctx, r)
	}
	msg, rest, multi := strings.Cut(r.Message, "\n")
	var blocks []string
	if multi {
		blocks = append(blocks, rest)
	}
	out := slog.NewRecord(r.Time, r.Level, msg, r.PC)
	r.Attrs(func(a slog.Attr) bool {
		if a.Value.Kind() == slog.KindString || a.Value.Kind() == slog.KindAny {
			if s := a.Value.Resolve().String(); strings.Contains(s, "\n") {
				out.AddAttrs(slog.String(a.Key, "(below)"))
				blocks = append(blocks, a.Key+":\n"+s)
				return true
			}
		}
		out.AddAttrs(a)
		return true
	})
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := h.inner.Handle(ctx, out); err != nil {
		return err
	}
	if len(blocks) == 0 {
		return nil
	}
	var b strings.Builder
	for _, blk := range blocks {
		for _, line := range strings.Split(strings.TrimRight(blk, "\n"), "\n") {
			b.WriteString("\t")
			b.WriteString(line)
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(h.w, b.String())
	return err
}

// singleLine reports whether Handle would write r as it is: a one-line
// message and no multi-line string value. A value of kind any is only
// known once formatted, so a record with one is not single-line here.
func singleLine(r slog.Record) bool {
	if strings.Contains(r.Message, "\n") {
		return false
	}
	single := true
	r.Attrs(func(a slog.Attr) bool {
		single = attrSingleLine(a)
		return single
	})
	return single
}

// attrSingleLine reports whether a is written on its record's line: it is
// not a string of several lines, nor a value of any kind (which may print
// as several).
func attrSingleLine(a slog.Attr) bool {
	switch a.Value.Kind() {
	case slog.KindAny:
		return false
	case slog.KindString:
		return !strings.Contains(a.Value.String(), "\n")
	}
	return true
}

// writeAttrs writes the record of level, msg and attrs, timed t, as
// Handle would, without making the record (a slog.Record is copied into
// every function it is given to, a few hundred bytes of a request's stack
// each time). It reports false, having written nothing, when Handle must
// write it: the handler is not plain, or the line is not one appendText
// writes.
func (h *textHandler) writeAttrs(t time.Time, level slog.Level, msg string, attrs []slog.Attr) (bool, error) {
	if !h.plain || strings.Contains(msg, "\n") {
		return false, nil
	}
	for _, a := range attrs {
		if !attrSingleLine(a) {
			return false, nil
		}
	}
	bp := textLines.Get().(*[]byte)
	line, ok := appendTextAttrs((*bp)[:0], t, level, msg, attrs)
	if !ok {
		textLines.Put(bp)
		return false, nil
	}
	return true, h.writeLine(bp, line)
}

// writeLine writes line, appended to the pooled buffer bp, and gives the
// buffer back to the pool unless it grew large.
func (h *textHandler) writeLine(bp *[]byte, line []byte) error {
	h.mu.Lock()
	_, err := h.w.Write(line)
	h.mu.Unlock()
	if cap(line) <= 4<<10 {
		*bp = line
		textLines.Put(bp)
	}
	return err
}
