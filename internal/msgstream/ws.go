package msgstream

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

// wsSubprotocol is the WebSocket subprotocol of MCP clients (the official
// TypeScript SDK's WebSocketClientTransport offers it).
const wsSubprotocol = "mcp"

// WebSocket returns the handler of the WebSocket transport: one session
// per connection, subprotocol "mcp", one JSON-RPC message per text frame.
// A frame over the message limit closes the connection with 1009, a binary
// frame with 1003; the server pings the client every keep-alive interval
// and drops it when the pong does not come within the write timeout. A
// connection opened with a token that expires is closed with 1008 at its
// next message, so the client reconnects with a fresh token.
func (t *Transports) WebSocket() http.Handler {
	return http.HandlerFunc(t.serveWebSocket)
}

func (t *Transports) serveWebSocket(w http.ResponseWriter, r *http.Request) {
	if !headerHasToken(r.Header, "Sec-WebSocket-Protocol", wsSubprotocol) {
		http.Error(w, "Bad Request: open a WebSocket offering the subprotocol \"mcp\" (Sec-WebSocket-Protocol: mcp)", http.StatusBadRequest)
		return
	}
	c := t.admit(w, r, "websocket")
	if c == nil {
		return
	}
	rc := http.NewResponseController(w)
	// The connection outlives the server's read timeout.
	rc.SetReadDeadline(time.Time{})
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		Subprotocols: []string{wsSubprotocol},
		// The Origin header has been checked in front of this handler, by
		// the same rule as for /mcp (loopback, --allow-origin, --public-url).
		InsecureSkipVerify: true,
		CompressionMode:    websocket.CompressionDisabled,
	})
	if err != nil {
		t.end(c, nil) // Accept answered the request
		return
	}
	ws.SetReadLimit(t.cfg.MaxMessageBytes)
	ctx, cancel := context.WithCancel(context.WithoutCancel(r.Context()))
	defer cancel()
	c.send = func(ctx context.Context, data []byte) error { return ws.Write(ctx, websocket.MessageText, data) }
	c.setStop(func() {
		go ws.Close(websocket.StatusServiceRestart, "the server is restarting; reconnect")
	})
	ss := t.serve(ctx, c)
	defer t.end(c, ss)
	if ss == nil {
		ws.Close(websocket.StatusInternalError, "cannot start a session")
		return
	}
	go t.wsKeepAlive(ctx, ws, c)
	ti := auth.TokenInfoFromContext(r.Context())
	header := r.Header.Clone()
	for {
		typ, data, err := ws.Read(ctx)
		if err != nil {
			if s := websocket.CloseStatus(err); s == -1 && !errors.Is(err, context.Canceled) {
				t.cfg.Logger.Debug("websocket: read", "session", c.id, "err", err)
			}
			ws.CloseNow()
			return
		}
		if typ != websocket.MessageText {
			ws.Close(websocket.StatusUnsupportedData, "send each JSON-RPC message as one text frame")
			return
		}
		if !c.expiry.IsZero() && time.Now().After(c.expiry) {
			t.cfg.Logger.Info("auth: token expired on an open WebSocket; closing it", "session", c.id, "sub", c.subject)
			ws.Close(websocket.StatusPolicyViolation, "the access token expired; reconnect with a fresh one")
			return
		}
		if e := c.deliver(ctx, data, ti, header); e != nil {
			wctx, done := context.WithTimeout(ctx, t.cfg.WriteTimeout)
			err := ws.Write(wctx, websocket.MessageText, errorMessage(data, e))
			done()
			if err != nil {
				return
			}
		}
	}
}

// wsKeepAlive pings the client until ctx is done; a pong that does not
// come within the write timeout ends the connection.
func (t *Transports) wsKeepAlive(ctx context.Context, ws *websocket.Conn, c *msgConn) {
	tick := time.NewTicker(t.cfg.KeepAlive)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.done:
			ws.CloseNow()
			return
		case <-tick.C:
			pctx, cancel := context.WithTimeout(ctx, t.cfg.WriteTimeout)
			err := ws.Ping(pctx)
			cancel()
			if err != nil {
				if ctx.Err() == nil {
					t.cfg.Logger.Info("session ended: the client did not answer a ping", "transport", c.kind, "session", c.id, "err", err)
				}
				ws.CloseNow()
				return
			}
		}
	}
}

// headerHasToken reports whether the comma-separated header key of h lists
// token (case-insensitively).
func headerHasToken(h http.Header, key, token string) bool {
	for _, v := range h.Values(key) {
		for _, t := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}
