package connector

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"math"
	"testing"
	"time"
)

// textLineRecord builds a record from fuzzed parts: every kind appendText
// writes, and some it leaves to slog.
func textLineRecord(msg, key, s string, i int64, u uint64, f float64, b bool, d int64, level int, unixNano int64, zone int, extra uint8) slog.Record {
	t := time.Unix(0, unixNano).In(time.FixedZone("z", zone%(24*3600)))
	if extra&1 != 0 {
		t = time.Time{}
	}
	r := slog.NewRecord(t, slog.Level(level%64), msg, 0)
	r.AddAttrs(slog.String(key, s), slog.Int64("i", i), slog.Uint64("u", u), slog.Float64("f", f),
		slog.Bool("b", b), slog.Duration("d", time.Duration(d)), slog.String("s2", key+s))
	switch extra >> 1 % 6 {
	case 1:
		r.AddAttrs(slog.Time("t", t))
	case 2:
		r.AddAttrs(slog.Any("e", errors.New(s)))
	case 3:
		r.AddAttrs(slog.Group("g", slog.String("k", s)))
	case 4:
		r.AddAttrs(slog.String("", s))
	case 5:
		r.AddAttrs(slog.Attr{})
	}
	return r
}

// sameAsSlog checks that mcpgen's text handler writes a one-line record
// exactly as slog's text handler does.
func sameAsSlog(t *testing.T, r slog.Record) {
	t.Helper()
	if !singleLine(r) {
		return // moved below by textHandler, as before
	}
	var got, want bytes.Buffer
	opts := &slog.HandlerOptions{Level: slog.LevelDebug - 8}
	if err := newTextHandler(&got, opts).Handle(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	if err := slog.NewTextHandler(&want, opts).Handle(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Fatalf("\n got %q\nwant %q", got.String(), want.String())
	}
	// The same record given as its parts (the request log's way) is
	// written the same, or declined exactly when appendText declines it.
	var attrs []slog.Attr
	r.Attrs(func(a slog.Attr) bool { attrs = append(attrs, a); return true })
	var parts bytes.Buffer
	done, err := newTextHandler(&parts, opts).writeAttrs(r.Time, r.Level, r.Message, attrs)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := appendText(nil, r); done != ok {
		t.Fatalf("writeAttrs wrote it: %v; appendText writes it: %v", done, ok)
	}
	if done && parts.String() != want.String() {
		t.Fatalf("from parts\n got %q\nwant %q", parts.String(), want.String())
	}
	if !done && parts.Len() != 0 {
		t.Fatalf("writeAttrs declined, having written %q", parts.String())
	}
}

func TestTextHandlerWritesSlogLines(t *testing.T) {
	for _, s := range []string{"", "ok", "a b", "a=b", `a"b`, `a\b`, "tab\there", "\x00", "\x7f", "é", "\u00a0", "\u2028", "\xff", "\ufffd",
		"tools/call", "find_orders", "🙂", "\u200b", "a\\nb", "[x]", "{}", "-", "#"} {
		for _, level := range []int{-8, -4, -1, 0, 2, 4, 8, 12} {
			r := textLineRecord(s, s+"k", s, -42, math.MaxUint64, 1.5e-7, true, 23456, level, 1764258821123456789, 3600, 0)
			if _, ok := appendText(nil, r); !ok {
				t.Fatalf("%q: appendText declined", s)
			}
			sameAsSlog(t, r)
		}
	}
	for extra := range uint8(16) {
		sameAsSlog(t, textLineRecord("request", "k", "v", 0, 0, math.Inf(-1), false, -1, 0, 999_999_999, -5*3600-1800, extra))
		sameAsSlog(t, textLineRecord("request", "k", "v", math.MinInt64, 1, math.NaN(), false, math.MaxInt64, 0, -1, 0, extra))
	}
}

func FuzzTextLine(f *testing.F) {
	f.Add("request", "method", "tools/call", int64(1), uint64(2), 0.5, true, int64(23456), 0, int64(1764258821123456789), 0, uint8(0))
	f.Add("a b", "k=v", "x\"y", int64(-1), uint64(0), -0.0, false, int64(-5), 4, int64(-62135596800000000), 3600, uint8(3))
	f.Add("", "", "\xff\u00a0", int64(0), uint64(0), 1e300, false, int64(0), -4, int64(0), -1800, uint8(8))
	f.Fuzz(func(t *testing.T, msg, key, s string, i int64, u uint64, fl float64, b bool, d int64, level int, unixNano int64, zone int, extra uint8) {
		sameAsSlog(t, textLineRecord(msg, key, s, i, u, fl, b, d, level, unixNano, zone, extra))
	})
}
