package connector

// What a 2025-11-25 session hears of its tasks without polling
// (SEP-1686): notifications/tasks/status, and the related-task _meta of
// the questions a task's handler asks.
//
// notifications/tasks/status. The go-sdk sends a session only the
// notifications it knows (its sending path refuses any other method, and
// its connection is not exported), so the notification is written at the
// HTTP level, into the session's standalone event stream (the GET the
// client opens after initialize): the go-sdk serves that GET through a
// ResponseWriter of ours, which passes its events on whole and writes
//
//	{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{<the task, as tasks/get answers it>}}
//
// between them, each time one of the tasks the session may see changes
// status or status message. The replica that changes a task's record
// says so on the store's Bus (topicTaskChanged, tasks_listen.go); the
// replica holding the session's stream hears it there, reads the record
// and sends it. The Bus may lose a message, so the tasks a stream has been
// told of and that have not ended are read again every listenResync.
// These events carry no SSE id: a client that resumes the stream
// (Last-Event-ID) does not get them again, and polls tasks/get.
//
// Questions. A handler running as a task of a 2025-11-25 session asks
// its client over the session (Call.Ask), as in a call answered at once;
// the request carries _meta["io.modelcontextprotocol/related-task"] =
// {taskId}, and the task reads input_required until it is answered.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpgen/mcpgen/connector/store"
)

// taskStatusMethod is the notification of a task's new status
// (2025-11-25).
const taskStatusMethod = "notifications/tasks/status"

// v1TaskKey carries, in the context of a task created in a 2025-11-25
// session, its *v1Task.
type v1TaskKey struct{}

// v1Task is a task of a 2025-11-25 session as its handler's questions see
// it.
type v1Task struct {
	tr    *taskRunner
	ready chan struct{} // closed once id is set (or the task was refused)
	id    string

	mu   sync.Mutex // held while the record's status changes
	asks int        // questions waiting for the client's answer
}

// withV1Task returns r carrying a new v1Task, and the function that names
// the task once created ("" when it was not).
func (tr *taskRunner) withV1Task(r *http.Request) (*http.Request, func(id string)) {
	vt := &v1Task{tr: tr, ready: make(chan struct{})}
	return r.WithContext(context.WithValue(r.Context(), v1TaskKey{}, vt)), func(id string) {
		vt.id = id
		close(vt.ready)
	}
}

// v1TaskOf returns the 2025-11-25 task ctx runs, or nil.
func v1TaskOf(ctx context.Context) *v1Task {
	vt, _ := ctx.Value(v1TaskKey{}).(*v1Task)
	return vt
}

// taskID is the task's id; the handler may run before tools/call learns it,
// so it waits until then (the time to return from create).
func (vt *v1Task) taskID() string {
	<-vt.ready
	return vt.id
}

// relate returns req with the task named in its _meta (a copy: the
// handler's own value is left as it is).
func (vt *v1Task) relate(req mcp.InputRequest) mcp.InputRequest {
	id := vt.taskID()
	if id == "" {
		return req
	}
	meta := func(m mcp.Meta) mcp.Meta {
		m = maps.Clone(m)
		if m == nil {
			m = mcp.Meta{}
		}
		m[relatedTaskKey] = map[string]any{"taskId": id}
		return m
	}
	switch p := req.(type) {
	case *mcp.ElicitParams:
		cp := *p
		cp.Meta = meta(p.Meta)
		return &cp
	case *mcp.CreateMessageParams:
		cp := *p
		cp.Meta = meta(p.Meta)
		return &cp
	case *mcp.CreateMessageWithToolsParams:
		cp := *p
		cp.Meta = meta(p.Meta)
		return &cp
	case *mcp.ListRootsParams:
		cp := *p
		cp.Meta = meta(p.Meta)
		return &cp
	}
	return req
}

// asking turns the task input_required while its handler waits for the
// client's answer; the returned function, called once the answer came (or
// did not), turns it working again when no other question waits. A task
// that ended meanwhile stays as it is.
func (vt *v1Task) asking() func() {
	id := vt.taskID()
	if id == "" {
		return func() {}
	}
	vt.mu.Lock()
	if vt.asks++; vt.asks == 1 {
		vt.tr.edit(id, store.TaskUpdate{Status: store.TaskInputRequired, IfStatus: store.TaskWorking})
	}
	vt.mu.Unlock()
	return func() {
		vt.mu.Lock()
		defer vt.mu.Unlock()
		if vt.asks--; vt.asks == 0 {
			vt.tr.edit(id, store.TaskUpdate{Status: store.TaskWorking, IfStatus: store.TaskInputRequired})
		}
	}
}

