package connector

import (
	"context"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/connector/store"
	"github.com/mcpgen/mcpgen/connector/telemetry"
	"github.com/mcpgen/mcpgen/internal/testenv"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// TestTelemetryStoreChecks checks that with telemetry on, what the
// runtime asks of its store's type still holds: a Redis store (wrapped
// for its spans) is shared and reports its health, the memory store is
// neither wrapped nor shared.
func TestTelemetryStoreChecks(t *testing.T) {
	tel, err := telemetry.New(telemetry.Providers{Tracer: sdktrace.NewTracerProvider()})
	if err != nil {
		t.Fatal(err)
	}
	app := &App{Name: "checks"}
	mem, err := NewServer(app, WithTelemetry(tel))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := mem.state.(*store.Memory); !ok || mem.sharedStore() {
		t.Errorf("the memory store with telemetry is %T (shared %v)", mem.state, mem.sharedStore())
	}

	r := testenv.StartRedis(t)
	st, err := store.Open(context.Background(), r.URL()+"/0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	s, err := NewServer(app, WithTelemetry(tel), WithStore(st))
	if err != nil {
		t.Fatal(err)
	}
	if s.state == st || !s.sharedStore() {
		t.Errorf("the Redis store with telemetry: %T (shared %v), want it wrapped and shared", s.state, s.sharedStore())
	}
	if err := s.storeHealth(); err != nil {
		t.Errorf("health with Redis up: %v", err)
	}
	r.Stop()
	for deadline := time.Now().Add(10 * time.Second); s.storeHealth() == nil; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the wrapped store reports no health problem with Redis stopped")
		}
	}
}
