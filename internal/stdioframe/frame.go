// Package stdioframe turns the input of a stdio client, newline-delimited
// JSON-RPC, into whole and valid lines for the go-sdk's reader, and the
// go-sdk's lines into the client's output. A line that is not JSON is
// answered with a -32700 parse error; one that is not a JSON-RPC message,
// a batch its protocol version forbids or one longer than the line limit
// with -32600; the connection goes on either way. Request ids the go-sdk
// would change come back to the client as sent, and a request the client
// cancelled gets no answer. When the input ends, the requests read before
// its end are still answered, within a drain time.
package stdioframe

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/internal/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Config says how Frame frames.
type Config struct {
	// MaxLine limits one line of input, its newline excluded; a longer
	// line is answered and skipped. Required (the connector's
	// --stdio-max-line).
	MaxLine int
	// Drain bounds how long, once the input ends, the requests read are
	// waited for before the reader given to the SDK ends. Required.
	Drain time.Duration
	// Logger gets a warning for each line answered here and for requests
	// dropped at the end of the drain; text on stderr when nil.
	Logger *slog.Logger
	// OnEOF, when set, is called once the input ends, before the drain:
	// questions to a client that can no longer answer them should fail.
	OnEOF func()
}

// Frame starts reading r, a client's input, in a goroutine of its own.
// It returns what the SDK reads from: whole lines, each one valid JSON-RPC
// (so the SDK's own line limit can be off), ending once r has ended and
// the requests read before its end are answered (at most Drain, or until
// ctx is done). And what the SDK writes to: one whole message a Write,
// written on to w; Close closes w if it is an io.Closer. Closing in stops
// the reading at the next line, as when the server stops first.
func Frame(ctx context.Context, r io.Reader, w io.Writer, cfg Config) (in io.ReadCloser, out io.WriteCloser) {
	if cfg.MaxLine <= 0 || cfg.Drain <= 0 {
		panic(fmt.Sprintf("stdioframe: MaxLine (%d) and Drain (%s) must be set", cfg.MaxLine, cfg.Drain))
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	pending := &wire.Inflight{}
	lw := &lineWriter{w: w, pending: pending}
	pr, pw := io.Pipe()
	f := &lineFilter{in: r, next: pw, out: lw, max: cfg.MaxLine, drainFor: cfg.Drain, logger: cfg.Logger,
		pending: pending, ctx: ctx, onEOF: cfg.OnEOF}
	go f.run()
	return pr, lw
}

// lineWriter serializes whole-line writes of the SDK and of the filter.
type lineWriter struct {
	mu      sync.Mutex
	w       io.Writer
	pending *wire.Inflight // the SDK's answers are counted off it
}

func (l *lineWriter) Write(p []byte) (int, error) {
	if l.pending != nil && wire.IsAnswer(p) {
		defer l.pending.Done() // once written
	}
	return l.write(p)
}

// write writes p without counting it as an answer (the filter's own
// rejections answer lines the SDK never saw).
func (l *lineWriter) write(p []byte) (int, error) {
	if wire.CancelledAnswer(p) {
		return len(p), nil // the client cancelled the request
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.w.Write(wire.WithErrorCode(wire.RestoreIDs(p))); err != nil {
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
	in   io.Reader
	next *io.PipeWriter
	out  *lineWriter
	max  int
	// drainFor bounds the wait for answers at the end of the input.
	drainFor time.Duration
	logger   *slog.Logger
	line     int
	// noBatches is set once an initialize names 2025-06-18 or later,
	// versions that do not allow JSON-RPC batches.
	noBatches bool
	// pending counts the lines with requests passed on and not answered
	// yet (a batch is one line, answered by one line); calls counts the
	// requests of the line being checked.
	pending *wire.Inflight
	calls   int
	ctx     context.Context
	onEOF   func()
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
			f.calls = 0
			if line, ok := f.check(buf, tooLong); !ok {
				buf = nil // do not keep a huge buffer for the next line
			} else {
				if f.calls > 0 && f.pending != nil {
					f.pending.Add() // before the SDK can answer
				}
				if _, werr := f.next.Write(line); werr != nil {
					return // the server stopped
				} else if line[len(line)-1] != '\n' {
					f.next.Write([]byte{'\n'})
				}
			}
			if cap(buf) > 1<<20 {
				buf = nil
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				f.drain()
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
	if wire.MayHaveBigID(trimmed) {
		if fixed, changed := wire.WithStringID(trimmed); changed {
			return fixed, true
		}
	}
	return line, true
}

// message reports whether raw is a JSON-RPC message the SDK accepts.
func (f *lineFilter) message(raw []byte) bool {
	if shape, ok := wire.ShapeOf(raw); ok {
		if id, why := shape.Malformed(); why != "" {
			f.reject(id, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: line %d: %s", f.line, why))
			return false
		}
	}
	msg, err := jsonrpc.DecodeMessage(raw)
	if err != nil {
		f.reject(wire.IDOf(raw), jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: line %d is not a JSON-RPC 2.0 message: %v", f.line, err))
		return false
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		f.calls++
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

// drain waits, at the end of the input, until the SDK has answered every
// request passed on (at most drainFor, or until ctx ends), so that a
// client that writes its requests and closes its end still gets the
// answers. Questions to the client end at once: it cannot answer them.
func (f *lineFilter) drain() {
	if f.onEOF != nil {
		f.onEOF()
	}
	if f.pending == nil {
		return
	}
	ctx := f.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	t := time.NewTimer(f.drainFor)
	defer t.Stop()
	select {
	case <-f.pending.Idle():
	case <-ctx.Done():
	case <-t.C:
		f.logger.Warn("stdio: input ended; requests still running after the drain time are dropped", "drain", f.drainFor)
	}
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
	f.out.write(append(b, '\n'))
}
