package redisstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpgen/mcpgen/connector/store"
)

// tasks keeps each task in one hash under its own hash tag, and each
// owner's task ids in a sorted set scored by when they expire: the set
// says how many live tasks the owner has (the bound, max) and List reads
// it; ids of expired tasks leave it when the next task is indexed.
type tasks struct {
	s   *Store
	max int // live tasks per owner
}

func (ts *tasks) taskKey(id string) string     { return ts.s.key(tag("t", id), "task") }
func (ts *tasks) ownerKey(owner string) string { return ts.s.key(tag("o", owner), "tasks") }

// createTask stores the hash ARGV (field, value pairs) unless KEYS[1]
// exists, expiring at ARGV[1] (unix ms).
var createTask = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('PEXPIREAT', KEYS[1], ARGV[1])
return 1`)

// indexTask adds ARGV[2] to the owner's set with score ARGV[1] (when it
// expires, unix ms), after dropping the ids that expired by ARGV[3] (now),
// unless the owner already has ARGV[4] live tasks (returns 0). It keeps the
// set until its last task expires, and returns 1 when it added the id, 2
// when the id was there already.
var indexTask = redis.NewScript(`
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
if redis.call('ZSCORE', KEYS[1], ARGV[2]) then return 2 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[1], last[2])
return 1`)

// updateTask applies an update unless the task is gone (returns {0}),
// final (returns {2, fields...}) or not in the state the update expects
// (returns {3, fields...}); else returns {1, fields...}. ARGV: status,
// message, has result, result, has input, input, lease, updated, if
// status, if lease before (unix ms, 0 for none).
var updateTask = redis.NewScript(`
local st = redis.call('HGET', KEYS[1], 'status')
if not st then return {0} end
if st == 'completed' or st == 'failed' or st == 'cancelled' then
  return {2, redis.call('HGETALL', KEYS[1])}
end
if ARGV[9] ~= '' and st ~= ARGV[9] then return {3, redis.call('HGETALL', KEYS[1])} end
if ARGV[10] ~= '0' then
  local l = tonumber(redis.call('HGET', KEYS[1], 'lease') or '0') or 0
  if l == 0 or l >= tonumber(ARGV[10]) then return {3, redis.call('HGETALL', KEYS[1])} end
