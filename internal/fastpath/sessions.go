package fastpath

import (
	"context"

	"github.com/mcpgen/mcpgen/internal/wire"
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
				fs := f.newSession(ss, ip.Capabilities, req.GetExtra())
				if _, loaded := f.sessions.LoadOrStore(id, fs); !loaded {
					res, err := next(ctx, method, req)
					if err != nil {
						f.sessionClosed(id)
					}
					return res, err
				}
			}
		}
		res, err := next(ctx, method, req)
		if x, ok := f.sessions.Load(id); ok {
			fs := x.(*fastSession)
			if method == "logging/setLevel" && err == nil {
				fs.logging.Store(true)
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
		fs := f.newSession(ss, ip.Capabilities, req.GetExtra())
		if _, loaded := f.sessions.LoadOrStore(id, fs); loaded {
			fs.cancel()
			return res, err
		}
		go func() {
			ss.Wait()
			fs.cancel()
			f.sessions.CompareAndDelete(id, fs)
		}()
		return res, err
	}
}

func (f *Handler) newSession(ss *mcp.ServerSession, c *mcp.ClientCapabilities, extra *mcp.RequestExtra) *fastSession {
	ctx, cancel := context.WithCancel(context.Background())
	fs := &fastSession{ss: ss, ctx: ctx, cancel: cancel, eligible: c == nil || (c.Sampling == nil && c.Elicitation == nil)}
	if extra != nil && extra.TokenInfo != nil {
		fs.userID = extra.TokenInfo.UserID
	}
	return fs
}

// sessionClosed forgets a session and ends the calls it has in flight.
func (f *Handler) sessionClosed(id string) {
	if x, ok := f.sessions.LoadAndDelete(id); ok {
		x.(*fastSession).cancel()
	}
}

// closeHook is the sessions' event store, which the go-sdk tells when a
// session closes (DELETE, idle timeout, shutdown): the fast path learns it
// there.
type closeHook struct {
	mcp.EventStore
	f *Handler
}

func (h *closeHook) SessionClosed(ctx context.Context, sessionID string) error {
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
