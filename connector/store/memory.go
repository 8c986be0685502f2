package store

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

func init() {
	Register("memory", func(_ context.Context, u *url.URL) (Store, error) {
		if u.Host != "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
			return nil, fmt.Errorf("store URL %q: the memory backend takes no host, path or options; use memory://", redact(u))
		}
		return NewMemory(MemoryOptions{}), nil
	})
}

// MemoryOptions configures NewMemory. The zero value is the default.
type MemoryOptions struct {
	// Now is the clock of TTLs and buckets (time.Now when nil).
	Now func() time.Time
	// EventBytes and EventStreams bound the event store (see
	// NewMemoryEvents).
	EventBytes, EventStreams int
	// MaxBuckets bounds the limiter's buckets (DefaultMaxBuckets when 0);
	// past it, full buckets are forgotten first.
	MaxBuckets int
	// MaxTasks bounds the task records (DefaultMaxTasks when 0); past it,
	// Create evicts finished tasks, oldest first, and fails when every one
	// is still running.
	MaxTasks int
	// MaxRecords bounds the records (DefaultMaxRecords when 0); past it,
	// Create and Put fail once expired records are swept.
	MaxRecords int
}

// DefaultMaxBuckets is how many rate-limit buckets the memory backend
// keeps.
const DefaultMaxBuckets = 10_000

// DefaultMaxRecords is how many records the memory backend keeps.
const DefaultMaxRecords = 100_000

// DefaultMaxTasks is how many task records the memory backend keeps.
const DefaultMaxTasks = 10_000

// NewMemory returns the in-process backend (scheme "memory"): the state of
// one process, as a connector keeps it when no store is configured.
func NewMemory(o MemoryOptions) *Memory {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MaxBuckets <= 0 {
		o.MaxBuckets = DefaultMaxBuckets
	}
	if o.MaxTasks <= 0 {
		o.MaxTasks = DefaultMaxTasks
	}
	if o.MaxRecords <= 0 {
		o.MaxRecords = DefaultMaxRecords
	}
	return &Memory{
		events:   NewMemoryEvents(o.EventBytes, o.EventStreams),
		sessions: &memSessions{now: o.Now, m: map[string]memSession{}},
		bus:      &memBus{subs: map[string]map[*memSub]struct{}{}},
		limiter:  &memLimiter{now: o.Now, max: o.MaxBuckets, m: map[string]*rate.Limiter{}},
		tasks:    &memTasks{now: o.Now, max: o.MaxTasks, m: map[string]*Task{}},
		secrets:  &memSecrets{m: map[string][]byte{}},
		records:  &memRecords{now: o.Now, max: o.MaxRecords, m: map[string]memRecord{}},
	}
}

// Memory is the in-process backend. Its state lives as long as the value.
type Memory struct {
	events   *MemoryEvents
	sessions *memSessions
	bus      *memBus
	limiter  *memLimiter
	tasks    *memTasks
	secrets  *memSecrets
	records  *memRecords
}

var _ Store = (*Memory)(nil)

func (m *Memory) Sessions() Sessions { return m.sessions }
func (m *Memory) Events() Events     { return m.events }
func (m *Memory) Bus() Bus           { return m.bus }
func (m *Memory) Limiter() Limiter   { return m.limiter }
func (m *Memory) Tasks() Tasks       { return m.tasks }
func (m *Memory) Secrets() Secrets   { return m.secrets }
func (m *Memory) Records() Records   { return m.records }

// Close ends every bus subscription.
func (m *Memory) Close() error {
	m.bus.closeAll()
	return nil
}

// expiry returns when a TTL started at now runs out; zero for none.
func expiry(now time.Time, ttl time.Duration) time.Time {
	if ttl <= 0 {
		return time.Time{}
	}
	return now.Add(ttl)
}

func expired(deadline, now time.Time) bool {
	return !deadline.IsZero() && !now.Before(deadline)
}

// Sessions.

type memSession struct {
	s        Session
	deadline time.Time
}

type memSessions struct {
	now func() time.Time
	mu  sync.Mutex
	m   map[string]memSession
}

// live returns the session, dropping it when expired. Requires mu.
func (ms *memSessions) live(id string, now time.Time) (memSession, bool) {
	e, ok := ms.m[id]
	if ok && expired(e.deadline, now) {
		delete(ms.m, id)
		ok = false
	}
	return e, ok
}

func (ms *memSessions) Create(_ context.Context, s Session, ttl time.Duration) error {
	now := ms.now()
	ms.mu.Lock()
	defer ms.mu.Unlock()
	if _, ok := ms.live(s.ID, now); ok {
		return fmt.Errorf("session %q: %w", s.ID, ErrExists)
	}
	ms.sweep(now)
	ms.m[s.ID] = memSession{s: cloneSession(s), deadline: expiry(now, ttl)}
	return nil
}