end
if ARGV[1] ~= '' then st = ARGV[1] end
redis.call('HSET', KEYS[1], 'status', st, 'updated', ARGV[8])
if ARGV[2] ~= '' then redis.call('HSET', KEYS[1], 'message', ARGV[2]) end
if ARGV[3] == '1' then redis.call('HSET', KEYS[1], 'result', ARGV[4]) end
if ARGV[5] == '1' then redis.call('HSET', KEYS[1], 'input', ARGV[6]) end
if st ~= 'input_required' then redis.call('HDEL', KEYS[1], 'input') end
if ARGV[7] ~= '0' then redis.call('HSET', KEYS[1], 'lease', ARGV[7]) end
return {1, redis.call('HGETALL', KEYS[1])}`)

func (ts *tasks) Create(ctx context.Context, t store.Task) error {
	if t.TTL <= 0 {
		return fmt.Errorf("store: task %q needs a TTL", t.ID)
	}
	now := time.Now()
	if t.Created.IsZero() {
		t.Created = now
	}
	if t.Updated.IsZero() {
		t.Updated = now
	}
	if t.Status == "" {
		t.Status = store.TaskWorking
	}
	expires := t.Created.Add(t.TTL)
	args := []any{expires.UnixMilli(),
		"id", t.ID, "owner", t.Owner, "status", string(t.Status), "message", t.Message,
		"created", t.Created.UnixNano(), "updated", t.Updated.UnixNano(), "ttl", int64(t.TTL), "lease", leaseMillis(t.Lease)}
	if t.Result != nil {
		args = append(args, "result", t.Result)
	}
	if t.Input != nil && t.Status == store.TaskInputRequired {
		args = append(args, "input", t.Input)
	}
	// The owner's index first: it is where the bound is kept, and an id
	// indexed without its record (Redis failing in between) only takes
	// room until it expires.
	ok := ts.ownerKey(t.Owner)
	added, err := indexTask.Run(ctx, ts.s.rdb, []string{ok}, expires.UnixMilli(), t.ID, now.UnixMilli(), ts.max).Int()
	if err != nil {
		return ts.s.wrap(err)
	}
	if added == 0 {
		return fmt.Errorf("%w: the owner of task %q has %d tasks that have not expired; try again later", store.ErrFull, t.ID, ts.max)
	}
	created, err := createTask.Run(ctx, ts.s.rdb, []string{ts.taskKey(t.ID)}, args...).Int()
	if err != nil || created == 0 {
		if added == 1 {
			ts.s.rdb.ZRem(ctx, ok, t.ID) // best effort: else it expires
		}
		if err != nil {
			return ts.s.wrap(err)
		}
		return fmt.Errorf("task %q: %w", t.ID, store.ErrExists)
	}
	return nil
}

func leaseMillis(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// parseTask reads a task hash.
func parseTask(m map[string]string) store.Task {
	num := func(k string) int64 { n, _ := strconv.ParseInt(m[k], 10, 64); return n }
	t := store.Task{
		ID:      m["id"],
		Owner:   m["owner"],
		Status:  store.TaskStatus(m["status"]),
		Message: m["message"],
		Created: time.Unix(0, num("created")),
		Updated: time.Unix(0, num("updated")),
		TTL:     time.Duration(num("ttl")),
	}
	if r, ok := m["result"]; ok {
		t.Result = []byte(r)
	}
	if in, ok := m["input"]; ok {
		t.Input = []byte(in)
	}
	if l := num("lease"); l != 0 {
		t.Lease = time.UnixMilli(l)
	}
	return t
}

func pairs(v []any) map[string]string {
	m := make(map[string]string, len(v)/2)
	for i := 0; i+1 < len(v); i += 2 {
		k, _ := v[i].(string)
		val, _ := v[i+1].(string)
		m[k] = val
	}
	return m
}

func (ts *tasks) Get(ctx context.Context, id string) (store.Task, error) {
	m, err := ts.s.rdb.HGetAll(ctx, ts.taskKey(id)).Result()
	if err != nil {
		return store.Task{}, ts.s.wrap(err)
	}
	if len(m) == 0 {
		return store.Task{}, fmt.Errorf("task %q: %w", id, store.ErrNotFound)
	}
	return parseTask(m), nil
}

func (ts *tasks) Update(ctx context.Context, id string, u store.TaskUpdate) (store.Task, error) {
	flag := func(b []byte) string {
		if b != nil {
			return "1"
		}
		return "0"
	}
	r, err := updateTask.Run(ctx, ts.s.rdb, []string{ts.taskKey(id)},
		string(u.Status), u.Message, flag(u.Result), u.Result, flag(u.Input), u.Input,
		leaseMillis(u.Lease), time.Now().UnixNano(), string(u.IfStatus), leaseMillis(u.IfLeaseBefore)).Slice()
	if err != nil {
		return store.Task{}, ts.s.wrap(err)
	}
	if len(r) < 2 {
		return store.Task{}, fmt.Errorf("task %q: %w", id, store.ErrNotFound)
	}
	fields, _ := r[1].([]any)
	t := parseTask(pairs(fields))
	switch r[0] {
	case int64(2):
		return t, fmt.Errorf("task %q is %s: %w", id, t.Status, store.ErrFinal)
	case int64(3):
		return t, fmt.Errorf("task %q is not in the state the update expects: %w", id, store.ErrConflict)
	}
	return t, nil
}

func (ts *tasks) List(ctx context.Context, owner, cursor string, limit int) ([]store.Task, string, error) {
	start := 0
	if cursor != "" {
		i, err := strconv.Atoi(cursor)
		if err != nil || i < 0 {
			return nil, "", fmt.Errorf("store: invalid task list cursor %q", cursor)
		}
		start = i
	}
	ok := ts.ownerKey(owner)
	ids, err := ts.s.rdb.ZRange(ctx, ok, 0, -1).Result()
	if err != nil {
		return nil, "", ts.s.wrap(err)
	}
	// One pipeline; a cluster client splits it by slot.
	pipe := ts.s.rdb.Pipeline()
	cmds := make([]*redis.MapStringStringCmd, len(ids))
	for i, id := range ids {
		cmds[i] = pipe.HGetAll(ctx, ts.taskKey(id))
	}
	if len(ids) > 0 {
		if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
			return nil, "", ts.s.wrap(err)
		}
	}
	var own []store.Task
	var gone []any
	for i, c := range cmds {
		m := c.Val()
		if len(m) == 0 {
			gone = append(gone, ids[i])
			continue
		}
		if t := parseTask(m); t.Owner == owner {
			own = append(own, t)
		}
	}
	if len(gone) > 0 {
		ts.s.rdb.ZRem(ctx, ok, gone...) // pruning; the next List retries
	}
	slices.SortFunc(own, func(a, b store.Task) int {
		if c := b.Created.Compare(a.Created); c != 0 {
			return c
		}
		if a.ID < b.ID {
			return -1
		}
		return 1
	})
	if start > len(own) {
		return nil, "", fmt.Errorf("store: invalid task list cursor %q", cursor)
	}
	own = own[start:]
	next := ""
	if limit > 0 && len(own) > limit {
		own = own[:limit]
		next = strconv.Itoa(start + limit)
	}
	return own, next, nil
}
