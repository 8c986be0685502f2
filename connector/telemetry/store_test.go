package telemetry_test

import (
	"context"
	"errors"
	"net/url"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/connector/store"
	"github.com/mcpgen/mcpgen/connector/store/redisstore"
	"github.com/mcpgen/mcpgen/connector/telemetry"
	"github.com/mcpgen/mcpgen/internal/testenv"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

func recording(t testing.TB) (*telemetry.Telemetry, *tracetest.SpanRecorder, *sdkmetric.ManualReader, trace.Tracer) {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	reader := sdkmetric.NewManualReader()
	tel, err := telemetry.New(telemetry.Providers{Tracer: tp, Meter: sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))})
	if err != nil {
		t.Fatal(err)
	}
	return tel, rec, reader, tp.Tracer("test")
}

// histCount sums the counts of histogram name's points whose attributes
// include want.
func histCount(t *testing.T, reader *sdkmetric.ManualReader, name string, want map[string]string) uint64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var n uint64
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			h, ok := m.Data.(metricdata.Histogram[float64])
			if m.Name != name || !ok {
				continue
			}
		points:
			for _, p := range h.DataPoints {
				for k, v := range want {
					if got, _ := p.Attributes.Value(attribute.Key(k)); got.Emit() != v {
						continue points
					}
				}
				n += p.Count
			}
		}
	}
	return n
}

func attrsOf(s sdktrace.ReadOnlySpan) map[string]string {
	m := map[string]string{}
	for _, kv := range s.Attributes() {
		m[string(kv.Key)] = kv.Value.Emit()
	}
	return m
}

// TestStoreMemoryUntouched checks that the memory store is not wrapped:
// it makes no round trips, and the runtime's checks of its type hold.
func TestStoreMemoryUntouched(t *testing.T) {
	tel, _, _, _ := recording(t)
	mem := store.NewMemory(store.MemoryOptions{})
	if got := tel.Store(mem); got != store.Store(mem) {
		t.Errorf("Store(memory) = %T, want the memory store itself", got)
	}
	var off *telemetry.Telemetry
	wrapped := tel.Store(struct{ store.Store }{mem})
	if got := off.Store(wrapped); got != wrapped {
		t.Errorf("a nil Telemetry's Store changed the store")
	}
	if got := tel.Store(wrapped); got != wrapped {
		t.Errorf("wrapping twice wrapped again")
	}
}

