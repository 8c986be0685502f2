package connector

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpgen/mcpgen/connector/store"
)

// topicResourceUpdated is the store Bus topic on which replicas sharing a
// store tell each other a resource changed; the message is its URI.
const topicResourceUpdated = "resources/updated"

// relay carries notifications between replicas sharing a store: this
// replica's ResourceUpdated is published on the store's Bus, and what any
// replica publishes is delivered to this replica's subscribers (2025 GET
// streams and 2026 subscriptions/listen streams alike).
type relay struct {
	running atomic.Bool // subscribed: publish instead of delivering locally
}

// sharedStore reports whether the state store is shared with other
// processes (any backend but the in-process one).
func (s *Server) sharedStore() bool {
	_, mem := s.state.(*store.Memory)
	return !mem
}

// ResourceUpdated notifies the sessions subscribed to uri that it changed:
// with a shared store (WithStore), those of every replica.
func (s *Server) ResourceUpdated(ctx context.Context, uri string) error {
	if s.relay.running.Load() {
		err := s.state.Bus().Publish(ctx, topicResourceUpdated, []byte(uri))
		if err == nil {
			return nil
		}
		// This replica's subscribers still hear of it.
		local := s.mcp.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri})
		if local != nil {
			return local
		}
		return fmt.Errorf("resources/updated for %s reached only this replica's subscribers: %w", uri, err)
	}
	return s.mcp.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri})
}

// runRelay subscribes to the store's Bus until ctx is done, delivering
// what other replicas publish; while it is not subscribed (the store is
// down), ResourceUpdated delivers locally. It retries every second and
// logs once per change of state.
func (s *Server) runRelay(ctx context.Context) {
	if !s.sharedStore() {
		return
	}
	topics := []string{topicResourceUpdated, topicSessionSubs, topicSessionAnswers, topicSessionCancel, topicSessionLevel}
	var inbox chan []byte
	if s.sharesSSE() {
		topics = append(topics, topicSSEMessage)
		inbox = make(chan []byte, sseInbox)
		go s.serveForwarded(ctx, inbox) // ssepeers.go
	}
	failing := false
	for ctx.Err() == nil {
		sub, err := s.state.Bus().Subscribe(ctx, topics...)
		if err != nil {
			if !failing && ctx.Err() == nil {
				s.logger.Warn("notifications reach only this replica's subscribers until the store is back", "err", err)
				failing = true
			}
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
			continue
		}
		if failing {
			s.logger.Info("notifications reach every replica again")
			failing = false
		}
		s.relay.running.Store(true)
		for m := range sub.C() {
			switch m.Topic {
			case topicResourceUpdated:
				s.mcp.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: string(m.Data)})
			case topicSessionSubs:
				go s.syncSubs(string(m.Data)) // adoptsubs.go
			case topicSessionAnswers:
				go s.deliverAnswer(m.Data) // adoptanswers.go
			case topicSessionCancel:
				go s.deliverCancel(m.Data) // adoptcancel.go
			case topicSessionLevel:
				s.deliverLevel(m.Data) // adoptlevel.go: in order, the last level wins
			case topicSSEMessage:
				select {
				case inbox <- m.Data: // served in order
				default:
					s.logger.Warn("dropped a message forwarded for an HTTP+SSE session: too many waiting")
				}
			}
		}
		s.relay.running.Store(false)
		sub.Close()
	}
}
