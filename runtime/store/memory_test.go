package store_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/store"
	"github.com/mcpgen/mcpgen/runtime/store/storetest"
)

func TestMemoryContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		s, err := store.Open(context.Background(), "memory://")
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

func TestOpen(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct{ url, err string }{
		{"memory://", ""},
		{"memory:", ""},
		{"memory://host", "takes no host"},
		{"memory://?size=1", "takes no host, path or options"},
		{"nosuch://x", `no backend for scheme "nosuch"; registered: [memory]`},
		{"redis://user:secret@host:6379", "redis://user:xxxxx@host:6379"},
		{"localhost:6379", `no backend for scheme "localhost"`},
		{"", "has no scheme"},
	} {
		s, err := store.Open(ctx, c.url)
		if c.err == "" {
			if err != nil {
				t.Errorf("Open(%q): %v", c.url, err)
			} else {
				s.Close()
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("Open(%q) = %v; want an error containing %q", c.url, err, c.err)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("Open(%q) error shows the password: %v", c.url, err)
		}
	}
}

func TestRegisterTwicePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("a second Register of memory did not panic")
		}
	}()
	store.Register("memory", func(context.Context, *url.URL) (store.Store, error) { return nil, nil })
}
