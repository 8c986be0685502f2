// Package redisstore is the Redis backend of package store: replicas of a
// connector given the same redis:// or rediss:// URL share their sessions,
// resumption events, notifications, rate-limit buckets, task records and
// secrets. A connector opts in by importing it for its side effect, which
// registers the "redis" and "rediss" schemes with store.Register:
//
//	import _ "github.com/mcpgen/mcpgen/connector/store/redisstore"
//
// URLs are those of go-redis's ParseURL (redis://[user:pass@]host:port[/db],
// with its options such as dial_timeout=3s as query parameters), plus
//
//   - cluster=true: the address is one node of a Redis Cluster (more nodes
//     may be given as addr=host:port parameters);
//   - prefix=P: every key starts with P (default "mcpgen:"), so that
//     several connectors can share one Redis;
//   - write_behind=DURATION: how long a write behind (Events.RecordLater:
//     a session answer already written to its client) may wait to go to
//     Redis with others, in one round trip (default DefaultWriteBehind;
//     0: each is sent at once and its caller waits for it);
//   - max_tasks=N: how many task records that have not expired one owner
//     (a verified subject; without auth, everyone) may have (default
//     store.DefaultMaxTasks); past it, creating a task fails with
//     store.ErrFull.
//
// Every key of one session (its record and its event streams) carries the
// session id as a Redis Cluster hash tag, so the operations on one session
// stay in one hash slot; every operation that must be atomic (taking from
// a bucket, moving a task, get-or-create of a secret) is one command or one
// Lua script on one key or one slot, and so one round trip. Event writes
// of concurrent requests share their round trips (one pipeline), and a
// session answer's events, already written to the client, may wait up to
// write_behind to go with others.
//
// The store failing is survived, not fatal: commands time out quickly
// (DefaultTimeout) with an error naming Redis, the client reconnects by
// itself, and Health reports the state, logged once per change.
package redisstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpgen/mcpgen/connector/store"
)

// DefaultTimeout bounds dialing Redis and each command when the URL does
// not say otherwise: what needs the store fails fast while Redis is down.
const DefaultTimeout = 2 * time.Second

// DefaultWriteBehind is how long a write behind waits for others to go
// to Redis with, unless the URL's write_behind parameter says otherwise:
// a session answer's events are readable from other replicas at most
// about this (and a round trip) after the answer was written.
const DefaultWriteBehind = 2 * time.Millisecond

// DefaultPrefix starts every key unless the URL's prefix parameter says
// otherwise.
const DefaultPrefix = "mcpgen:"

func init() {
	store.Register("redis", open)
	store.Register("rediss", open)
}

// Store is the Redis backend.
type Store struct {
	rdb    redis.UniversalClient
	prefix string
	where  string // the URL without its password, for messages

	sessions sessions
	events   events
	bus      bus
	limiter  limiter
	tasks    tasks
	secrets  secrets
	records  records

	stop     context.CancelFunc
	watcher  sync.WaitGroup
	healthMu sync.Mutex
	health   error
}

var _ store.Store = (*Store)(nil)

func open(ctx context.Context, u *url.URL) (store.Store, error) {
	return Open(ctx, u)
}