// sweep drops expired sessions when the map has doubled since the last
// sweep, so that sessions nobody asks for again do not pile up. Requires
// mu.
func (ms *memSessions) sweep(now time.Time) {
	if len(ms.m) < 64 || len(ms.m)&(len(ms.m)-1) != 0 {
		return
	}
	for id, e := range ms.m {
		if expired(e.deadline, now) {
			delete(ms.m, id)
		}
	}
}

func (ms *memSessions) Get(_ context.Context, id string) (Session, error) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	e, ok := ms.live(id, ms.now())
	if !ok {
		return Session{}, fmt.Errorf("session %q: %w", id, ErrNotFound)
	}
	return cloneSession(e.s), nil
}

func (ms *memSessions) Put(_ context.Context, s Session, ttl time.Duration) error {
	now := ms.now()
	ms.mu.Lock()
	defer ms.mu.Unlock()
	if _, ok := ms.live(s.ID, now); !ok {
		return fmt.Errorf("session %q: %w", s.ID, ErrNotFound)
	}
	ms.m[s.ID] = memSession{s: cloneSession(s), deadline: expiry(now, ttl)}
	return nil
}

func (ms *memSessions) Touch(_ context.Context, id string, ttl time.Duration) error {
	now := ms.now()
	ms.mu.Lock()
	defer ms.mu.Unlock()
	e, ok := ms.live(id, now)
	if !ok {
		return fmt.Errorf("session %q: %w", id, ErrNotFound)
	}
	e.deadline = expiry(now, ttl)
	ms.m[id] = e
	return nil
}

func (ms *memSessions) Delete(_ context.Context, id string) error {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	delete(ms.m, id)
	return nil
}

func cloneSession(s Session) Session {
	s.Data = slices.Clone(s.Data)
	return s
}

// Bus.

// subBuffer is how many messages a subscription holds before it drops.
const subBuffer = 256

type memBus struct {
	mu   sync.Mutex
	subs map[string]map[*memSub]struct{} // by topic
}

type memSub struct {
	bus    *memBus
	topics []string
	c      chan Message
	once   sync.Once
	stop   func() bool // ends the ctx watch
}

func (b *memBus) Publish(_ context.Context, topic string, data []byte) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	for s := range b.subs[topic] {
		select {
		case s.c <- Message{Topic: topic, Data: slices.Clone(data)}:
		default: // too slow: dropped, as the contract allows
		}
	}
	return nil
}

func (b *memBus) Subscribe(ctx context.Context, topics ...string) (Subscription, error) {
	if len(topics) == 0 {
		return nil, fmt.Errorf("store: Subscribe needs at least one topic")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s := &memSub{bus: b, topics: slices.Clone(topics), c: make(chan Message, subBuffer)}
	b.mu.Lock()
	for _, t := range topics {
		if b.subs[t] == nil {
			b.subs[t] = map[*memSub]struct{}{}
		}
		b.subs[t][s] = struct{}{}
	}
	b.mu.Unlock()
	s.stop = context.AfterFunc(ctx, func() { s.Close() })
	return s, nil
}

func (s *memSub) C() <-chan Message { return s.c }

func (s *memSub) Close() error {
	s.once.Do(func() {
		s.stop()
		b := s.bus
		b.mu.Lock()
		for _, t := range s.topics {
			delete(b.subs[t], s)
			if len(b.subs[t]) == 0 {
				delete(b.subs, t)
			}
		}
		close(s.c) // under mu: no Publish is sending
		b.mu.Unlock()
	})
	return nil
}

func (b *memBus) closeAll() {
	b.mu.Lock()
	var all []*memSub
	for _, subs := range b.subs {
		for s := range subs {
			all = append(all, s)
		}
	}
	b.mu.Unlock()
	for _, s := range all {
		s.Close()
	}
}

// Limiter.

type memLimiter struct {
	now func() time.Time
	max int
	mu  sync.Mutex
	m   map[string]*rate.Limiter
}

func (l *memLimiter) Take(_ context.Context, key string, n int, b Bucket) (bool, time.Duration, error) {
	if b.Size <= 0 || b.Per <= 0 {
		return false, 0, fmt.Errorf("store: bucket %q needs a size and a period, got %d/%s", key, b.Size, b.Per)
	}
	if n > b.Size {
		return false, b.Per, nil
	}
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	lim := l.m[key]
	if lim == nil {
		if len(l.m) >= l.max {
			l.evict(now)
		}
		lim = rate.NewLimiter(rate.Every(b.Per/time.Duration(b.Size)), b.Size)
		l.m[key] = lim
	}
	res := lim.ReserveN(now, n)
	if d := res.DelayFrom(now); d > 0 {
		res.CancelAt(now)
		return false, d, nil
	}
	return true, 0, nil
}

// evict forgets full buckets (as good as new), then arbitrary ones until a
// tenth of the room is free. Requires mu.
func (l *memLimiter) evict(now time.Time) {
	for k, lim := range l.m {
		if lim.TokensAt(now) >= float64(lim.Burst()) {
			delete(l.m, k)
		}
	}
	for k := range l.m {
		if len(l.m) < l.max*9/10 {
			break
		}
		delete(l.m, k)
	}
}

// Tasks.

// Secrets.

// Records.
