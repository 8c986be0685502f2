package store

import "context"

// Message is one notification received from a Bus.
type Message struct {
	Topic string
	Data  []byte
}

// Bus is publish/subscribe by topic: how a notification raised on one
// replica (resources/updated, list_changed, a cancelled request, a
// client's answer) reaches the subscriber that needs it, wherever it runs.
//
// Contract:
//   - Once Subscribe has returned, every message published to one of its
//     topics (by anyone using the same store) is delivered to it, until
//     Close or until ctx is done; then its channel is closed.
//   - Messages of one publisher to one topic arrive in order.
//   - Delivery is at most once and nothing is kept for later subscribers:
//     a subscriber too slow to drain its channel loses messages rather than
//     slowing the publisher, so what needs every message (task status,
//     session records) lives in a record, and the bus only says it changed.
//   - Publish returns once the message is handed to the store; it never
//     waits for subscribers.
type Bus interface {
	Publish(ctx context.Context, topic string, data []byte) error
	Subscribe(ctx context.Context, topics ...string) (Subscription, error)
}

// Subscription is the receiving end of Bus.Subscribe.
type Subscription interface {
	// C delivers the messages; it is closed when the subscription ends.
	C() <-chan Message
	// Close ends the subscription. It is safe to call more than once.
	Close() error
}
