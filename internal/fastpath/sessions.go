package fastpath

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/mcpgen/mcpgen/internal/wire"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TrackSessions is receiving middleware on the go-sdk server that tells
// the fast path about sessions: which exist (from initialize until they
// close), which clients could be sent requests, and which chose a log
// level.
func (f *Handler) TrackSessions(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		ss, ok := req.GetSession().(*mcp.ServerSession)
		if !ok || ss == nil || ss.ID() == "" {
			return next(ctx, method, req)
		}
		id := ss.ID()
		if method == "initialize" && f.hooked {
			// Known before the session can close: its close reaches
			// sessionClosed through the event store.
			if ip, ok := req.GetParams().(*mcp.InitializeParams); ok && ip != nil && ip.ProtocolVersion < wire.StatelessVersion {
				fs := f.newSession(ss, ip, req.GetExtra())
				x, loaded := f.sessions.LoadOrStore(id, fs)
				if !loaded {
					res, err := next(ctx, method, req)
					if err != nil {
						f.sessionClosed(id)
					}
					return res, err
				}
				// The initialize of a parked session, made again to
				// bring it back (park.go): this is its go-sdk session now.
				x.(*fastSession).ss.CompareAndSwap(nil, ss)
			}
		}
		res, err := next(ctx, method, req)
		if x, ok := f.sessions.Load(id); ok {
			fs := x.(*fastSession)
			switch {
			case method == "logging/setLevel" && err == nil:
				fs.logging.Store(true)
			case method == "resources/subscribe" && err == nil:
				if p, ok := req.GetParams().(*mcp.SubscribeParams); ok {
					fs.subscribed(p.URI, true) // the go-sdk server keeps its subscriptions
				}
			case method == "resources/unsubscribe" && err == nil:
				if p, ok := req.GetParams().(*mcp.UnsubscribeParams); ok {
					fs.subscribed(p.URI, false)
				}
			case method == "notifications/initialized":
				if !fs.initialized.Swap(true) && f.onInitialized != nil {
					f.onInitialized(id)
				}
			}
			return res, err
		}
		if method != "initialize" || err != nil || f.hooked {
			return res, err
		}
		// Without an event store, a goroutine per session waits for it
		// to close.
		ip := ss.InitializeParams()
		if ip == nil || ip.ProtocolVersion >= wire.StatelessVersion {
			return res, err
		}
		fs := f.newSession(ss, ip, req.GetExtra())
		if _, loaded := f.sessions.LoadOrStore(id, fs); loaded {
			fs.cancel()
			return res, err
		}
		go func() {
			ss.Wait()
			f.endSession(fs)
			f.sessions.CompareAndDelete(id, fs)
		}()
		return res, err
	}
}

func (f *Handler) newSession(ss *mcp.ServerSession, ip *mcp.InitializeParams, extra *mcp.RequestExtra) *fastSession {
	ctx, cancel := context.WithCancel(context.Background())
	c := ip.Capabilities
	fs := &fastSession{id: ss.ID(), ctx: ctx, cancel: cancel, eligible: c == nil || (c.Sampling == nil && c.Elicitation == nil),
		version: ip.ProtocolVersion}
	fs.ss.Store(ss)
	if params, err := json.Marshal(ip); err == nil {
		fs.init = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":%s}`, params)
	}
	if extra != nil && extra.TokenInfo != nil {
		fs.userID = extra.TokenInfo.UserID
	}
	return fs
}

// sessionClosed forgets a session and ends the calls it has in flight.
func (f *Handler) sessionClosed(id string) {
	if x, ok := f.sessions.LoadAndDelete(id); ok {
		f.endSession(x.(*fastSession))
	}
}

// endSession cancels session fs's context and its calls in flight. The
// calls are found in the in-flight table rather than each registered with
// the session's context: a session ends once, and a call starts every
// time (serve checks the context after registering).
func (f *Handler) endSession(fs *fastSession) {
	fs.cancel()
	f.calls.endSession(fs.id)
}

// closeHook is the sessions' event store, which the go-sdk tells when a
// session closes (DELETE, idle timeout, shutdown): the fast path learns it
// there.
type closeHook struct {
	mcp.EventStore
	f *Handler
}

func (h *closeHook) SessionClosed(ctx context.Context, sessionID string) error {
	if x, ok := h.f.sessions.Load(sessionID); ok && x.(*fastSession).parking.Load() {
		return nil // parked, not closed: its events stay (Park)
	}
	h.f.sessionClosed(sessionID)
	h.f.d.SessionClosed(sessionID)
	return h.EventStore.SessionClosed(ctx, sessionID)
}

// HookEvents wraps the sessions' event store (nil for none), which the
// go-sdk handler of sessions must then use: the fast path stores its
// resumable answers there, and learns there when a session closes (and
// tells Dispatcher.SessionClosed). It must be called before f serves.
func (f *Handler) HookEvents(store mcp.EventStore) mcp.EventStore {
	if store == nil {
		return nil
	}
	f.events, f.hooked = store, true
	return &closeHook{EventStore: store, f: f}
}

// A session is parked when the go-sdk session behind it is closed while
// the fast path keeps what it knows of it: the client's initialize, its
// capabilities and version, its owner, its stored answers. A parked
// session costs the fast path's record of it rather than a go-sdk session
// (its connection, its goroutine, its streams); the fast path serves its
// calls as before, with a nil Session in the request and a CallSession in
// the handler's ctx. Whatever else comes for it (a GET, a DELETE, a
// prompt, a question to its client ...) first brings it back: the server
// makes its initialize and notifications/initialized again, under its id,
// into a new go-sdk session (the connector's park.go decides when and
// does it; TrackSessions binds the new go-sdk session).

