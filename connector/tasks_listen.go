package connector

// Status pushes of tasks: notifications/tasks on subscriptions/listen
// streams (MCP 2026-07-28, tasks extension SEP-2663).
//
// A client that wants to hear of its tasks instead of polling tasks/get
// lists them in its subscriptions/listen request:
//
//	{"method":"subscriptions/listen","params":{"notifications":{..., "taskIds":["id", ...]}}}
//
// The go-sdk serves subscriptions/listen itself and knows nothing of
// tasks, so the request passes to it unchanged, through a ResponseWriter
// that adds the task part: the acknowledged notification it writes gets
// the accepted notifications.taskIds, and notifications/tasks events are
// written into the same event stream, one right after the ack (the state
// the task is in) and one each time its status or status message
// changes. Only tasks the caller may see are accepted (lookup: with
// authorization, the token subject's own); other ids are left out of the
// ack and never pushed.
//
// Replicas sharing a store learn of a change over the store's Bus: the
// replica that changes a task's record publishes its id on
// topicTaskChanged, and each listen stream following that task, on any
// replica, reads the record and pushes it. The Bus may lose a message, so
// a stream also reads its tasks again every listenResync.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpgen/mcpgen/connector/store"
	"github.com/mcpgen/mcpgen/internal/httpedge"
	"github.com/mcpgen/mcpgen/internal/wire"
)

// topicTaskChanged carries, between replicas sharing a store, the id of a
// task whose record changed (status, status message, questions, result).
// It is not topicTasks, which only the replica running a task hears, and
// whose messages older replicas would take for answers.
const topicTaskChanged = "tasks/changed"

const (
	// maxListenTasks bounds the tasks one listen stream follows; the ids
	// past it are not acknowledged (the client polls them).
	maxListenTasks = 256
	// listenResync is how often a listen stream reads its tasks again,
	// should the Bus have lost the message of a change.
	listenResync = 10 * time.Second
)

// listenRequest is the part of a subscriptions/listen request read here.
type listenRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  struct {
		Notifications struct {
			TaskIDs []string `json:"taskIds"`
		} `json:"notifications"`
	} `json:"params"`
}

// serveListen serves a 2026-07-28 subscriptions/listen whose body is
// body: one asking for task ids gets the tasks it may see pushed on its
// stream; anything else goes to the go-sdk untouched.
func (tr *taskRunner) serveListen(w http.ResponseWriter, r *http.Request, body []byte) {
	r.Body, r.ContentLength = httpedge.NewBody(body), int64(len(body))
	var req listenRequest
	if json.Unmarshal(body, &req) != nil || req.JSONRPC != "2.0" || !wire.ValidID(req.ID) ||
		req.Method != "subscriptions/listen" || len(req.Params.Notifications.TaskIDs) == 0 {
		tr.next.ServeHTTP(w, r) // the go-sdk answers what is wrong, or ignores taskIds
		return
	}
	accepted := tr.acceptTasks(r, req.Params.Notifications.TaskIDs)
	if len(accepted) == 0 {
		tr.next.ServeHTTP(w, r) // an ack without taskIds: none accepted
		return
	}
	ctx, stop := context.WithCancel(r.Context())
	defer stop()
	ls := &listenStream{w: w, taskIDs: accepted, subID: req.ID, acked: make(chan struct{})}
	followed := make(chan struct{})
	go func() {
		defer close(followed)
		tr.follow(ctx, ls)
	}()
	tr.next.ServeHTTP(ls, r)
	ls.mu.Lock()
	// The go-sdk answers at once a listen with nothing it follows itself
	// (only taskIds); the tasks keep the stream open until the client
	// leaves or the server drains (both end the request's ctx). When it
	// followed something too, its answer ended the stream.
	hold := ls.ackSent && !ls.ended && !ls.sdkFollows
	ls.mu.Unlock()
	if hold {
		<-ctx.Done()
	}
	stop()
	<-followed
}

// acceptTasks returns the ids, without repeats and at most
// maxListenTasks, of the tasks the caller of r may see.
func (tr *taskRunner) acceptTasks(r *http.Request, ids []string) []string {
	seen := map[string]bool{}
	var ok []string
	for _, id := range ids {
		if seen[id] || id == "" {
			continue
		}
		seen[id] = true
		if _, err := tr.lookup(r, id); err == nil {
			ok = append(ok, id)
			if len(ok) == maxListenTasks {
				break
			}
		}
	}
	return ok
}

