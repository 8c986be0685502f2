package connector

import "github.com/mcpgen/mcpgen/connector/store"

// DefaultEventStoreBytes is how much stream data the default event store
// keeps for resumption, over all sessions.
const DefaultEventStoreBytes = store.DefaultEventBytes

// DefaultEventStoreStreams is how many response streams of one session the
// default event store keeps for resumption; older ones are dropped.
const DefaultEventStoreStreams = store.DefaultEventStreams

// EventStore is an in-memory mcp.EventStore whose memory stays bounded
// however long a session lives: the memory state store's (see
// store.MemoryEvents). A client resuming a dropped stream gets an error
// rather than wrong events.
type EventStore = store.MemoryEvents

// NewEventStore returns an event store keeping at most maxBytes of events
// (DefaultEventStoreBytes if 0) and maxStreams streams per session
// (DefaultEventStoreStreams if 0).
func NewEventStore(maxBytes, maxStreams int) *EventStore {
	return store.NewMemoryEvents(maxBytes, maxStreams)
}
