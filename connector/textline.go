package connector

import (
	"log/slog"
	"strconv"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// appendText appends the line slog.TextHandler writes for r when it has
// no source, no ReplaceAttr, no groups and no attributes of its own:
// time (RFC 3339, milliseconds), level, msg, then each attribute as
// key=value, quoted where slog quotes. ok is false when r holds a value
// it does not format as slog does (only strings, numbers, booleans and
// durations are); the handler then writes r itself.
//
// A connector logs a line per request; slog's general path (a record
// copied through the handler chain, each value dispatched by kind, the
// output assembled in a pooled state) was a tenth of a fast-path call.
func appendText(b []byte, r slog.Record) ([]byte, bool) {
	b = appendTextHead(b, r.Time, r.Level, r.Message)
	ok := true
	r.Attrs(func(a slog.Attr) bool {
		b, ok = appendTextAttr(b, a)
		return ok
	})
	return append(b, '\n'), ok
}

// appendTextAttrs is appendText for a record given as its parts, without
// building it: the request log's line (requestLine) is made this way.
func appendTextAttrs(b []byte, t time.Time, level slog.Level, msg string, attrs []slog.Attr) ([]byte, bool) {
	b = appendTextHead(b, t, level, msg)
	for _, a := range attrs {
		var ok bool
		if b, ok = appendTextAttr(b, a); !ok {
			return b, false
		}
	}
	return append(b, '\n'), true
}

// appendTextHead appends a line's time, level and message.
func appendTextHead(b []byte, t time.Time, level slog.Level, msg string) []byte {
	if !t.IsZero() {
		b = append(b, "time="...)
		b = appendRFC3339Millis(b, t.Round(0))
		b = append(b, ' ')
	}
	b = append(b, "level="...)
	b = appendTextString(b, level.String())
	b = append(b, " msg="...)
	return appendTextString(b, msg)
}

// appendTextAttr appends one attribute as key=value; ok is false for one
// slog formats otherwise (an empty key, which slog may elide, or a kind
// other than string, number, boolean and duration).
func appendTextAttr(b []byte, a slog.Attr) ([]byte, bool) {
	if a.Key == "" {
		return b, false
	}
	b = append(b, ' ')
	b = appendTextString(b, a.Key)
	b = append(b, '=')
	switch v := a.Value; v.Kind() {
	case slog.KindString:
		return appendTextString(b, v.String()), true
	case slog.KindInt64:
		return strconv.AppendInt(b, v.Int64(), 10), true
	case slog.KindUint64:
		return strconv.AppendUint(b, v.Uint64(), 10), true
	case slog.KindFloat64:
		return strconv.AppendFloat(b, v.Float64(), 'g', -1, 64), true
	case slog.KindBool:
		return strconv.AppendBool(b, v.Bool()), true
	case slog.KindDuration:
		return append(b, v.Duration().String()...), true
	}
	return b, false
}

// appendRFC3339Millis is slog's time format: RFC 3339 with exactly three
// digits of milliseconds (truncated, not rounded).
func appendRFC3339Millis(b []byte, t time.Time) []byte {
	const prefixLen = len("2006-01-02T15:04:05.000")
	n := len(b)
	t = t.Truncate(time.Millisecond).Add(time.Millisecond / 10)
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b[:n+prefixLen], b[n+prefixLen+1:]...) // drop the 4th digit
}

// appendTextString writes s as slog's text handler does: as it is, or
// Go-quoted when it is empty or holds a space, '=', '"', a control
// character, invalid UTF-8 or a non-printing or space rune.
func appendTextString(b []byte, s string) []byte {
	if textNeedsQuoting(s) {
		return strconv.AppendQuote(b, s)
	}
	return append(b, s...)
}

func textNeedsQuoting(s string) bool {
	if len(s) == 0 {
		return true
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c != '\\' && (c <= ' ' || c == '=' || c == '"') {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return true
		}
		i += size
	}
	return false
}

var textLines = sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}
