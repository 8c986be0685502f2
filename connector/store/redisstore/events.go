package redisstore

import (
	"context"
	"fmt"
	"iter"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"

	"github.com/mcpgen/mcpgen/connector/store"
)

// DefaultStreamEvents is how many events of one stream the Redis backend
// keeps for resumption; older ones are trimmed, and resuming before them
// is reported as mcp.ErrEventsPurged.
const DefaultStreamEvents = 256

// DefaultEventTTL is how long a session's events are kept after its last
// event: a session idle longer has nothing left to resume.
const DefaultEventTTL = time.Hour

// events keeps each session's streams in one hash (fields STREAM:first,
// STREAM:next and STREAM:INDEX) and one sorted set of its streams by last
// append, both under the session's hash tag: every operation is one script
// on one slot, and SessionClosed deletes two keys.
type events struct {
	s          *Store
	batch      batcher
	maxEvents  int
	maxStreams int
	ttl        time.Duration
}

var _ store.Events = (*events)(nil)

func (e *events) keys(session string) []string {
	t := tag("s", session)
	return []string{e.s.key(t, "events"), e.s.key(t, "streams")}
}

// openScript marks a stream as opened (first = next = 0) unless it is
// known, and drops the session's least recently used streams beyond
// ARGV[2]. ARGV: stream, max streams, ttl ms.
var openScript = redis.NewScript(`
local h, z, st = KEYS[1], KEYS[2], ARGV[1]
if redis.call('HSETNX', h, st .. ':first', 0) == 1 then
  redis.call('HSET', h, st .. ':next', 0)
end
` + openedLua + `
return 0`)

// openedLua marks stream st of hash h as the one used last in sorted set
// z, drops the session's least recently used streams beyond ARGV[2], and
// restarts both keys' TTL (ARGV[3] ms).
const openedLua = `
local now = redis.call('TIME')
redis.call('ZADD', z, tonumber(now[1]) * 1000000 + tonumber(now[2]), st)
local over = redis.call('ZCARD', z) - tonumber(ARGV[2])
if over > 0 then
  local popped = redis.call('ZPOPMIN', z, over)
  local gone = {}
  for k = 1, #popped, 2 do
    local old = popped[k]
    if old ~= st then
      local fn = redis.call('HMGET', h, old .. ':first', old .. ':next')
      local first, nxt = tonumber(fn[1]), tonumber(fn[2]) or 0
      if first ~= nil and first >= 0 then
        for i = first, nxt - 1 do gone[#gone + 1] = old .. ':' .. i end
      end
      gone[#gone + 1] = old .. ':first'
      gone[#gone + 1] = old .. ':next'
    end
  end
  for i = 1, #gone, 512 do
    redis.call('HDEL', h, unpack(gone, i, math.min(i + 511, #gone)))
  end
end
redis.call('PEXPIRE', h, ARGV[3])
redis.call('PEXPIRE', z, ARGV[3])`

// recordScript opens stream ARGV[1] as openScript does (ARGV[2], ARGV[3])
// and appends ARGV[5], ARGV[6], … to it as appendScript does, keeping
// ARGV[4] events; an empty event takes its index but no field (After
// reads a missing field as empty). It returns the stream's next index.
var recordScript = redis.NewScript(`
local h, z, st = KEYS[1], KEYS[2], ARGV[1]
local keep = tonumber(ARGV[4])
local fn = redis.call('HMGET', h, st .. ':first', st .. ':next')
local first, nxt = tonumber(fn[1]), 0
if first == nil then
  first = 0
else
  nxt = tonumber(fn[2]) or 0
end
local set = {}
for a = 5, #ARGV do
  if #ARGV[a] > 0 then
    set[#set + 1] = st .. ':' .. nxt
    set[#set + 1] = ARGV[a]
  end
  if first < 0 and nxt >= keep then redis.call('HDEL', h, st .. ':' .. (nxt - keep)) end
  nxt = nxt + 1
end
if first >= 0 and nxt - first > keep then
  local newfirst = nxt - keep
  for j = first, newfirst - 1 do redis.call('HDEL', h, st .. ':' .. j) end
  first = newfirst
end
set[#set + 1] = st .. ':first'
set[#set + 1] = first
set[#set + 1] = st .. ':next'
set[#set + 1] = nxt
redis.call('HSET', h, unpack(set))
` + openedLua + `
return nxt`)

