package connector

import (
	"bytes"
	"testing"

	"github.com/mcpgen/mcpgen/connector/store"
)

// TestStateKeyFromStore checks that servers sharing a store sign
// requestState with one key (so a 2026 question asked on one replica is
// answered on another), that servers on stores of their own do not, and
// that WithStateKey wins over the store.
func TestStateKeyFromStore(t *testing.T) {
	shared := store.NewMemory(store.MemoryOptions{})
	newServer := func(opts ...Option) *Server {
		t.Helper()
		s, err := NewServer(&App{Name: "acme"}, opts...)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	a, b := newServer(WithStore(shared)), newServer(WithStore(shared))
	if len(a.stateKey) != stateKeySize || !bytes.Equal(a.stateKey, b.stateKey) {
		t.Errorf("servers sharing a store have keys %x and %x; want one key of %d bytes", a.stateKey, b.stateKey, stateKeySize)
	}
	state, err := a.signState(roundState{Tool: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.openState("t", state); err != nil {
		t.Errorf("a requestState signed by one server sharing the store is refused by the other: %v", err)
	}
	if c := newServer(); bytes.Equal(c.stateKey, a.stateKey) {
		t.Error("a server with a store of its own has the shared key")
	} else if _, err := c.openState("t", state); err == nil {
		t.Error("a server with another key accepted the requestState")
	}
	if d := newServer(WithStore(shared), WithStateKey([]byte("given"))); string(d.stateKey) != "given" {
		t.Errorf("WithStateKey was overridden by the store: %q", d.stateKey)
	}
}
