package store

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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

func (m *Memory) Sessions() Sessions     { return m.sessions }
func (m *Memory) Events() mcp.EventStore { return m.events }
func (m *Memory) Bus() Bus               { return m.bus }
func (m *Memory) Limiter() Limiter       { return m.limiter }
func (m *Memory) Tasks() Tasks           { return m.tasks }
func (m *Memory) Secrets() Secrets       { return m.secrets }
func (m *Memory) Records() Records       { return m.records }

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

type memTasks struct {
	now func() time.Time
	max int
	mu  sync.Mutex
	m   map[string]*Task
}

func cloneTask(t Task) Task {
	t.Result = slices.Clone(t.Result)
	t.Input = slices.Clone(t.Input)
	return t
}

func (mt *memTasks) live(id string, now time.Time) *Task {
	t := mt.m[id]
	if t != nil && expired(t.Created.Add(t.TTL), now) {
		delete(mt.m, id)
		return nil
	}
	return t
}

func (mt *memTasks) Create(_ context.Context, t Task) error {
	if t.ID == "" || t.TTL <= 0 {
		return fmt.Errorf("store: a task needs an id and a TTL, got %q and %s", t.ID, t.TTL)
	}
	now := mt.now()
	mt.mu.Lock()
	defer mt.mu.Unlock()
	if mt.live(t.ID, now) != nil {
		return fmt.Errorf("task %q: %w", t.ID, ErrExists)
	}
	if len(mt.m) >= mt.max && !mt.evict(now) {
		return fmt.Errorf("store: %d tasks are kept and none is finished; try again later", len(mt.m))
	}
	if t.Created.IsZero() {
		t.Created = now
	}
	if t.Updated.IsZero() {
		t.Updated = t.Created
	}
	if t.Status == "" {
		t.Status = TaskWorking
	}
	if t.Status != TaskInputRequired {
		t.Input = nil
	}
	c := cloneTask(t)
	mt.m[t.ID] = &c
	return nil
}

// evict drops expired tasks, else the oldest finished one; it reports
// whether there is room. Requires mu.
func (mt *memTasks) evict(now time.Time) bool {
	var oldest *Task
	for id, t := range mt.m {
		switch {
		case expired(t.Created.Add(t.TTL), now):
			delete(mt.m, id)
		case t.Status.Final() && (oldest == nil || t.Created.Before(oldest.Created)):
			oldest = t
		}
	}
	if len(mt.m) < mt.max {
		return true
	}
	if oldest == nil {
		return false
	}
	delete(mt.m, oldest.ID)
	return true
}

func (mt *memTasks) Get(_ context.Context, id string) (Task, error) {
	mt.mu.Lock()
	defer mt.mu.Unlock()
	t := mt.live(id, mt.now())
	if t == nil {
		return Task{}, fmt.Errorf("task %q: %w", id, ErrNotFound)
	}
	return cloneTask(*t), nil
}

func (mt *memTasks) Update(_ context.Context, id string, u TaskUpdate) (Task, error) {
	now := mt.now()
	mt.mu.Lock()
	defer mt.mu.Unlock()
	t := mt.live(id, now)
	if t == nil {
		return Task{}, fmt.Errorf("task %q: %w", id, ErrNotFound)
	}
	if t.Status.Final() {
		return cloneTask(*t), fmt.Errorf("task %q is %s: %w", id, t.Status, ErrFinal)
	}
	if u.IfStatus != "" && t.Status != u.IfStatus {
		return cloneTask(*t), fmt.Errorf("task %q is %s, not %s: %w", id, t.Status, u.IfStatus, ErrConflict)
	}
	if !u.IfLeaseBefore.IsZero() && (t.Lease.IsZero() || !t.Lease.Before(u.IfLeaseBefore)) {
		return cloneTask(*t), fmt.Errorf("task %q holds its lease: %w", id, ErrConflict)
	}
	if u.Status != "" {
		t.Status = u.Status
	}
	if u.Message != "" {
		t.Message = u.Message
	}
	if u.Result != nil {
		t.Result = slices.Clone(u.Result)
	}
	if u.Input != nil {
		t.Input = slices.Clone(u.Input)
	}
	if t.Status != TaskInputRequired {
		t.Input = nil
	}
	if !u.Lease.IsZero() {
		t.Lease = u.Lease
	}
	t.Updated = now
	return cloneTask(*t), nil
}

