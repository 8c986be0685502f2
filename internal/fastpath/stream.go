package fastpath

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fastStream is a resumable answer in progress.
type fastStream struct {
	done chan struct{} // closed once the result is in the event store
}

// serveStream answers c, a call in a session at 2025-11-25 or later, whose
// answer may be a resumable event stream: a priming event, then the
// result, both kept in the event store. The call goes on if the
// connection drops, and a client that has the priming event's id resumes
// the stream (GET with Last-Event-ID) on any replica sharing the store.
//
// Nothing is written until the call ends or primeDelay passes, whichever
// comes first. A call that ends first (most) with an answer of at most
// plainMax bytes is answered with plain JSON and nothing is stored: its
// client never had an event id, so there is nothing it could resume, and
// a shared store is spared a round trip per call. Otherwise the stream
// starts:
//   - when primeDelay passes or the handler calls CloseStream, the
//     priming event is stored, then sent on its own; the result is
//     appended to the store before it goes out. CloseStream then ends the
//     HTTP response while the call goes on (over HTTP/1.x: the connection
//     is taken over, the response's last chunk written and the connection
//     closed); the client's resumption waits for the result and is then
//     replayed by the go-sdk from the event store.
//   - a larger answer ready within primeDelay goes out with its priming
//     event in one write, since a connection may drop part way through a
//     long write; both events are stored in one step, and with an event
//     store that can (store.Events.RecordLater) without waiting: a shared
//     store sends them with other answers' a moment later (write-behind).
//     Until they are stored, a resumption on this replica waits for them
//     (resume); one on another replica within that moment finds the
//     stream unknown.
func (c *fastCall) serveStream(r *http.Request, run mcp.MethodHandler, mreq mcp.Request) {
	defer c.cleanup()
	if x, ok := mreq.(*mcp.CallToolRequest); ok && r.ProtoMajor == 1 && r.ProtoMinor == 1 {
		x.Extra.CloseSSEStream = c.closeStream
	}
	// Past primeDelay the priming event goes out on its own (runLater,
	// from f.calls), so that the client has an event id to resume from.
	res, err := run(c.ctx, c.msg.Method, mreq)
	c.streamAnswer(res, err)
}

// streamAnswer writes the answer of a resumable call that ended with res
// and err, and stores it as the stream's event. It is serveStream's
// second half, a function of its own so that its frame is not on the
// stack while the handler runs (see Handler.serve).
func (c *fastCall) streamAnswer(res mcp.Result, err error) {
	f, w := c.f, c.w
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ended = true
	wh := w.Header()
	if c.wasCancelled() {
		// No response: a stream already begun (its priming event stored)
		// ends with what it has; one not begun is an event stream without
		// events, as through the go-sdk.
		if !c.started {
			wh["Content-Type"] = contentSSE
			w.WriteHeader(http.StatusOK)
		}
		c.finish()
		return
	}
	out := c.encode(res, err)
	if !c.started && len(out) <= plainMax {
		wh["Content-Type"] = contentJSON
		w.WriteHeader(http.StatusOK)
		w.Write(out)
		return
	}
	c.start()
	ctx, sid := c.ctx, c.sid
	switch rec, ok := f.events.(eventRecorder); {
	case c.primed:
		if err := f.events.Append(ctx, sid, c.stream, out); err != nil {
			f.cfg.Logger.Warn("storing event", "err", err)
		}
		c.finish()
	case ok:
		// Both events go out together now: a shared store may take
		// them a moment later, with other answers' (a resumption
		// here waits for them).
		c.primed = true
		rec.RecordLater(ctx, sid, c.stream, func(err error) {
			if err != nil {
				f.cfg.Logger.Warn("storing event", "err", err)
			}
			c.finish()
		}, nil, out)
	default:
		c.primed = true
		if err := f.record(ctx, sid, c.stream, nil, out); err != nil {
			f.cfg.Logger.Warn("storing event", "err", err)
		}
		c.finish()
	}
	if c.closed {
		return
	}
	ev := make([]byte, 0, len(out)+len(c.stream)+40)
	ev = append(ev, "event: message\nid: "...)
	ev = append(ev, c.stream...)
	ev = append(ev, "_1\ndata: "...)
	ev = append(ev, out...)
	ev = append(ev, "\n\n"...)
	w.Write(ev)
}

// runLater sends the priming event of a call still running primeDelay
// after it began (f.calls).
func (c *fastCall) runLater() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.ended && !c.closed {
		c.storePrime()
		c.start()
		http.NewResponseController(c.w).Flush()
	}
}

// closeStream is the handler's CloseStream: the priming event goes out,
// and the HTTP response ends while the call goes on.
func (c *fastCall) closeStream(args mcp.CloseSSEStreamArgs) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended || c.closed {
		return
	}
	c.storePrime()
	c.start()
	if args.RetryAfter > 0 {
		c.w.Write([]byte("event: close\nretry: " + strconv.FormatInt(args.RetryAfter.Milliseconds(), 10) + "\ndata: \n\n"))
	}
	rc := http.NewResponseController(c.w)
	rc.Flush()
	conn, buf, err := rc.Hijack()
	if err != nil {
		c.f.cfg.Logger.Warn("closing a stream", "err", err)
		return
	}
	c.closed = true
	buf.WriteString("0\r\n\r\n") // the last chunk of the response
	buf.Flush()
	conn.Close()
}