// follow pushes the state of the stream's tasks once the go-sdk's ack
// went out, then each change of them, until ctx is done.
func (tr *taskRunner) follow(ctx context.Context, ls *listenStream) {
	select {
	case <-ls.acked:
	case <-ctx.Done():
		return
	}
	// Watching before the first read: a change made between the two is
	// heard.
	wt := tr.watchers.watch(tr, ls.taskIDs)
	defer tr.watchers.unwatch(wt)
	open := map[string]bool{}
	for _, id := range ls.taskIDs {
		open[id] = true
	}
	pushed := map[string]string{} // what was pushed of each task
	check := func(ids []string) {
		for _, id := range ids {
			if !open[id] || ctx.Err() != nil {
				continue
			}
			rec, err := tr.store.Get(ctx, id)
			if errors.Is(err, store.ErrNotFound) {
				delete(open, id) // expired: nothing more to tell
				continue
			}
			if err != nil {
				continue // the store is down: the next resync tries again
			}
			if !rec.Status.Final() && !rec.Lease.IsZero() && time.Now().After(rec.Lease) {
				rec = tr.orphaned(ctx, rec) // its replica died: failed, as tasks/get says
			}
			state := string(rec.Status) + "\x00" + rec.Message + "\x00" + string(rec.Input)
			if pushed[id] == state {
				continue
			}
			pushed[id] = state
			if !ls.push(taskNotification(rec, ls.subID)) {
				return
			}
			if rec.Status.Final() {
				delete(open, id) // a final task never changes again
			}
		}
	}
	check(ls.taskIDs)
	tick := time.NewTicker(listenResync)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-wt.wake:
			check(wt.take())
		case <-tick.C:
			ids := make([]string, 0, len(open))
			for id := range open {
				ids = append(ids, id)
			}
			check(ids)
		}
	}
}

// taskNotification is the notifications/tasks message of rec: the task
// as tasks/get details it, with the listen request's id in _meta.
func taskNotification(rec store.Task, subID json.RawMessage) []byte {
	params := detailedTask(rec)
	delete(params, "resultType") // a notification is not a result
	params["_meta"] = map[string]any{mcp.MetaKeySubscriptionID: subID}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/tasks", "params": params})
	return b
}

// taskChanged tells every replica's listen streams that the record of
// task id changed. A lost message is made up by the streams' resync.
func (tr *taskRunner) taskChanged(id string) {
	if err := tr.bus.Publish(context.Background(), topicTaskChanged, []byte(id)); err != nil {
		tr.s.logger.Debug("publishing a task's change; listen streams see it at their next resync", "task", id, "err", err)
	}
}

// listenStream is the ResponseWriter the go-sdk serves a listen with. It
// passes the go-sdk's events on, adding the accepted taskIds to the ack
// and holding back the go-sdk's answer when that would end the stream
// while tasks are followed, and writes notifications/tasks between them.
type listenStream struct {
	w       http.ResponseWriter
	taskIDs []string        // the accepted ids
	subID   json.RawMessage // the listen request's id
	acked   chan struct{}   // closed once the ack went out

	mu         sync.Mutex
	sse        bool   // the go-sdk answers with an event stream
	buf        []byte // the go-sdk's partial event
	ackSent    bool
	sdkFollows bool // the go-sdk acknowledged subscriptions of its own
	ended      bool // the go-sdk answered with an error, or not with a stream
	broken     bool // writing to the client failed
}

func (ls *listenStream) Header() http.Header { return ls.w.Header() }

func (ls *listenStream) WriteHeader(code int) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	ls.sse = code == http.StatusOK && bytes.HasPrefix([]byte(ls.w.Header().Get("Content-Type")), []byte("text/event-stream"))
	ls.ended = !ls.sse
	ls.w.WriteHeader(code)
}

func (ls *listenStream) Write(p []byte) (int, error) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if !ls.sse {
		if !ls.ackSent && !ls.ended && bytes.HasPrefix([]byte(ls.w.Header().Get("Content-Type")), []byte("text/event-stream")) {
			ls.sse = true // an implicit 200
		} else {
			ls.ended = true
			return ls.w.Write(p)
		}
	}
	ls.buf = append(ls.buf, p...)
	for {
		i := bytes.Index(ls.buf, []byte("\n\n"))
		if i < 0 {
			return len(p), nil
		}
		ev := ls.event(ls.buf[:i+2])
		ls.buf = ls.buf[i+2:]
		if ev != nil {
			if _, err := ls.w.Write(ev); err != nil {
				ls.broken = true
				return len(p), err
			}
		}
	}
}

// Flush sends what was written.
func (ls *listenStream) Flush() {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	http.NewResponseController(ls.w).Flush()
}

// Unwrap gives http.ResponseController the writer underneath.
func (ls *listenStream) Unwrap() http.ResponseWriter { return ls.w }