// OwnedBy reports whether a request whose token is ti may use a session
// its owner opened ("" for a session opened without auth): the go-sdk's
// rule, which answers 403 otherwise.
func OwnedBy(owner string, ti *auth.TokenInfo) bool {
	return owner == "" || (ti != nil && ti.UserID == owner)
}

// SessionID returns the id of the session of request req, served in ctx:
// its go-sdk session's, or, while parked, the one ctx names
// (CallSession); "" for a request without a session.
func SessionID(ctx context.Context, req mcp.Request) string {
	if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil {
		return ss.ID()
	}
	if cs := CallSessionFrom(ctx); cs != nil {
		return cs.ID
	}
	return ""
}

// Park parks session id when ParkReady(id, first) says it may be; it
// reports whether it did. The caller makes sure that no request of the
// session is in progress.
func (f *Handler) Park(id string, first bool) bool {
	x, ok := f.sessions.Load(id)
	if !ok || !f.hooked || !f.ParkReady(id, first) {
		return false
	}
	fs := x.(*fastSession)
	ss := fs.ss.Load()
	if ss == nil {
		return false
	}
	fs.parkedOnce.Store(true)
	fs.parking.Store(true)
	fs.ss.Store(nil)
	ss.Close()
	fs.parking.Store(false)
	return true
}

// ParkReady reports whether session id may be parked: a go-sdk session
// whose initialization is done and which holds nothing its initialize
// would not bring back: no log level its client chose, no subscription,
// no task (Pin). With first, only if it was never parked: the first time
// comes right after the initialization.
func (f *Handler) ParkReady(id string, first bool) bool {
	x, ok := f.sessions.Load(id)
	if !ok {
		return false
	}
	fs := x.(*fastSession)
	return fs.init != nil && fs.ss.Load() != nil && fs.initialized.Load() && !fs.logging.Load() && !fs.pinned.Load() && !fs.hasSubs() &&
		!(first && fs.parkedOnce.Load())
}

// subscribed records that the session's go-sdk session has subscribed to
// uri (on) or unsubscribed from it.
func (fs *fastSession) subscribed(uri string, on bool) {
	fs.subsMu.Lock()
	defer fs.subsMu.Unlock()
	if !on {
		delete(fs.subs, uri)
		return
	}
	if fs.subs == nil {
		fs.subs = make(map[string]struct{})
	}
	fs.subs[uri] = struct{}{}
}

// hasSubs reports whether the session's go-sdk session holds a
// subscription.
func (fs *fastSession) hasSubs() bool {
	fs.subsMu.Lock()
	defer fs.subsMu.Unlock()
	return len(fs.subs) > 0
}

// Pin keeps session id from being parked again: its go-sdk session holds
// what making its initialize again would not bring back.
func (f *Handler) Pin(id string) {
	if x, ok := f.sessions.Load(id); ok {
		x.(*fastSession).pinned.Store(true)
	}
}

// ParkedCount returns how many sessions are parked.
func (f *Handler) ParkedCount() int {
	n := 0
	f.sessions.Range(func(_, x any) bool {
		if x.(*fastSession).ss.Load() == nil {
			n++
		}
		return true
	})
	return n
}

// ParkedSession is what brings a parked session back.
type ParkedSession struct {
	Init    []byte // its initialize request
	Version string // the protocol version its client asked for
	UserID  string // the subject whose token opened it ("" without auth)
}

// Parked returns what brings session id back, and whether it is parked.
func (f *Handler) Parked(id string) (ParkedSession, bool) {
	x, found := f.sessions.Load(id)
	if !found {
		return ParkedSession{}, false
	}
	fs := x.(*fastSession)
	if fs.ss.Load() != nil {
		return ParkedSession{}, false
	}
	return ParkedSession{Init: fs.init, Version: fs.version, UserID: fs.userID}, true
}

// CloseParked ends parked session id for good (its idle timeout, or room
// made for another session of its caller): the fast path forgets it, the
// Dispatcher is told, and its stored events go.
func (f *Handler) CloseParked(ctx context.Context, id string) {
	x, ok := f.sessions.Load(id)
	if !ok || x.(*fastSession).ss.Load() != nil {
		return
	}
	f.sessionClosed(id)
	f.d.SessionClosed(id)
	if f.events != nil {
		if err := f.events.SessionClosed(ctx, id); err != nil {
			f.cfg.Logger.Warn("the events of a closed session were not deleted", "session", id, "err", err)
		}
	}
}

// SetParking sets how a handler brings back the parked session of its
// call (CallSession.Live): unpark makes the session live again from the
// request r of the call and returns its go-sdk session, or nil; and
// initialized is told when a session's notifications/initialized has been
// handled (by the go-sdk's goroutine of the session, which may be after
// the POST that carried it was answered). It must be called before f
// serves.
func (f *Handler) SetParking(unpark func(r *http.Request, id string) *mcp.ServerSession, initialized func(id string)) {
	f.unpark, f.onInitialized = unpark, initialized
}

type callSessionKey struct{}

// CallSession is what the ctx of a call served in a parked session says
// of the session.
type CallSession struct {
	ID string
	f  *Handler
	fs *fastSession
	r  *http.Request
}

// CallSessionFrom returns the CallSession of ctx, or nil when ctx is not
// that of a call served in a parked session.
func CallSessionFrom(ctx context.Context) *CallSession {
	cs, _ := ctx.Value(callSessionKey{}).(*CallSession)
	return cs
}

// Live returns the go-sdk session of the call, bringing it back when it
// is still parked; nil when it cannot (the session has ended).
func (cs *CallSession) Live() *mcp.ServerSession {
	if ss := cs.fs.ss.Load(); ss != nil {
		return ss
	}
	if cs.f.unpark == nil {
		return nil
	}
	return cs.f.unpark(cs.r, cs.ID)
}