// askV1 prepares a question a handler asks over its session (Call.Ask):
// in a task of a 2025-11-25 session, req names the task, and the
// returned function ends the task's input_required; elsewhere req is
// returned as it is.
func askV1(ctx context.Context, req mcp.InputRequest) (mcp.InputRequest, func()) {
	vt := v1TaskOf(ctx)
	if vt == nil {
		return req, func() {}
	}
	return vt.relate(req), vt.asking()
}

// serveStreamV1 serves a GET of 2025-11-25 session sid: the go-sdk serves
// it, through a v1Stream that adds notifications/tasks/status to the
// session's standalone event stream.
func (tr *taskRunner) serveStreamV1(w http.ResponseWriter, r *http.Request, sid string) {
	user, known := tr.s.fastPath.SessionUser(sid)
	if !known || user != subject(r) {
		tr.next.ServeHTTP(w, r) // the go-sdk answers an unknown session (404) or another's (403)
		return
	}
	owner := subject(r)
	if owner == "" {
		owner = "session " + sid
	}
	st := &v1Stream{w: w, owner: owner, seen: map[string]string{}}
	st.opened = func() { tr.v1streams.add(tr, st) }
	tr.next.ServeHTTP(st, r)
	st.mu.Lock()
	st.closed = true // nothing is written once the handler returned
	registered := st.sse
	st.mu.Unlock()
	if registered {
		tr.v1streams.remove(st)
	}
}

// v1Stream is the ResponseWriter the go-sdk serves a 2025-11-25 session's
// GET with. Once the go-sdk has answered it with an event stream, it is
// followed: notifications/tasks/status are written between the go-sdk's
// events, which it passes on whole.
type v1Stream struct {
	w      http.ResponseWriter
	owner  string // whose tasks it hears of (store.Task.Owner)
	opened func()

	mu     sync.Mutex
	sse    bool   // the go-sdk answered with an event stream
	buf    []byte // the go-sdk's partial event
	closed bool   // the handler returned, or writing to the client failed
	// seen is what was sent of each task not ended (status and message);
	// the followed tasks.
	seen map[string]string
}

func (st *v1Stream) Header() http.Header { return st.w.Header() }

func (st *v1Stream) WriteHeader(code int) {
	st.mu.Lock()
	open := !st.sse && code == http.StatusOK && strings.HasPrefix(st.w.Header().Get("Content-Type"), "text/event-stream")
	st.sse = st.sse || open
	st.w.WriteHeader(code)
	st.mu.Unlock()
	if open {
		st.opened()
	}
}

func (st *v1Stream) Write(p []byte) (int, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.sse {
		return st.w.Write(p)
	}
	st.buf = append(st.buf, p...)
	i := bytes.LastIndex(st.buf, []byte("\n\n"))
	if i < 0 {
		return len(p), nil
	}
	_, err := st.w.Write(st.buf[:i+2])
	st.buf = append(st.buf[:0], st.buf[i+2:]...)
	if err != nil {
		st.closed = true
	}
	return len(p), err
}

// Flush sends what was written.
func (st *v1Stream) Flush() {
	st.mu.Lock()
	defer st.mu.Unlock()
	http.NewResponseController(st.w).Flush()
}

// Unwrap gives http.ResponseController the writer underneath.
func (st *v1Stream) Unwrap() http.ResponseWriter { return st.w }

// send writes the status of rec, unless it is what was sent last; a task
// that ended is not followed any more.
func (st *v1Stream) send(rec store.Task) {
	state := string(rec.Status) + "\x00" + rec.Message
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed || st.seen[rec.ID] == state {
		return
	}
	if rec.Status.Final() {
		delete(st.seen, rec.ID)
	} else {
		st.seen[rec.ID] = state
	}
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": taskStatusMethod, "params": taskV1(rec)})
	if err != nil {
		return
	}
	ev := make([]byte, 0, len(b)+24)
	ev = append(ev, "event: message\ndata: "...)
	ev = append(ev, b...)
	ev = append(ev, "\n\n"...)
	if _, err := st.w.Write(ev); err != nil {
		st.closed = true
		return
	}
	http.NewResponseController(st.w).Flush()
}

