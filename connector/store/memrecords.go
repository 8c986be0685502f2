package store

import (
	"context"
	"crypto/rand"
	"fmt"
	"slices"
	"sync"
	"time"
)

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
