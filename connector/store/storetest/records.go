package storetest

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/connector/store"
)

func testSecrets(t *testing.T, st store.Store) {
	ctx := context.Background()
	s := st.Secrets()
	name := id(t, "key")
	var wg sync.WaitGroup
	keys := make([][]byte, 16)
	for i := range keys {
		wg.Go(func() {
			k, err := s.Key(ctx, name, 32)
			if err != nil {
				t.Error(err)
			}
			keys[i] = k
		})
	}
	wg.Wait()
	if len(keys[0]) != 32 || bytes.Equal(keys[0], make([]byte, 32)) {
		t.Fatalf("key = %x; want 32 random bytes", keys[0])
	}
	for _, k := range keys[1:] {
		if !bytes.Equal(k, keys[0]) {
			t.Fatalf("racing first calls got different keys: %x and %x", keys[0], k)
		}
	}
	keys[0][0] ^= 0xff // the caller's copy
	if again, _ := s.Key(ctx, name, 16); !bytes.Equal(again, keys[1]) {
		t.Errorf("a later call (with another size) got %x, want %x", again, keys[1])
	}
	if other, _ := s.Key(ctx, id(t, "other"), 32); bytes.Equal(other, keys[1]) {
		t.Error("two names share one key")
	}
}

func testRecords(t *testing.T, st store.Store) {
	ctx := context.Background()
	r := st.Records()
	key := id(t, "rec")
	if _, err := r.Get(ctx, key); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get of a missing record: %v; want ErrNotFound", err)
	}
	data := []byte("one")
	if err := r.Create(ctx, key, data, time.Minute); err != nil {
		t.Fatalf("Create: %v", err)
	}
	data[0] = 'X' // the caller's slice is not the stored one
	if err := r.Create(ctx, key, []byte("two"), time.Minute); !errors.Is(err, store.ErrExists) {
		t.Fatalf("second Create: %v; want ErrExists", err)
	}
	got, err := r.Get(ctx, key)
	if err != nil || string(got) != "one" {
		t.Fatalf("Get = %q, %v; want \"one\"", got, err)
	}
	got[0] = 'Y'
	if err := r.Put(ctx, key, []byte("three"), time.Minute); err != nil {
		t.Fatalf("Put: %v", err)
	}
	if got, err := r.Get(ctx, key); err != nil || string(got) != "three" {
		t.Fatalf("Get after Put = %q, %v; want \"three\"", got, err)
	}
	if got, err := r.Take(ctx, key); err != nil || string(got) != "three" {
		t.Fatalf("Take = %q, %v; want \"three\"", got, err)
	}
	if _, err := r.Take(ctx, key); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("second Take: %v; want ErrNotFound", err)
	}
	if _, err := r.Get(ctx, key); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get after Take: %v; want ErrNotFound", err)
	}
	if err := r.Create(ctx, key, []byte("again"), 0); err != nil {
		t.Fatalf("Create after Take: %v", err)
	}
	if err := r.Delete(ctx, key); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if err := r.Delete(ctx, key); err != nil {
		t.Fatalf("Delete of a missing record: %v", err)
	}
	if _, err := r.Get(ctx, key); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get after Delete: %v; want ErrNotFound", err)
	}
}

func testRecordsTakeRace(t *testing.T, st store.Store) {
	ctx := context.Background()
	r := st.Records()
	key := id(t, "code")
	if err := r.Create(ctx, key, []byte("code"), time.Minute); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var won atomic.Int64
	for range 16 {
		wg.Go(func() {
			_, err := r.Take(ctx, key)
			switch {
			case err == nil:
				won.Add(1)
			case !errors.Is(err, store.ErrNotFound):
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := won.Load(); n != 1 {
		t.Fatalf("%d of 16 racing Takes got the record; want exactly 1", n)
	}
}

func testRecordsExpire(t *testing.T, st store.Store) {
	ctx := context.Background()
	r := st.Records()
	key := id(t, "short")
	if err := r.Create(ctx, key, []byte("x"), 50*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a record past its TTL is gone", func() bool {
		_, err := r.Get(ctx, key)
		return errors.Is(err, store.ErrNotFound)
	})
	if _, err := r.Take(ctx, key); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Take of an expired record: %v; want ErrNotFound", err)
	}
	if err := r.Create(ctx, key, []byte("y"), time.Minute); err != nil {
		t.Fatalf("Create over an expired record: %v", err)
	}
}