// TestStoreSpansRedis checks the client spans of a Redis store's round
// trips: one per operation under the caller's span, named after it, with
// db.system.name; none without a caller's span, but a duration recorded;
// the contract's answers (not found) are not errors, a Redis that is down
// is one; and the store keeps its Health.
func TestStoreSpansRedis(t *testing.T) {
	r := testenv.StartRedis(t)
	u, _ := url.Parse(r.URL() + "/0")
	raw, err := redisstore.Open(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	tel, rec, reader, tracer := recording(t)
	st := tel.Store(raw)
	if _, ok := st.(interface{ Health() error }); !ok {
		t.Fatal("the wrapped store lost Health")
	}
	if u, ok := st.(interface{ Unwrap() store.Store }); !ok || u.Unwrap() != store.Store(raw) {
		t.Fatal("Unwrap does not return the Redis store")
	}

	ctx, parent := tracer.Start(context.Background(), "tools/call report")
	now := time.Now()
	if err := st.Tasks().Create(ctx, store.Task{ID: "t1", Status: store.TaskWorking, Created: now, Updated: now, TTL: time.Minute}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Tasks().Get(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Tasks().Get(ctx, "missing"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get(missing) = %v", err)
	}
	if ok, _, err := st.Limiter().Take(ctx, "k", 1, store.Bucket{Size: 5, Per: time.Minute}); err != nil || !ok {
		t.Fatalf("Take: %v %v", ok, err)
	}
	if err := st.Events().Open(ctx, "s", "1"); err != nil {
		t.Fatal(err)
	}
	if err := st.Events().Append(ctx, "s", "1", []byte("x")); err != nil {
		t.Fatal(err)
	}
	for _, err := range st.Events().After(ctx, "s", "1", -1) {
		if err != nil {
			t.Fatal(err)
		}
	}
	parent.End()
	// Background work: no span of its own.
	if _, err := st.Tasks().Get(context.Background(), "t1"); err != nil {
		t.Fatal(err)
	}

	want := []string{"store Tasks.Create", "store Tasks.Get", "store Tasks.Get", "store Limiter.Take", "store Events.Open", "store Events.Append", "store Events.After", "tools/call report"}
	spans := rec.Ended()
	if len(spans) != len(want) {
		t.Fatalf("%d spans, want %v", len(spans), want)
	}
	for i, s := range spans {
		if s.Name() != want[i] {
			t.Errorf("span %d is %q, want %q", i, s.Name(), want[i])
		}
		if s.Name() == "tools/call report" {
			continue
		}
		if s.SpanKind() != trace.SpanKindClient || s.Parent().SpanID() != parent.SpanContext().SpanID() {
			t.Errorf("%s: kind %v, parent %v: want a client span under the caller's", s.Name(), s.SpanKind(), s.Parent().SpanID())
		}
		a := attrsOf(s)
		if a["db.system.name"] != "redis" || "store "+a["mcpgen.store.operation"] != s.Name() {
			t.Errorf("%s: attributes %v", s.Name(), a)
		}
		if s.Status().Code == codes.Error {
			t.Errorf("%s: status %v", s.Name(), s.Status())
		}
	}
	if a := attrsOf(spans[2]); a["mcpgen.store.outcome"] != "not_found" || a["error.type"] != "" {
		t.Errorf("Get(missing): attributes %v, want mcpgen.store.outcome not_found and no error.type", a)
	}
	if n := histCount(t, reader, "mcpgen.store.operation.duration", map[string]string{"mcpgen.store.operation": "Tasks.Get", "db.system.name": "redis"}); n != 3 {
		t.Errorf("Tasks.Get durations: %d, want 3 (with the one of background work)", n)
	}

	// Redis down: the round trip fails, and the span says so.
	r.Stop()
	ctx, parent = tracer.Start(context.Background(), "tools/call report")
	cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if _, err := st.Tasks().Get(cctx, "t1"); err == nil {
		t.Fatal("Get with Redis down succeeded")
	}
	parent.End()
	spans = rec.Ended()
	failed := spans[len(spans)-2]
	if failed.Name() != "store Tasks.Get" || failed.Status().Code != codes.Error || attrsOf(failed)["error.type"] == "" {
		t.Errorf("with Redis down: %s status %v attributes %v, want an error with error.type", failed.Name(), failed.Status(), attrsOf(failed))
	}
	if len(failed.Events()) == 0 || failed.Events()[0].Name != "exception" {
		t.Errorf("with Redis down: events %v, want the error recorded", failed.Events())
	}
}

// BenchmarkStoreDecorator measures what the decorator adds to a store
// call: the memory store wrapped as if it were networked (a call costs
// nanoseconds, so what is measured is the decorator), outside a trace and
// under a span.
func BenchmarkStoreDecorator(b *testing.B) {
	mem := store.NewMemory(store.MemoryOptions{})
	now := time.Now()
	if err := mem.Tasks().Create(context.Background(), store.Task{ID: "t1", Status: store.TaskWorking, Created: now, Updated: now, TTL: time.Hour}); err != nil {
		b.Fatal(err)
	}
	tel, _, _, tracer := recording(b)
	wrapped := tel.Store(struct{ store.Store }{mem})
	traced, span := tracer.Start(context.Background(), "parent")
	defer span.End()
	for _, c := range []struct {
		name string
		st   store.Store
		ctx  context.Context
	}{
		{"bare", mem, context.Background()},
		{"wrapped", wrapped, context.Background()},
		{"wrapped-in-trace", wrapped, traced},
	} {
		b.Run(c.name, func(b *testing.B) {
			tasks := c.st.Tasks()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := tasks.Get(c.ctx, "t1"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
