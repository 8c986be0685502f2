package redisstore

import (
	"context"
	"crypto/rand"
	"fmt"

	"github.com/redis/go-redis/v9"
)

type secrets struct{ s *Store }

// getOrCreate sets KEYS[1] to ARGV[1] unless it is set, and returns its
// value: one atomic round trip, so racing first calls agree.
var getOrCreate = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if v then return v end
redis.call('SET', KEYS[1], ARGV[1])
return ARGV[1]`)

func (sc *secrets) Key(ctx context.Context, name string, size int) ([]byte, error) {
	if size <= 0 {
		return nil, fmt.Errorf("store: secret %q needs a size", name)
	}
	k := make([]byte, size)
	rand.Read(k)
	v, err := getOrCreate.Run(ctx, sc.s.rdb, []string{sc.s.key("secret", tag("k", name))}, k).Text()
	if err != nil {
		return nil, sc.s.wrap(err)
	}
	return []byte(v), nil
}
