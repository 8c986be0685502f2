package connector

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"
)

// BenchmarkRequestLogLine measures writing one request log line (a
// tools/call without a session, as requestLog writes it) through the
// text handler a connector binary logs with, and through slog's:
//
//	go test -run '^$' -bench RequestLogLine -benchmem ./connector/
func BenchmarkRequestLogLine(b *testing.B) {
	s := &Server{logger: slog.New(newTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo}))}
	ctx := context.Background()
	attrs := func() []slog.Attr {
		attrs := make([]slog.Attr, 0, 8)
		return append(attrs, slog.String("method", "tools/call"), slog.String("tool", "find_orders"),
			slog.Duration("duration", 23456*time.Nanosecond), slog.String("outcome", "ok"))
	}
	b.Run("logRequest", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s.logRequest(ctx, slog.LevelInfo, attrs())
		}
	})
	// Less than requestLog did before logRequest and appendText: the
	// same line through slog.Logger and slog's own text handler, without
	// the copy of the record textHandler then made.
	b.Run("slog", func(b *testing.B) {
		logger := slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo}))
		b.ReportAllocs()
		for b.Loop() {
			logger.LogAttrs(ctx, slog.LevelInfo, "request", attrs()...)
		}
	})
}
