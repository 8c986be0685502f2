package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpgen/mcpgen/connector/store"
)

type sessions struct{ s *Store }

// sessionKey is the record of session id; every key of one session shares
// its hash tag.
func (s *Store) sessionKey(id string) string { return s.key(tag("s", id), "session") }

func (ss *sessions) Create(ctx context.Context, rec store.Session, ttl time.Duration) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	ok, err := ss.s.rdb.SetNX(ctx, ss.s.sessionKey(rec.ID), b, max(ttl, 0)).Result()
	if err != nil {
		return ss.s.wrap(err)
	}
	if !ok {
		return fmt.Errorf("session %q: %w", rec.ID, store.ErrExists)
	}
	return nil
}

func (ss *sessions) Get(ctx context.Context, id string) (store.Session, error) {
	b, err := ss.s.rdb.Get(ctx, ss.s.sessionKey(id)).Bytes()
	if errors.Is(err, redis.Nil) {
		return store.Session{}, fmt.Errorf("session %q: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return store.Session{}, ss.s.wrap(err)
	}
	var rec store.Session
	if err := json.Unmarshal(b, &rec); err != nil {
		return store.Session{}, fmt.Errorf("session %q: the record in %s is not one this connector wrote: %v", id, ss.s.where, err)
	}
	return rec, nil
}

func (ss *sessions) Put(ctx context.Context, rec store.Session, ttl time.Duration) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	ok, err := ss.s.rdb.SetXX(ctx, ss.s.sessionKey(rec.ID), b, max(ttl, 0)).Result()
	if err != nil {
		return ss.s.wrap(err)
	}
	if !ok {
		return fmt.Errorf("session %q: %w", rec.ID, store.ErrNotFound)
	}
	return nil
}

func (ss *sessions) Touch(ctx context.Context, id string, ttl time.Duration) error {
	k := ss.s.sessionKey(id)
	var ok bool
	var err error
	if ttl > 0 {
		ok, err = ss.s.rdb.PExpire(ctx, k, ttl).Result()
	} else {
		// PERSIST answers 0 for a key without a TTL too; ask whether it is
		// there in the same round trip.
		var n int64
		n, err = touchNoExpiry.Run(ctx, ss.s.rdb, []string{k}).Int64()
		ok = n == 1
	}
	if err != nil {
		return ss.s.wrap(err)
	}
	if !ok {
		return fmt.Errorf("session %q: %w", id, store.ErrNotFound)
	}
	return nil
}

var touchNoExpiry = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('PERSIST', KEYS[1])
return 1`)

func (ss *sessions) Delete(ctx context.Context, id string) error {
	return ss.s.wrap(ss.s.rdb.Del(ctx, ss.s.sessionKey(id)).Err())
}