func (mt *memTasks) List(_ context.Context, owner, cursor string, limit int) ([]Task, string, error) {
	now := mt.now()
	mt.mu.Lock()
	var own []Task
	for id := range mt.m {
		if t := mt.live(id, now); t != nil && t.Owner == owner {
			own = append(own, cloneTask(*t))
		}
	}
	mt.mu.Unlock()
	// Newest first; ties by id, so pages are stable.
	slices.SortFunc(own, func(a, b Task) int {
		if c := b.Created.Compare(a.Created); c != 0 {
			return c
		}
		if a.ID < b.ID {
			return -1
		}
		return 1
	})
	start := 0
	if cursor != "" {
		i, err := strconv.Atoi(cursor)
		if err != nil || i < 0 || i > len(own) {
			return nil, "", fmt.Errorf("store: invalid task list cursor %q", cursor)
		}
		start = i
	}
	own = own[start:]
	next := ""
	if limit > 0 && len(own) > limit {
		own = own[:limit]
		next = strconv.Itoa(start + limit)
	}
	return own, next, nil
}

// Secrets.

type memSecrets struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (ms *memSecrets) Key(_ context.Context, name string, size int) ([]byte, error) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	if k, ok := ms.m[name]; ok {
		return slices.Clone(k), nil
	}
	if size <= 0 {
		return nil, fmt.Errorf("store: secret %q needs a size", name)
	}
	k := make([]byte, size)
	rand.Read(k)
	ms.m[name] = k
	return slices.Clone(k), nil
}

// Records.

type memRecord struct {
	data     []byte
	deadline time.Time
}

type memRecords struct {
	now    func() time.Time
	max    int
	mu     sync.Mutex
	m      map[string]memRecord
	writes int // since the last sweep
}

// live returns the record under key unless it expired. Callers hold mu.
func (mr *memRecords) live(key string, now time.Time) (memRecord, bool) {
	r, ok := mr.m[key]
	if ok && expired(r.deadline, now) {
		delete(mr.m, key)
		return memRecord{}, false
	}
	return r, ok
}

// put stores a record, sweeping expired ones every so often so that
// records nobody reads again do not pile up, and at once when the bound
// is reached. Callers hold mu.
func (mr *memRecords) put(key string, data []byte, ttl time.Duration, now time.Time) error {
	_, replace := mr.m[key]
	if mr.writes++; mr.writes >= 1024 || (!replace && len(mr.m) >= mr.max) {
		mr.writes = 0
		for k, r := range mr.m {
			if expired(r.deadline, now) {
				delete(mr.m, k)
			}
		}
	}
	if _, replace = mr.m[key]; !replace && len(mr.m) >= mr.max {
		return fmt.Errorf("store: record %q not stored: the memory backend holds its maximum of %d records", key, mr.max)
	}
	mr.m[key] = memRecord{data: slices.Clone(data), deadline: expiry(now, ttl)}
	return nil
}

func (mr *memRecords) Create(_ context.Context, key string, data []byte, ttl time.Duration) error {
	mr.mu.Lock()
	defer mr.mu.Unlock()
	now := mr.now()
	if _, ok := mr.live(key, now); ok {
		return fmt.Errorf("record %q: %w", key, ErrExists)
	}
	return mr.put(key, data, ttl, now)
}

func (mr *memRecords) Put(_ context.Context, key string, data []byte, ttl time.Duration) error {
	mr.mu.Lock()
	defer mr.mu.Unlock()
	return mr.put(key, data, ttl, mr.now())
}

func (mr *memRecords) Get(_ context.Context, key string) ([]byte, error) {
	mr.mu.Lock()
	defer mr.mu.Unlock()
	r, ok := mr.live(key, mr.now())
	if !ok {
		return nil, fmt.Errorf("record %q: %w", key, ErrNotFound)
	}
	return slices.Clone(r.data), nil
}

func (mr *memRecords) Take(_ context.Context, key string) ([]byte, error) {
	mr.mu.Lock()
	defer mr.mu.Unlock()
	r, ok := mr.live(key, mr.now())
	if !ok {
		return nil, fmt.Errorf("record %q: %w", key, ErrNotFound)
	}
	delete(mr.m, key)
	return r.data, nil
}

func (mr *memRecords) Delete(_ context.Context, key string) error {
	mr.mu.Lock()
	defer mr.mu.Unlock()
	delete(mr.m, key)
	return nil
}
