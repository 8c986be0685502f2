package connector

import (
	"context"
	"errors"
	"io"

	"github.com/mcpgen/mcpgen/internal/stdioframe"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeIO serves one client over newline-delimited JSON-RPC read from r and
// written to w, until ctx is done or r ends. A line that is not JSON is
// answered with a -32700 parse error, one that is not a JSON-RPC message
// or is longer than the line limit with -32600; the connection goes on
// either way (the go-sdk's own reader would end it). When r ends, the
// requests read before its end are still answered (at most defaultDrain
// for the last of them), as `printf '...' | BIN --stdio` expects; questions
// to the client fail at once, since it can no longer answer.
func (s *Server) ServeIO(ctx context.Context, r io.Reader, w io.Writer) error {
	maxLine := s.opts.maxLineBytes
	if maxLine <= 0 {
		maxLine = defaultMaxLineBytes
	}
	in, out := stdioframe.Frame(ctx, r, w, stdioframe.Config{
		MaxLine: maxLine, Drain: defaultDrain, Logger: s.logger,
		OnEOF: func() { s.asks.closeAll(errInputClosed) },
	})
	defer in.Close() // unblocks the framing if the server stops first
	// The framing enforces the line limit; the SDK's reader gets whole,
	// valid lines only.
	return s.mcp.Run(ctx, &mcp.IOTransport{Reader: in, Writer: out, MaxLineLength: -1})
}

// errInputClosed ends the questions to a stdio client that closed its input.
var errInputClosed = errors.New("the client closed its input (stdin), so it can answer no more questions")
