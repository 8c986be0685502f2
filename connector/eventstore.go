package connector

import "github.com/mcpgen/mcpgen/connector/store"

// EventStore is an in-memory mcp.EventStore whose memory stays bounded
// however long a session lives: the memory state store's (see
// store.MemoryEvents). A client resuming a dropped stream gets an error
// rather than wrong events.
type EventStore = store.MemoryEvents

// NewEventStore returns an event store keeping at most maxBytes of events
// (defaultEventStoreBytes if 0) and maxStreams streams per session
// (defaultEventStoreStreams if 0).
func NewEventStore(maxBytes, maxStreams int) *EventStore {
	return store.NewMemoryEvents(maxBytes, maxStreams)
}
