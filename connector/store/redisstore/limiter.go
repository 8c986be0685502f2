package redisstore

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpgen/mcpgen/connector/store"
)

type limiter struct{ s *Store }

// takeScript is a token bucket in one hash (tokens, t in microseconds of
// the Redis server's clock, so replicas' clocks do not matter). ARGV: n,
// size, per in microseconds. Returns {1, 0} when n tokens were taken, else
// {0, microseconds until they would be there}.
var takeScript = redis.NewScript(`
local n, size, per = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local now = redis.call('TIME')
now = tonumber(now[1]) * 1000000 + tonumber(now[2])
local b = redis.call('HMGET', KEYS[1], 'tokens', 't')
local tokens, t = tonumber(b[1]), tonumber(b[2])
if tokens == nil or t == nil then tokens, t = size, now end
if now > t then tokens = math.min(size, tokens + (now - t) * size / per) end
if n > size then return {0, per} end
if tokens >= n then
  tokens = tokens - n
  redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 't', tostring(now))
  redis.call('PEXPIRE', KEYS[1], math.ceil(per / 1000) + 1000)
  return {1, 0}
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 't', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(per / 1000) + 1000)
return {0, math.max(1, math.ceil((n - tokens) * per / size))}`)

func (l *limiter) Take(ctx context.Context, key string, n int, b store.Bucket) (bool, time.Duration, error) {
	per := max(b.Per.Microseconds(), 1)
	r, err := takeScript.Run(ctx, l.s.rdb, []string{l.s.key("bucket", tag("b", key))}, n, b.Size, per).Int64Slice()
	if err != nil {
		return false, 0, l.s.wrap(err)
	}
	if r[0] == 1 {
		return true, 0, nil
	}
	return false, time.Duration(r[1]) * time.Microsecond, nil
}
