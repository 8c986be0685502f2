package wire

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// cancelMarker marks the answer of a cancelled request. It is a _meta key
// with a random part, so no real answer can carry it.
var cancelMarker = func() []byte {
	b := make([]byte, 8)
	rand.Read(b)
	return []byte(`{"_meta":{"mcpgen/cancelled-` + hex.EncodeToString(b) + `":true}`)
}()

func CancelledResult(method string) mcp.Result {
	key := string(cancelMarker[len(`{"_meta":{"`) : len(cancelMarker)-len(`":true}`)])
	meta := mcp.Meta{key: true}
	switch method {
	case "resources/read":
		return &mcp.ReadResourceResult{Meta: meta}
	case "prompts/get":
		return &mcp.GetPromptResult{Meta: meta}
	}
	return &mcp.CallToolResult{Meta: meta}
}

// CancelledAnswer reports whether p, one message (a line, or an SSE event)
// about to be written, answers a cancelled request. The marker opens the
// result, so only the start of p is searched.
func CancelledAnswer(p []byte) bool {
	const window = 1024
	if len(p) > window {
		p = p[:window]
	}
	return bytes.Contains(p, cancelMarker)
}

// CancelledByClient reports whether a request's context was cancelled by
// the client (notifications/cancelled), rather than by a deadline.
func CancelledByClient(ctx context.Context) bool {
	return ctx.Err() == context.Canceled && context.Cause(ctx) == context.Canceled
}