// appendScript appends ARGV[2] to stream ARGV[1], trimming it to ARGV[3]
// events; a stream never opened (or dropped) gets first = -1: nothing of it
// can be resumed. ARGV[4]: ttl ms.
var appendScript = redis.NewScript(`
local h, z, st = KEYS[1], KEYS[2], ARGV[1]
local first = tonumber(redis.call('HGET', h, st .. ':first'))
if first == nil then
  first = -1
  redis.call('HSET', h, st .. ':first', -1, st .. ':next', 0)
end
local i = redis.call('HINCRBY', h, st .. ':next', 1) - 1
redis.call('HSET', h, st .. ':' .. i, ARGV[2])
local keep = tonumber(ARGV[3])
if first >= 0 and i - first + 1 > keep then
  local newfirst = i - keep + 1
  for j = first, newfirst - 1 do redis.call('HDEL', h, st .. ':' .. j) end
  redis.call('HSET', h, st .. ':first', newfirst)
elseif first < 0 and i >= keep then
  redis.call('HDEL', h, st .. ':' .. (i - keep))
end
local now = redis.call('TIME')
redis.call('ZADD', z, tonumber(now[1]) * 1000000 + tonumber(now[2]), st)
redis.call('PEXPIRE', h, ARGV[4])
redis.call('PEXPIRE', z, ARGV[4])
return i`)

// afterScript returns {status, events...}: status 1 when the events after
// ARGV[2] are all kept, 0 when the stream is unknown or trimmed past them.
var afterScript = redis.NewScript(`
local h, st, index = KEYS[1], ARGV[1], tonumber(ARGV[2])
local first = tonumber(redis.call('HGET', h, st .. ':first'))
if first == nil or first < 0 or index + 1 < first then return {0} end
local nxt = tonumber(redis.call('HGET', h, st .. ':next')) or 0
local out = {1}
for i = index + 1, nxt - 1 do
  out[#out + 1] = redis.call('HGET', h, st .. ':' .. i) or ''
end
return out`)

func (e *events) Open(ctx context.Context, sessionID, streamID string) error {
	return e.s.wrap(e.batch.run(ctx, openScript, e.keys(sessionID), streamID, e.maxStreams, e.ttl.Milliseconds()))
}

func (e *events) Append(ctx context.Context, sessionID, streamID string, data []byte) error {
	return e.s.wrap(e.batch.run(ctx, appendScript, e.keys(sessionID), streamID, data, e.maxEvents, e.ttl.Milliseconds()))
}

func (e *events) Record(ctx context.Context, sessionID, streamID string, data ...[]byte) error {
	return e.s.wrap(e.batch.run(ctx, recordScript, e.keys(sessionID), e.recordArgs(streamID, data)...))
}

// RecordLater queues the write behind, for the next batch (within the
// store's write_behind linger); with write_behind=0 it is Record.
func (e *events) RecordLater(ctx context.Context, sessionID, streamID string, done func(error), data ...[]byte) {
	if e.batch.linger <= 0 {
		done(e.Record(ctx, sessionID, streamID, data...))
		return
	}
	e.batch.later(recordScript, e.keys(sessionID), func(err error) { done(e.s.wrap(err)) }, e.recordArgs(streamID, data)...)
}

func (e *events) recordArgs(streamID string, data [][]byte) []any {
	args := make([]any, 0, 4+len(data))
	args = append(args, streamID, e.maxStreams, e.ttl.Milliseconds(), e.maxEvents)
	for _, d := range data {
		args = append(args, d)
	}
	return args
}

func (e *events) After(ctx context.Context, sessionID, streamID string, index int) iter.Seq2[[]byte, error] {
	return func(yield func([]byte, error) bool) {
		r, err := afterScript.Run(ctx, e.s.rdb, e.keys(sessionID)[:1], streamID, index).Slice()
		if err != nil {
			yield(nil, e.s.wrap(err))
			return
		}
		if len(r) == 0 || r[0] != int64(1) {
			yield(nil, fmt.Errorf("events of stream %q of session %q after %d are no longer kept: %w", streamID, sessionID, index, mcp.ErrEventsPurged))
			return
		}
		for _, d := range r[1:] {
			s, _ := d.(string)
			if !yield([]byte(s), nil) {
				return
			}
		}
	}
}

func (e *events) SessionClosed(ctx context.Context, sessionID string) error {
	return e.s.wrap(e.s.rdb.Del(ctx, e.keys(sessionID)...).Err())
}
