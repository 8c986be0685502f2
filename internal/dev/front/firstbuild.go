package front

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// firstBuildWait bounds how long the front holds a host's request while the
// first build runs. Hosts give a request about a minute (the TypeScript
// SDK's default is 60s); answering with what there is (nothing, and a
// list_changed later) beats timing out. A first build on a busy machine
// with a cold build cache can take more than half of that.
const firstBuildWait = 50 * time.Second

// startGate is closed once the first build has been reported, good or bad.
type startGate struct {
	once sync.Once
	ch   chan struct{}
}

func newStartGate() *startGate { return &startGate{ch: make(chan struct{})} }

func (g *startGate) open() { g.once.Do(func() { close(g.ch) }) }

// FirstBuildDone releases the requests held for the first build.
func (f *Front) FirstBuildDone() { f.started.open() }

// awaitFirstBuild holds the requests that need the connector until the
// first build is done (at most firstBuildWait): a host that connects while
// mcpgen dev is still building, as a host that starts `mcpgen dev --stdio`
// always does, lists the tools instead of an empty list.
func (f *Front) awaitFirstBuild(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "tools/list", "tools/call", "resources/list", "resources/templates/list", "resources/read",
			"prompts/list", "prompts/get", "completion/complete":
			t := time.NewTimer(firstBuildWait)
			defer t.Stop()
			select {
			case <-f.started.ch:
			case <-t.C:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return next(ctx, method, req)
	}
}

// callFailed turns the failure of a call forwarded to connector c into what
// the host should read: a tool error explaining it (see failure), or the
// connector's own JSON-RPC error as it is.
func (f *Front) callFailed(ctx context.Context, c *Conn, err error) (*mcp.CallToolResult, error) {
	if e := f.failure(ctx, c, err, "call the tool"); e != nil {
		return errorResult(e), nil
	}
	return nil, err
}

// failure explains why a request forwarded to connector c failed with err:
// most often the connector crashed (and the dev loop is restarting it) or
// was replaced by a newer build, which breaks the connection. It returns
// nil when err should reach the host as it is: an error the connector
// answered, or the host's own cancellation. again says what to retry
// ("call the tool").
func (f *Front) failure(ctx context.Context, c *Conn, err error, again string) error {
	var rpcErr *jsonrpc.Error
	if ctx.Err() != nil || errors.As(err, &rpcErr) && !transportCode[rpcErr.Code] {
		return nil
	}
	// The connection breaks as the process dies; its exit is seen a moment
	// later.
	t := time.NewTimer(2 * time.Second)
	defer t.Stop()
	select {
	case <-c.proc.Done():
	case <-t.C:
	case <-ctx.Done():
		return nil
	}
	switch {
	case exited(c.proc) && !c.proc.Expected():
		msg := fmt.Sprintf("the connector crashed during this request (%s); mcpgen dev is restarting it: %s again in a moment", c.proc.ExitStatus(), again)
		if tail := lastLine(c.proc.LastLines()); tail != "" {
			msg += ". Its last output: " + tail
		}
		return errors.New(msg)
	case exited(c.proc) && f.closing.Load():
		return errors.New("mcpgen dev stopped during this request")
	case exited(c.proc):
		return fmt.Errorf("the connector was replaced by a new build during this request; %s again", again)
	}
	return fmt.Errorf("the request to the connector failed: %v", err)
}

// transportCode are the codes the SDK gives its own transport failures
// (rejected by transport, client or server closing), as opposed to errors
// the connector answered.
var transportCode = map[int64]bool{-32005: true, -32004: true, -32003: true}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}