// event returns what to write of one event of the go-sdk's (ev, ending
// with its blank line): the ack with the taskIds added, nothing for an
// answer held back, the event itself otherwise.
func (ls *listenStream) event(ev []byte) []byte {
	var data []byte
	lines := bytes.Split(bytes.TrimSuffix(ev, []byte("\n\n")), []byte("\n"))
	at := -1
	for i, l := range lines {
		if d, ok := bytes.CutPrefix(l, []byte("data:")); ok {
			data, at = bytes.TrimPrefix(d, []byte(" ")), i
		}
	}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params map[string]any  `json:"params"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if at < 0 || json.Unmarshal(data, &msg) != nil {
		return ev
	}
	switch {
	case msg.Method == "notifications/subscriptions/acknowledged" && !ls.ackSent:
		var full map[string]any
		json.Unmarshal(data, &full)
		params, _ := full["params"].(map[string]any)
		if params == nil {
			params = map[string]any{}
			full["params"] = params
		}
		notif, _ := params["notifications"].(map[string]any)
		if notif == nil {
			notif = map[string]any{}
		}
		ls.sdkFollows = len(notif) > 0
		notif["taskIds"] = ls.taskIDs
		params["notifications"] = notif
		b, err := json.Marshal(full)
		if err != nil {
			return ev
		}
		lines[at] = append([]byte("data: "), b...)
		ls.ackSent = true
		close(ls.acked)
		return append(bytes.Join(lines, []byte("\n")), "\n\n"...)
	case msg.Method == "" && sameID(msg.ID, ls.subID):
		if msg.Error != nil || !ls.ackSent {
			ls.ended = true
			return ev
		}
		if !ls.sdkFollows {
			return nil // held: the stream stays open for the tasks
		}
	}
	return ev
}

// push writes one notification onto the stream; false once the stream
// cannot take more.
func (ls *listenStream) push(msg []byte) bool {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.broken {
		return false
	}
	ev := make([]byte, 0, len(msg)+24)
	ev = append(ev, "event: message\ndata: "...)
	ev = append(ev, msg...)
	ev = append(ev, "\n\n"...)
	if _, err := ls.w.Write(ev); err != nil {
		ls.broken = true
		return false
	}
	http.NewResponseController(ls.w).Flush()
	return true
}

// sameID reports whether two JSON-RPC ids are the same.
func sameID(a, b json.RawMessage) bool {
	var x, y bytes.Buffer
	if json.Compact(&x, a) != nil || json.Compact(&y, b) != nil {
		return false
	}
	return bytes.Equal(x.Bytes(), y.Bytes())
}

// taskWatchers are the listen streams of this process that follow tasks,
// by task id. While there is one, it hears topicTaskChanged.
type taskWatchers struct {
	mu   sync.Mutex
	byID map[string]map[*taskWatcher]struct{}
	n    int
	stop context.CancelFunc
}

// taskWatcher is one listen stream's: the ids of its tasks that changed
// since it last looked, and a wake-up.
type taskWatcher struct {
	ids   []string
	wake  chan struct{}
	mu    sync.Mutex
	dirty map[string]struct{}
}

// take returns the ids that changed, and forgets them.
func (w *taskWatcher) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	ids := make([]string, 0, len(w.dirty))
	for id := range w.dirty {
		ids = append(ids, id)
	}
	clear(w.dirty)
	return ids
}

// watch registers a watcher of ids; with the first one, it subscribes to
// topicTaskChanged before it returns (or, should the store be down, keeps
// trying in the background).
func (ws *taskWatchers) watch(tr *taskRunner, ids []string) *taskWatcher {
	w := &taskWatcher{ids: ids, wake: make(chan struct{}, 1), dirty: map[string]struct{}{}}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.byID == nil {
		ws.byID = map[string]map[*taskWatcher]struct{}{}
	}
	for _, id := range ids {
		if ws.byID[id] == nil {
			ws.byID[id] = map[*taskWatcher]struct{}{}
		}
		ws.byID[id][w] = struct{}{}
	}
	ws.n++
	if ws.stop == nil {
		ctx, cancel := context.WithCancel(context.Background())
		ws.stop = cancel
		sub, _ := tr.bus.Subscribe(ctx, topicTaskChanged)
		go ws.hear(ctx, tr, sub)
	}
	return w
}

// unwatch forgets a watcher; with the last one, it stops hearing.
func (ws *taskWatchers) unwatch(w *taskWatcher) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	for _, id := range w.ids {
		delete(ws.byID[id], w)
		if len(ws.byID[id]) == 0 {
			delete(ws.byID, id)
		}
	}
	ws.n--
	if ws.n == 0 && ws.stop != nil {
		ws.stop()
		ws.stop = nil
	}
}

// hear delivers topicTaskChanged to the watchers until ctx is done,
// subscribing again every second while the store is down.
func (ws *taskWatchers) hear(ctx context.Context, tr *taskRunner, sub store.Subscription) {
	for ctx.Err() == nil {
		if sub == nil {
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Second):
			}
			var err error
			if sub, err = tr.bus.Subscribe(ctx, topicTaskChanged); err != nil {
				sub = nil
				continue
			}
		}
		for m := range sub.C() {
			ws.changed(string(m.Data))
		}
		sub.Close()
		sub = nil
	}
}

// changed marks task id changed for its watchers and wakes them; it never
// blocks.
func (ws *taskWatchers) changed(id string) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	for w := range ws.byID[id] {
		w.mu.Lock()
		w.dirty[id] = struct{}{}
		w.mu.Unlock()
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
}
