package redisstore_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/connector/store"
	"github.com/mcpgen/mcpgen/internal/testenv"
)

// BenchmarkStore compares one operation of each hot path on the memory
// backend and on a local redis-server (loopback): a rate-limited call's
// Take, a session request's Touch, a session answer's Record and a
// stream event's Append.
//
//	go test ./connector/store/redisstore -run '^$' -bench . -benchtime 1s -benchmem
func BenchmarkStore(b *testing.B) {
	r := testenv.StartRedis(b)
	for _, url := range []string{"memory://", r.URL()} {
		st, err := store.Open(context.Background(), url)
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		ctx := context.Background()
		name, _, _ := strings.Cut(url, ":")
		b.Run("Take/"+name, func(b *testing.B) {
			bucket := store.Bucket{Size: 1 << 30, Per: time.Hour}
			for i := 0; b.Loop(); i++ {
				if _, _, err := st.Limiter().Take(ctx, fmt.Sprint("k", i%100), 1, bucket); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("Touch/"+name, func(b *testing.B) {
			if err := st.Sessions().Create(ctx, store.Session{ID: "bench", Data: make([]byte, 512)}, time.Hour); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if err := st.Sessions().Touch(ctx, "bench", time.Hour); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("Record/"+name, func(b *testing.B) {
			// A session answer's events: a priming event and the result.
			ev := st.Events()
			data := make([]byte, 256)
			for i := 0; b.Loop(); i++ {
				if err := ev.Record(ctx, "bench", fmt.Sprint(i), nil, data); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("Append/"+name, func(b *testing.B) {
			ev := st.Events()
			if err := ev.Open(ctx, "bench", "0"); err != nil {
				b.Fatal(err)
			}
			data := make([]byte, 256)
			for b.Loop() {
				if err := ev.Append(ctx, "bench", "0", data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
