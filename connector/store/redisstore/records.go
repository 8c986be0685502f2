package redisstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcpgen/mcpgen/connector/store"
	"github.com/redis/go-redis/v9"
)

// records keeps store.Records as plain Redis strings, one command per
// operation: SET NX PX, SET PX, GET, GETDEL (Redis 6.2 or later), DEL.
// Each record is its own hash slot, so they spread over a cluster.
type records struct{ s *Store }

func (r *records) k(key string) string { return r.s.key("rec", tag("r", key)) }

func (r *records) Create(ctx context.Context, key string, data []byte, ttl time.Duration) error {
	ok, err := r.s.rdb.SetNX(ctx, r.k(key), data, expiry(ttl)).Result()
	if err != nil {
		return r.s.wrap(err)
	}
	if !ok {
		return fmt.Errorf("record %q: %w", key, store.ErrExists)
	}
	return nil
}

func (r *records) Put(ctx context.Context, key string, data []byte, ttl time.Duration) error {
	return r.s.wrap(r.s.rdb.Set(ctx, r.k(key), data, expiry(ttl)).Err())
}

func (r *records) Get(ctx context.Context, key string) ([]byte, error) {
	b, err := r.s.rdb.Get(ctx, r.k(key)).Bytes()
	return r.found(key, b, err)
}

func (r *records) Take(ctx context.Context, key string) ([]byte, error) {
	b, err := r.s.rdb.GetDel(ctx, r.k(key)).Bytes()
	return r.found(key, b, err)
}

func (r *records) Delete(ctx context.Context, key string) error {
	return r.s.wrap(r.s.rdb.Del(ctx, r.k(key)).Err())
}

// found maps Redis's nil reply to store.ErrNotFound.
func (r *records) found(key string, b []byte, err error) ([]byte, error) {
	if errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("record %q: %w", key, store.ErrNotFound)
	}
	if err != nil {
		return nil, r.s.wrap(err)
	}
	return b, nil
}

// expiry is a record's TTL as go-redis takes it: 0 keeps the key forever,
// as the contract reads ttl <= 0.
func expiry(ttl time.Duration) time.Duration {
	if ttl <= 0 {
		return 0
	}
	return ttl
}
