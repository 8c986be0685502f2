package runtime

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxLineBytes is the default limit on one line of JSON-RPC read in
// --stdio mode (--stdio-max-line). A longer line is answered with an error
// and skipped; the connector goes on serving.
const DefaultMaxLineBytes = 16 << 20

// WithMaxLineBytes sets the limit on one line read by ServeIO and
// ServeStdio (DefaultMaxLineBytes when unset).
func WithMaxLineBytes(n int) Option { return func(o *options) { o.maxLineBytes = n } }

// ServeIO serves one client over newline-delimited JSON-RPC read from r and
// written to w, until ctx is done or r ends. A line that is not JSON is
// answered with a -32700 parse error, one that is not a JSON-RPC message
// or is longer than the line limit with -32600; the connection goes on
// either way (the go-sdk's own reader would end it).
func (s *Server) ServeIO(ctx context.Context, r io.Reader, w io.Writer) error {
	out := &lineWriter{w: w}
	pr, pw := io.Pipe()
	f := &lineFilter{in: r, next: pw, out: out, max: s.opts.maxLineBytes, logger: s.logger}
	if f.max <= 0 {
		f.max = DefaultMaxLineBytes
	}
	go f.run()
	defer pr.Close() // unblocks the filter if the server stops first
	// The filter enforces the line limit; the SDK's reader gets whole,
	// valid lines only.
	return s.mcp.Run(ctx, &mcp.IOTransport{Reader: pr, Writer: out, MaxLineLength: -1})
}

// lineWriter serializes whole-line writes of the SDK and of the filter.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(p []byte) (int, error) {
	if cancelledAnswer(p) {
		return len(p), nil // the client cancelled the request
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.w.Write(restoreIDs(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (l *lineWriter) Close() error {
	if c, ok := l.w.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// lineFilter reads JSON-RPC lines, passes the valid ones on to the SDK's
// reader and answers the others itself.
type lineFilter struct {
	in     io.Reader
	next   *io.PipeWriter
	out    io.Writer
	max    int
	logger *slog.Logger
	line   int
	// noBatches is set once an initialize names 2025-06-18 or later,
	// versions that do not allow JSON-RPC batches.
	noBatches bool
}

func (f *lineFilter) run() {
	br := bufio.NewReaderSize(f.in, 64<<10)
	var buf []byte
	for {
		buf = buf[:0]
		tooLong := false
		var err error
		for {
			var frag []byte
			frag, err = br.ReadSlice('\n')
			if !tooLong {
				if len(buf)+len(frag) > f.max+1 { // +1: the newline
					tooLong, buf = true, buf[:0]
				} else {
					buf = append(buf, frag...)
				}
			}
			if !errors.Is(err, bufio.ErrBufferFull) {
				break
			}
		}
		if len(buf) > 0 || tooLong {
			f.line++
			if line, ok := f.check(buf, tooLong); !ok {
				buf = nil // do not keep a huge buffer for the next line
			} else if _, werr := f.next.Write(line); werr != nil {
				return // the server stopped
			} else if line[len(line)-1] != '\n' {
				f.next.Write([]byte{'\n'})
			}
			if cap(buf) > 1<<20 {
				buf = nil
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				f.next.Close()
			} else {
				f.next.CloseWithError(err)
			}
			return
		}
	}
}

// check returns the line to pass to the SDK, and false if the line is
// not for the SDK (then it has answered the client).
func (f *lineFilter) check(line []byte, tooLong bool) ([]byte, bool) {
	if tooLong {
		f.reject(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: line %d is longer than the %d-byte limit (--stdio-max-line); it was skipped", f.line, f.max))
		return nil, false
	}
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 {
		return nil, false // blank lines are not messages
	}
	if !json.Valid(trimmed) {
		f.reject(nil, jsonrpc.CodeParseError, fmt.Sprintf("Parse error: line %d is not one JSON value", f.line))
		return nil, false
	}
	if trimmed[0] == '[' {
		var batch []json.RawMessage
		if json.Unmarshal(trimmed, &batch) != nil || len(batch) == 0 {
			f.reject(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: line %d is an empty or malformed batch", f.line))
			return nil, false
		}
		if f.noBatches {
			f.reject(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: line %d is a JSON-RPC batch, which protocol versions from 2025-06-18 do not allow", f.line))
			return nil, false
		}
		for _, m := range batch {
			if !f.message(m) {
				return nil, false
			}
		}
		return line, true
	}
	if !f.message(trimmed) {
		return nil, false
	}
	if mayHaveBigID(trimmed) {
		if fixed, changed := withStringID(trimmed); changed {
			return fixed, true
		}
	}
	return line, true
}

// message reports whether raw is a JSON-RPC message the SDK accepts.
func (f *lineFilter) message(raw []byte) bool {
	msg, err := jsonrpc.DecodeMessage(raw)
	if err != nil {
		f.reject(idOf(raw), jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: line %d is not a JSON-RPC 2.0 message: %v", f.line, err))
		return false
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "initialize" {
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		json.Unmarshal(req.Params, &p)
		f.noBatches = p.ProtocolVersion == "" || p.ProtocolVersion >= "2025-06-18"
	}
	return true
}

// idOf returns the id of a message the SDK cannot decode, when it is a
// string or a number, so the error can name the request.
func idOf(raw []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(raw, &m) != nil || len(m.ID) == 0 {
		return nil
	}
	switch m.ID[0] {
	case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return m.ID
	}
	return nil
}

func (f *lineFilter) reject(id json.RawMessage, code int64, msg string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	f.logger.Warn("stdio: bad input", "line", f.line, "code", code, "err", msg)
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *jsonrpc.Error  `json:"error"`
	}{"2.0", id, &jsonrpc.Error{Code: code, Message: msg}})
	f.out.Write(append(b, '\n'))
}
