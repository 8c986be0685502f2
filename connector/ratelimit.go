package connector

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpgen/mcpgen/connector/store"
	"github.com/mcpgen/mcpgen/internal/authgate"
	"github.com/mcpgen/mcpgen/internal/httpedge"
	"github.com/mcpgen/mcpgen/internal/ratespec"
)

// bucket is the token bucket of a rate: N calls, refilled over Per.
func bucketOf(r Rate) store.Bucket { return store.Bucket{Size: r.N, Per: r.Per} }

// limitKey names the bucket of one caller under one limit in the state
// store's limiter: tool is "" for the server-wide limit.
func limitKey(tool, caller string) string {
	if tool == "" {
		return "ratelimit:server:" + caller
	}
	return "ratelimit:tool:" + tool + ":" + caller
}

// caller names who makes a request, for rate limits: the verified subject,
// else the client address, else "local" (stdio).
func caller(req *mcp.CallToolRequest) string {
	if extra := req.GetExtra(); extra != nil {
		if extra.TokenInfo != nil {
			if id := authgate.FromTokenInfo(extra.TokenInfo); id != nil {
				return "sub:" + id.Subject
			}
		}
		if extra.Header != nil {
			if a := extra.Header.Get(httpedge.CallerHeader); a != "" {
				return "addr:" + a
			}
		}
	}
	return "local"
}

// rateLimited returns the isError result for a call over its tool's or
// the server-wide limit, or nil when the call may go ahead.
func (t *tool) rateLimited(ctx context.Context, req *mcp.CallToolRequest) *mcp.CallToolResult {
	s := t.s
	if t.def.RateLimit.IsZero() && s.opts.rateLimit.IsZero() {
		return nil
	}
	who := caller(req)
	limiter := s.state.Limiter()
	if r := t.def.RateLimit; !r.IsZero() {
		ok, wait, err := limiter.Take(ctx, limitKey(t.def.Name, who), 1, bucketOf(r))
		if err != nil {
			return s.limiterFailed(err)
		}
		if !ok {
			return s.limitResult(fmt.Sprintf("at most %d calls to %s per %s", r.N, t.def.Name, ratespec.Short(r.Per)), wait)
		}
	}
	if r := s.opts.rateLimit; !r.IsZero() {
		ok, wait, err := limiter.Take(ctx, limitKey("", who), 1, bucketOf(r))
		if err != nil {
			return s.limiterFailed(err)
		}
		if !ok {
			return s.limitResult(fmt.Sprintf("at most %d tool calls per %s", r.N, ratespec.Short(r.Per)), wait)
		}
	}
	return nil
}

// limiterFailed refuses a limited call when the state store cannot say
// whether the caller is within its limit: limits fail closed.
func (s *Server) limiterFailed(err error) *mcp.CallToolResult {
	s.logger.Error("rate limit unavailable", "err", err)
	return errorResult("The rate limit could not be checked (the connector's state store failed). Retry in a few seconds.")
}

func (s *Server) limitResult(limit string, wait time.Duration) *mcp.CallToolResult {
	secs := int(wait.Round(time.Second) / time.Second)
	if secs < 1 {
		secs = 1
	}
	s.logger.Info("rate limit", "limit", limit, "retry_after", wait.Round(time.Millisecond))
	return errorResult(fmt.Sprintf("Rate limit reached (%s for each caller). Retry in %d s.", limit, secs))
}

// Rate is a number of calls per period, such as 120 per minute
// (--rate-limit 120/1m, or a tool's ratelimit=10/1m). Calls may come in a
// burst of up to N, then one per Per/N.
type Rate = ratespec.Rate