// forget stops following task id (it expired).
func (st *v1Stream) forget(id string) {
	st.mu.Lock()
	delete(st.seen, id)
	st.mu.Unlock()
}

// followed returns the ids of the tasks followed.
func (st *v1Stream) followed() []string {
	st.mu.Lock()
	defer st.mu.Unlock()
	ids := make([]string, 0, len(st.seen))
	for id := range st.seen {
		ids = append(ids, id)
	}
	return ids
}

// v1Streams are the event streams of 2025-11-25 sessions open here, by
// the owner of the tasks they hear of. While there is one, the replica
// hears topicTaskChanged.
type v1Streams struct {
	mu      sync.Mutex
	byOwner map[string]map[*v1Stream]struct{}
	n       int
	stop    context.CancelFunc
}

// add registers st; with the first stream, it subscribes to
// topicTaskChanged before it returns (or, should the store be down, keeps
// trying in the background).
func (vs *v1Streams) add(tr *taskRunner, st *v1Stream) {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	if vs.byOwner == nil {
		vs.byOwner = map[string]map[*v1Stream]struct{}{}
	}
	if vs.byOwner[st.owner] == nil {
		vs.byOwner[st.owner] = map[*v1Stream]struct{}{}
	}
	vs.byOwner[st.owner][st] = struct{}{}
	if vs.n++; vs.stop == nil {
		ctx, cancel := context.WithCancel(context.Background())
		vs.stop = cancel
		sub, _ := tr.bus.Subscribe(ctx, topicTaskChanged)
		go vs.hear(ctx, tr, sub)
	}
}

// remove forgets st; with the last stream, it stops hearing.
func (vs *v1Streams) remove(st *v1Stream) {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	delete(vs.byOwner[st.owner], st)
	if len(vs.byOwner[st.owner]) == 0 {
		delete(vs.byOwner, st.owner)
	}
	if vs.n--; vs.n == 0 && vs.stop != nil {
		vs.stop()
		vs.stop = nil
	}
}

// of returns the streams hearing of owner's tasks; all of them for "".
func (vs *v1Streams) of(owner string, all bool) []*v1Stream {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	var sts []*v1Stream
	for o, set := range vs.byOwner {
		if all || o == owner {
			for st := range set {
				sts = append(sts, st)
			}
		}
	}
	return sts
}

// hear sends the changes of topicTaskChanged to the streams, and reads
// their followed tasks again every listenResync, until ctx is done;
// while the store is down, it subscribes again every second.
func (vs *v1Streams) hear(ctx context.Context, tr *taskRunner, sub store.Subscription) {
	tick := time.NewTicker(listenResync)
	defer tick.Stop()
	retry := time.NewTicker(time.Second)
	defer retry.Stop()
	defer func() {
		if sub != nil {
			sub.Close()
		}
	}()
	for {
		var msgs <-chan store.Message
		if sub != nil {
			msgs = sub.C()
		}
		select {
		case <-ctx.Done():
			return
		case m, ok := <-msgs:
			if !ok {
				sub.Close()
				sub = nil
				continue
			}
			vs.changed(ctx, tr, string(m.Data), false)
		case <-retry.C:
			if sub == nil {
				if s, err := tr.bus.Subscribe(ctx, topicTaskChanged); err == nil {
					sub = s
				}
			}
		case <-tick.C:
			ids := map[string]bool{}
			for _, st := range vs.of("", true) {
				for _, id := range st.followed() {
					ids[id] = true
				}
			}
			for id := range ids {
				vs.changed(ctx, tr, id, true)
			}
		}
	}
}

// changed reads task id and sends it to the streams of its owner; a
// resync also fails a task whose replica died (its lease ran out), as
// tasks/get would.
func (vs *v1Streams) changed(ctx context.Context, tr *taskRunner, id string, resync bool) {
	rec, err := tr.store.Get(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		for _, st := range vs.of("", true) {
			st.forget(id) // expired: nothing more to tell
		}
		return
	}
	if err != nil {
		return // the store is down: the next resync tries again
	}
	if resync && !rec.Status.Final() && !rec.Lease.IsZero() && time.Now().After(rec.Lease) {
		rec = tr.orphaned(ctx, rec)
	}
	for _, st := range vs.of(rec.Owner, false) {
		st.send(rec)
	}
}