// Open connects to the Redis named by u. It does not wait for Redis to be
// up: a connector starts while Redis restarts, and what needs the store
// fails until it is back.
func Open(ctx context.Context, u *url.URL) (*Store, error) {
	where := u.Redacted()
	q := u.Query()
	prefix := DefaultPrefix
	if q.Has("prefix") {
		prefix = q.Get("prefix")
		q.Del("prefix")
	}
	cluster := false
	if q.Has("cluster") {
		switch q.Get("cluster") {
		case "true", "1":
			cluster = true
		case "false", "0":
		default:
			return nil, fmt.Errorf("store URL %s: cluster=%q: want true or false", where, q.Get("cluster"))
		}
		q.Del("cluster")
	}
	maxTasks := store.DefaultMaxTasks
	if q.Has("max_tasks") {
		n, err := strconv.Atoi(q.Get("max_tasks"))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("store URL %s: max_tasks=%q: want a positive number of tasks", where, q.Get("max_tasks"))
		}
		maxTasks = n
		q.Del("max_tasks")
	}
	writeBehind := DefaultWriteBehind
	if q.Has("write_behind") {
		d, err := time.ParseDuration(q.Get("write_behind"))
		if err != nil || d < 0 || d > time.Second {
			return nil, fmt.Errorf("store URL %s: write_behind=%q: want a duration from 0 to 1s, such as 1ms", where, q.Get("write_behind"))
		}
		writeBehind = d
		q.Del("write_behind")
	}
	if !q.Has("dial_timeout") {
		q.Set("dial_timeout", DefaultTimeout.String())
	}
	for _, k := range []string{"read_timeout", "write_timeout", "pool_timeout"} {
		if !q.Has(k) {
			q.Set(k, DefaultTimeout.String())
		}
	}
	if !q.Has("max_retries") {
		q.Set("max_retries", "1")
	}
	v := *u
	v.RawQuery = q.Encode()
	var rdb redis.UniversalClient
	if cluster {
		opt, err := redis.ParseClusterURL(v.String())
		if err != nil {
			return nil, fmt.Errorf("store URL %s: %v", where, scrub(err, u))
		}
		rdb = redis.NewClusterClient(opt)
	} else {
		opt, err := redis.ParseURL(v.String())
		if err != nil {
			return nil, fmt.Errorf("store URL %s: %v", where, scrub(err, u))
		}
		rdb = redis.NewClient(opt)
	}
	s := &Store{rdb: rdb, prefix: prefix, where: where}
	s.sessions = sessions{s}
	s.events = events{s: s, batch: batcher{rdb: rdb, linger: writeBehind}, maxEvents: DefaultStreamEvents, maxStreams: store.DefaultEventStreams, ttl: DefaultEventTTL}
	s.bus = bus{s}
	s.limiter = limiter{s}
	s.tasks = tasks{s: s, max: maxTasks}
	s.secrets = secrets{s}
	s.records = records{s}
	wctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	s.stop = stop
	s.health = s.ping(wctx)
	if s.health != nil {
		slog.Warn("store: Redis is not reachable yet; what needs the store fails until it is", "store", where, "err", s.health)
	}
	s.watcher.Go(func() { s.watch(wctx) })
	return s, nil
}

// scrub removes u's password from a parse error.
func scrub(err error, u *url.URL) string {
	msg := err.Error()
	if p, ok := u.User.Password(); ok && p != "" {
		msg = strings.ReplaceAll(msg, p, "xxxxx")
	}
	return msg
}

func (s *Store) ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, DefaultTimeout)
	defer cancel()
	if err := s.rdb.Ping(ctx).Err(); err != nil {
		return s.wrap(err)
	}
	return nil
}

// watch pings Redis every second and logs each change of reachability once.
func (s *Store) watch(ctx context.Context) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		err := s.ping(ctx)
		if ctx.Err() != nil {
			return
		}
		s.healthMu.Lock()
		was := s.health
		s.health = err
		s.healthMu.Unlock()
		switch {
		case was == nil && err != nil:
			slog.Error("store: lost Redis; what needs the store fails until it is back", "store", s.where, "err", err)
		case was != nil && err == nil:
			slog.Info("store: Redis is reachable again", "store", s.where)
		}
	}
}

// Health reports whether Redis answered the last ping (within a second or
// so): nil, or an error saying what is wrong, for /healthz.
func (s *Store) Health() error {
	s.healthMu.Lock()
	defer s.healthMu.Unlock()
	return s.health
}

// DBSystem names the backend as OpenTelemetry's db.system.name does, for
// the spans of its round trips (package telemetry).
func (s *Store) DBSystem() string { return "redis" }

// wrap names Redis in an error from the client.
func (s *Store) wrap(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("store %s: %w", s.where, err)
}

// key returns a key under the store's prefix.
func (s *Store) key(parts ...string) string {
	return s.prefix + strings.Join(parts, ":")
}

// tag returns a Redis Cluster hash tag for id: keys holding the same tag
// share a hash slot. Braces in ids would end the tag early, so they are
// replaced.
func tag(kind, id string) string {
	if strings.ContainsAny(id, "{}") {
		id = braces.Replace(id)
	}
	return "{" + kind + ":" + id + "}"
}

var braces = strings.NewReplacer("{", "(", "}", ")")

func (s *Store) Sessions() store.Sessions { return &s.sessions }
func (s *Store) Events() store.Events     { return &s.events }
func (s *Store) Bus() store.Bus           { return &s.bus }
func (s *Store) Limiter() store.Limiter   { return &s.limiter }
func (s *Store) Tasks() store.Tasks       { return &s.tasks }
func (s *Store) Secrets() store.Secrets   { return &s.secrets }
func (s *Store) Records() store.Records   { return &s.records }

// Close sends the writes behind still queued, stops the health watcher
// and closes the connections.
func (s *Store) Close() error {
	s.events.batch.drain()
	s.stop()
	s.watcher.Wait()
	err := s.rdb.Close()
	if errors.Is(err, redis.ErrClosed) {
		err = nil
	}
	return err
}
