package connector

import (
	"bytes"
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/connector/store"
	"github.com/mcpgen/mcpgen/internal/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A session client that loses a call's response stream resumes it with
// Last-Event-ID, on any replica, from the shared event store. The go-sdk
// ends the HTTP request as soon as the client has gone, while the call
// runs on; a replica told to stop (SIGTERM) then saw no request in flight,
// finished its drain and exited before the call's answer reached the
// store, and the client resumed to find the progress but no result. So a
// call's request whose client has gone is held here until the answer is
// in the event store (or the client cancels it, or the session closes, or
// maxAnswerWait passes), and the drain waits for it as for any request in
// flight.

// maxAnswerWait bounds how long a call's request is held for its answer
// once its client has gone: past it, a replica that stops no longer waits
// for the call.
const maxAnswerWait = 15 * time.Minute

// answerWaits are the calls of sessions served here whose answer has not
// reached the event store yet. Nothing is parsed while a client waits for
// its answer, which is nearly always: a call's id is read from its body
// only once its client has gone, or when an answer of its session is
// stored while it runs.
type answerWaits struct {
	mu    sync.Mutex
	calls map[string][]*awaitedAnswer // by session id
}

type awaitedAnswer struct {
	body   []byte // the request's, until parsed
	parsed bool
	id     []byte // compact JSON; nil for a message that is not a call
	done   chan struct{}
}

// callID is w's JSON-RPC id, nil when w's message is not a call. Requires
// answerWaits.mu.
func (w *awaitedAnswer) callID() []byte {
	if !w.parsed {
		w.parsed = true
		if m, ok := wire.ShapeOf(w.body); ok && m.Method != nil && wire.ValidID(m.ID) {
			w.id = compactID(m.ID)
		}
		w.body = nil
	}
	return w.id
}

// expect registers the message of session sid whose request body is body,
// which may be a call.
func (a *answerWaits) expect(sid string, body []byte) *awaitedAnswer {
	w := &awaitedAnswer{body: body, done: make(chan struct{})}
	a.mu.Lock()
	if a.calls == nil {
		a.calls = map[string][]*awaitedAnswer{}
	}
	a.calls[sid] = append(a.calls[sid], w)
	a.mu.Unlock()
	return w
}

// wait holds the request r of call w until the call's answer is in the
// event store, when r's client has gone before it, then forgets w.
func (a *answerWaits) wait(r *http.Request, sid string, w *awaitedAnswer) {
	if r.Context().Err() != nil {
		a.mu.Lock()
		call := w.callID() != nil
		a.mu.Unlock()
		if call {
			t := time.NewTimer(maxAnswerWait)
			select {
			case <-w.done:
			case <-t.C:
			}
			t.Stop()
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	calls := a.calls[sid]
	for i, c := range calls {
		if c == w {
			calls = append(calls[:i], calls[i+1:]...)
			break
		}
	}
	if len(calls) == 0 {
		delete(a.calls, sid)
	} else {
		a.calls[sid] = calls
	}
}

// waiting reports whether session sid has calls registered here.
func (a *answerWaits) waiting(sid string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.calls[sid]) > 0
}

// answered marks the call of session sid with the JSON-RPC id id answered.
func (a *answerWaits) answered(sid string, id []byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, c := range a.calls[sid] {
		if cid := c.callID(); cid != nil && bytes.Equal(cid, id) {
			closeOnce(c.done)
		}
	}
}

// closed marks every call of session sid answered: none will be.
func (a *answerWaits) closed(sid string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, c := range a.calls[sid] {
		closeOnce(c.done)
	}
}

func closeOnce(c chan struct{}) {
	select {
	case <-c:
	default:
		close(c)
	}
}

// answerHook is the event store with answerWaits told of each answer
// stored (or that failed to be: no use waiting for it then) and each
// session closed. It keeps store.Events' one-step writes, which the fast
// path uses, whatever the event store under it.
type answerHook struct {
	mcp.EventStore
	w *answerWaits
}

var _ store.Events = answerHook{}

func (h answerHook) Append(ctx context.Context, sid, stream string, data []byte) error {
	err := h.EventStore.Append(ctx, sid, stream, data)
	h.stored(sid, data)
	return err
}

func (h answerHook) Record(ctx context.Context, sid, stream string, data ...[]byte) error {
	var err error
	if rec, ok := h.EventStore.(store.Events); ok {
		err = rec.Record(ctx, sid, stream, data...)
	} else if err = h.EventStore.Open(ctx, sid, stream); err == nil {
		for _, d := range data {
			if err = h.EventStore.Append(ctx, sid, stream, d); err != nil {
				break
			}
		}
	}
	h.stored(sid, data...)
	return err
}

func (h answerHook) RecordLater(ctx context.Context, sid, stream string, done func(error), data ...[]byte) {
	rec, ok := h.EventStore.(store.Events)
	if !ok {
		err := h.Record(ctx, sid, stream, data...)
		if done != nil {
			done(err)
		}
		return
	}
	rec.RecordLater(ctx, sid, stream, func(err error) {
		h.stored(sid, data...)
		if done != nil {
			done(err)
		}
	}, data...)
}

// stored tells the waits of the answers among data. An answer stored
// once its call's request has ended, as a quick answer is (write-behind),
// finds none and is not parsed.
func (h answerHook) stored(sid string, data ...[]byte) {
	if !h.w.waiting(sid) {
		return
	}
	for _, d := range data {
		if id := wire.AnswerID(d); id != nil {
			h.w.answered(sid, compactID(id))
		}
	}
}

func (h answerHook) SessionClosed(ctx context.Context, sid string) error {
	err := h.EventStore.SessionClosed(ctx, sid)
	h.w.closed(sid)
	return err
}
