package msgstream

import "time"

// Defaults of the message transports.
const (
	// defaultMaxStreamSessions bounds the sessions open at once over
	// HTTP+SSE and WebSocket together; one more is answered 503.
	defaultMaxStreamSessions = 1000
	// defaultMaxStreamSessionsPerCaller bounds them per caller (the
	// verified subject, else the client's address); one more is answered 429.
	defaultMaxStreamSessionsPerCaller = 100
	// defaultStreamWriteTimeout is how long one message to a client may take
	// to write: a client that stops reading loses its session then.
	defaultStreamWriteTimeout = 10 * time.Second
	// defaultStreamKeepAlive is how often an idle event stream gets an SSE
	// comment and a WebSocket a ping, so proxies keep them open and dead
	// clients are noticed.
	defaultStreamKeepAlive = 25 * time.Second
)

// defaultMaxMessageBytes bounds one message from a client.
const defaultMaxMessageBytes = 4 << 20

// Retry is the reconnection delay a draining server gives the open event
// streams, so clients come back to a replacement process soon.
const Retry = time.Second
