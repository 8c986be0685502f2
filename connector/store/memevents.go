package store

import (
	"container/list"
	"context"
	"fmt"
	"iter"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultEventBytes is how much stream data the memory backend's event
// store keeps for resumption, over all sessions.
const DefaultEventBytes = 10 << 20

// DefaultEventStreams is how many response streams of one session the
// memory backend's event store keeps for resumption; older ones are
// dropped.
const DefaultEventStreams = 64

// eventOverhead is what the store counts for one event beside its data, so
// that empty events (priming events) are bounded too.
const eventOverhead = 64

// MemoryEvents is an in-memory mcp.EventStore whose memory stays bounded
// however long a session lives: it keeps at most maxStreams streams per
// session and maxBytes of events in all, dropping the streams appended to
// least recently. (The go-sdk's MemoryEventStore keeps an entry for every
// stream a session ever had until the session ends, so a long-lived
// session grows with every request.) A client resuming a dropped stream
// gets an error rather than wrong events.
type MemoryEvents struct {
	mu         sync.Mutex
	maxBytes   int
	maxStreams int
	bytes      int
	sessions   map[string]*sessionEvents
	lru        list.List // of *streamEvents, least recently appended first
}

type sessionEvents struct {
	streams map[string]*streamEvents
	lru     list.List // this session's streams, least recently appended first
}

type streamEvents struct {
	session, id string
	first       int // stream index of data[0]; -1: unknown (the stream was dropped)
	data        [][]byte
	bytes       int
	all, own    *list.Element
}

// NewMemoryEvents returns an event store keeping at most maxBytes of events
// (DefaultEventBytes if 0) and maxStreams streams per session
// (DefaultEventStreams if 0).
func NewMemoryEvents(maxBytes, maxStreams int) *MemoryEvents {
	if maxBytes <= 0 {
		maxBytes = DefaultEventBytes
	}
	if maxStreams <= 0 {
		maxStreams = DefaultEventStreams
	}
	return &MemoryEvents{maxBytes: maxBytes, maxStreams: maxStreams, sessions: map[string]*sessionEvents{}}
}

var _ Events = (*MemoryEvents)(nil)

// Open implements mcp.EventStore.
func (s *MemoryEvents) Open(_ context.Context, sessionID, streamID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stream(sessionID, streamID, 0)
	return nil
}

// stream returns the stream, creating it with the given first index.
func (s *MemoryEvents) stream(sessionID, streamID string, first int) *streamEvents {
	ss := s.sessions[sessionID]
	if ss == nil {
		ss = &sessionEvents{streams: map[string]*streamEvents{}}
		s.sessions[sessionID] = ss
	}
	st := ss.streams[streamID]
	if st == nil {
		st = &streamEvents{session: sessionID, id: streamID, first: first}
		st.all = s.lru.PushBack(st)
		st.own = ss.lru.PushBack(st)
		ss.streams[streamID] = st
		for ss.lru.Len() > s.maxStreams {
			s.drop(ss.lru.Front().Value.(*streamEvents))
		}
	}
	return st
}

// Record implements Events.
func (s *MemoryEvents) Record(_ context.Context, sessionID, streamID string, data ...[]byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stream(sessionID, streamID, 0)
	for _, d := range data {
		s.append(sessionID, streamID, d)
	}
	return nil
}

// RecordLater implements Events: it stores at once.
func (s *MemoryEvents) RecordLater(ctx context.Context, sessionID, streamID string, done func(error), data ...[]byte) {
	done(s.Record(ctx, sessionID, streamID, data...))
}

// Append implements mcp.EventStore.
func (s *MemoryEvents) Append(_ context.Context, sessionID, streamID string, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.append(sessionID, streamID, data)
	return nil
}

// append appends data to a stream. Requires s.mu.
func (s *MemoryEvents) append(sessionID, streamID string, data []byte) {
	// A stream appended to without Open was dropped while it was still in
	// use: its indexes are unknown, so it can no longer be replayed.
	st := s.stream(sessionID, streamID, -1)
	s.lru.MoveToBack(st.all)
	s.sessions[sessionID].lru.MoveToBack(st.own)
	st.data = append(st.data, data)
	n := len(data) + eventOverhead
	st.bytes += n
	s.bytes += n
	for s.bytes > s.maxBytes {
		oldest := s.lru.Front().Value.(*streamEvents)
		if oldest != st {
			s.drop(oldest)
			continue
		}
		if len(st.data) == 1 {
			break // keep the event just appended
		}
		n := len(st.data[0]) + eventOverhead
		st.data[0] = nil
		st.data = st.data[1:]
		st.bytes -= n
		s.bytes -= n
		if st.first >= 0 {
			st.first++
		}
	}
}

// drop forgets a stream. Requires s.mu.
func (s *MemoryEvents) drop(st *streamEvents) {
	ss := s.sessions[st.session]
	s.lru.Remove(st.all)
	ss.lru.Remove(st.own)
	delete(ss.streams, st.id)
	s.bytes -= st.bytes
	if len(ss.streams) == 0 {
		delete(s.sessions, st.session)
	}
}

// After implements mcp.EventStore.
func (s *MemoryEvents) After(_ context.Context, sessionID, streamID string, index int) iter.Seq2[[]byte, error] {
	s.mu.Lock()
	var data [][]byte
	var err error
	st := s.sessions[sessionID].lookup(streamID)
	switch {
	case st == nil:
		err = fmt.Errorf("stream %q of session %q is no longer kept for resumption: %w", streamID, sessionID, mcp.ErrEventsPurged)
	case st.first < 0 || index+1 < st.first:
		err = fmt.Errorf("events of stream %q after %d are no longer kept: %w", streamID, index, mcp.ErrEventsPurged)
	case index+1-st.first < len(st.data):
		data = append([][]byte(nil), st.data[index+1-st.first:]...)
	}
	s.mu.Unlock()
	return func(yield func([]byte, error) bool) {
		if err != nil {
			yield(nil, err)
			return
		}
		for _, d := range data {
			if !yield(d, nil) {
				return
			}
		}
	}
}

func (ss *sessionEvents) lookup(streamID string) *streamEvents {
	if ss == nil {
		return nil
	}
	return ss.streams[streamID]
}

// SessionClosed implements mcp.EventStore.
func (s *MemoryEvents) SessionClosed(_ context.Context, sessionID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ss := s.sessions[sessionID]; ss != nil {
		for _, st := range ss.streams {
			s.lru.Remove(st.all)
			s.bytes -= st.bytes
		}
		delete(s.sessions, sessionID)
	}
	return nil
}

// Stats returns the number of sessions and streams kept and their bytes.
func (s *MemoryEvents) Stats() (sessions, streams, bytes int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sessions), s.lru.Len(), s.bytes
}