// name draws the event stream's id, when it is first needed: most
// answers are plain JSON and need none. Requires c.mu.
func (c *fastCall) name() {
	if c.stream == "" {
		c.stream = rand.Text()
	}
}

// start begins the event stream: its header and priming event, in the
// response's buffer until the next flush. A resumption of the stream on
// this replica waits (resume) until finish. Requires c.mu.
func (c *fastCall) start() {
	if c.started {
		return
	}
	c.started = true
	c.name()
	c.st = &fastStream{done: make(chan struct{})}
	c.f.streams.Store(c.stream, c.st)
	wh := c.w.Header()
	wh["Content-Type"] = contentSSE
	wh["Connection"] = []string{"keep-alive"}
	c.w.WriteHeader(http.StatusOK)
	c.w.Write([]byte("event: prime\nid: " + c.stream + "_0\ndata: \n\n"))
}

// finish lets resumptions of the stream waiting on this replica go on.
func (c *fastCall) finish() {
	if c.st != nil {
		c.f.streams.Delete(c.stream)
		close(c.st.done)
	}
}

// storePrime stores the priming event before it goes out alone.
// Requires c.mu.
func (c *fastCall) storePrime() {
	if c.primed {
		return
	}
	c.primed = true
	c.name()
	if err := c.f.record(c.ctx, c.sid, c.stream, nil); err != nil {
		c.f.cfg.Logger.Warn("storing priming event", "err", err)
	}
}

// eventRecorder is an event store that stores a stream's events in one
// step (store.Events); with one, an answer costs at most one round trip
// to a shared store, shared with other answers'.
type eventRecorder interface {
	Record(ctx context.Context, sessionID, streamID string, data ...[]byte) error
	RecordLater(ctx context.Context, sessionID, streamID string, done func(error), data ...[]byte)
}

// record opens a stream and appends data to it, in one step when the
// event store can.
func (f *Handler) record(ctx context.Context, sid, stream string, data ...[]byte) error {
	if rec, ok := f.events.(eventRecorder); ok {
		return rec.Record(ctx, sid, stream, data...)
	}
	if err := f.events.Open(ctx, sid, stream); err != nil {
		return err
	}
	for _, d := range data {
		if err := f.events.Append(ctx, sid, stream, d); err != nil {
			return err
		}
	}
	return nil
}

// logStream is the answer to a request without a session while its
// handler runs: plain JSON unless the handler logs a message the go-sdk
// would send (info and above, the level of its one-request sessions);
// from the first such message on, an event stream of the messages, as
// they come, and then the result.
type logStream struct {
	w       http.ResponseWriter
	mu      sync.Mutex
	started bool // the event stream has begun
	ended   bool // the request has been answered
}

// send writes p as a notifications/message event.
func (l *logStream) send(p *mcp.LoggingMessageParams) error {
	if !sentLevels[p.Level] {
		return nil
	}
	pb, err := json.Marshal(p)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ended {
		return errAnswered
	}
	if !l.started {
		l.started = true
		h := l.w.Header()
		h["Content-Type"] = []string{"text/event-stream"}
		l.w.WriteHeader(http.StatusOK)
	}
	ev := make([]byte, 0, len(pb)+96)
	ev = append(ev, `event: message`+"\n"+`data: {"jsonrpc":"2.0","method":"notifications/message","params":`...)
	ev = append(ev, pb...)
	ev = append(ev, "}\n\n"...)
	l.w.Write(ev)
	http.NewResponseController(l.w).Flush()
	return nil
}

// end ends the answer: out (nil for none) as the last event when the
// event stream has begun. It reports whether it had; a nil l has not.
func (l *logStream) end(out []byte) bool {
	if l == nil {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ended = true
	if !l.started {
		return false
	}
	if out != nil {
		ev := make([]byte, 0, len(out)+24)
		ev = append(ev, "event: message\ndata: "...)
		ev = append(ev, out...)
		l.w.Write(append(ev, "\n\n"...))
	}
	return true
}

// resume holds a client's resumption of a stream the fast path is still
// answering until its result is stored, then lets the go-sdk replay it.
// It reports false for any other stream.
func (f *Handler) resume(w http.ResponseWriter, r *http.Request) bool {
	lid := r.Header.Get("Last-Event-ID")
	stream, _, ok := strings.Cut(lid, "_")
	if !ok {
		return false
	}
	x, ok := f.streams.Load(stream)
	if !ok {
		return false
	}
	select {
	case <-x.(*fastStream).done:
	case <-r.Context().Done():
		return true
	}
	f.next.ServeHTTP(w, r)
	return true
}
