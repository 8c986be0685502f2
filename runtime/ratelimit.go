package runtime

import (
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/time/rate"
)

// Rate is a number of calls per period, such as 120 per minute
// (--rate-limit 120/1m, or a tool's ratelimit=10/1m). Calls may come in a
// burst of up to N, then one per Per/N.
type Rate struct {
	N   int
	Per time.Duration
}

// IsZero reports whether r sets no limit.
func (r Rate) IsZero() bool { return r.N == 0 }

func (r Rate) String() string {
	if r.IsZero() {
		return ""
	}
	return fmt.Sprintf("%d/%s", r.N, shortDuration(r.Per))
}

// ParseRate parses N/DURATION: a positive number of calls and a Go
// duration ("120/1m", "5/30s", "1000/1h"); a bare unit means one of it
// ("10/s", "60/m", "500/h").
func ParseRate(s string) (Rate, error) {
	n, per, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return Rate{}, fmt.Errorf("want N/DURATION such as 120/1m, got %q", s)
	}
	count, err := strconv.Atoi(n)
	if err != nil || count <= 0 {
		return Rate{}, fmt.Errorf("want a positive number of calls before the slash in %q (such as 120/1m)", s)
	}
	switch per {
	case "s", "m", "h":
		per = "1" + per
	}
	d, err := time.ParseDuration(per)
	if err != nil || d <= 0 {
		return Rate{}, fmt.Errorf("want a duration such as 1m, 30s or 1h after the slash in %q", s)
	}
	return Rate{N: count, Per: d}, nil
}

func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// WithRateLimit limits tools/call per caller across all tools: per
// subject with auth, per client address without (--rate-limit). A call
// over the limit gets an isError result saying when to retry.
func WithRateLimit(r Rate) Option { return func(o *options) { o.rateLimit = r } }

// maxLimiters bounds how many callers' limiters are kept; past it, those
// whose bucket has refilled (as good as new) are dropped first.
const maxLimiters = 10_000

// limiterSet holds one token bucket per (limit, caller) in a bounded map,
// so a stream of new callers cannot grow memory without end.
type limiterSet struct {
	now func() time.Time
	mu  sync.Mutex
	m   map[limitKey]*rate.Limiter
}

type limitKey struct {
	tool   string // "" for the server-wide limit
	caller string
}

func newLimiterSet(now func() time.Time) *limiterSet {
	if now == nil {
		now = time.Now
	}
	return &limiterSet{now: now, m: map[limitKey]*rate.Limiter{}}
}

// allow takes one call from the caller's bucket for this limit; when the
// bucket is empty it takes nothing and says how long until it can.
func (ls *limiterSet) allow(k limitKey, r Rate) (bool, time.Duration) {
	now := ls.now()
	ls.mu.Lock()
	defer ls.mu.Unlock()
	lim := ls.m[k]
	if lim == nil {
		if len(ls.m) >= maxLimiters {
			ls.evict(now)
		}
		lim = rate.NewLimiter(rate.Every(r.Per/time.Duration(r.N)), r.N)
		ls.m[k] = lim
	}
	res := lim.ReserveN(now, 1)
	if d := res.DelayFrom(now); d > 0 {
		res.CancelAt(now)
		return false, d
	}
	return true, 0
}

func (ls *limiterSet) evict(now time.Time) {
	for k, lim := range ls.m {
		if lim.TokensAt(now) >= float64(lim.Burst()) {
			delete(ls.m, k)
		}
	}
	for k := range ls.m { // still full: drop arbitrary ones
		if len(ls.m) < maxLimiters*9/10 {
			break
		}
		delete(ls.m, k)
	}
}

// callerHeader carries the client's address from the HTTP layer to the
// tool handlers (the SDK passes request headers along). It is always
// overwritten, so a client cannot choose its own.
const callerHeader = "X-Mcpgen-Caller-Addr"

func callerAddr(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, err := net.SplitHostPort(r.RemoteAddr)
		if err != nil {
			host = r.RemoteAddr
		}
		r.Header.Set(callerHeader, host)
		next.ServeHTTP(w, r)
	})
}

// caller names who makes a request, for rate limits: the verified subject,
// else the client address, else "local" (stdio).
func caller(req *mcp.CallToolRequest) string {
	if extra := req.GetExtra(); extra != nil {
		if extra.TokenInfo != nil {
			if id, _ := extra.TokenInfo.Extra[identityKey].(*Identity); id != nil {
				return "sub:" + id.Subject
			}
		}
		if extra.Header != nil {
			if a := extra.Header.Get(callerHeader); a != "" {
				return "addr:" + a
			}
		}
	}
	return "local"
}

// rateLimited returns the isError result for a call over its tool's or
// the server-wide limit, or nil when the call may go ahead.
func (t *tool) rateLimited(req *mcp.CallToolRequest) *mcp.CallToolResult {
	s := t.s
	if t.def.RateLimit.IsZero() && s.opts.rateLimit.IsZero() {
		return nil
	}
	who := caller(req)
	if r := t.def.RateLimit; !r.IsZero() {
		if ok, wait := s.limits.allow(limitKey{t.def.Name, who}, r); !ok {
			return t.s.limitResult(fmt.Sprintf("at most %d calls to %s per %s", r.N, t.def.Name, shortDuration(r.Per)), wait)
		}
	}
	if r := s.opts.rateLimit; !r.IsZero() {
		if ok, wait := s.limits.allow(limitKey{"", who}, r); !ok {
			return t.s.limitResult(fmt.Sprintf("at most %d tool calls per %s", r.N, shortDuration(r.Per)), wait)
		}
	}
	return nil
}

func (s *Server) limitResult(limit string, wait time.Duration) *mcp.CallToolResult {
	secs := int(wait.Round(time.Second) / time.Second)
	if secs < 1 {
		secs = 1
	}
	s.logger.Info("rate limit", "limit", limit, "retry_after", wait.Round(time.Millisecond))
	return errorResult(fmt.Sprintf("Rate limit reached (%s for each caller). Retry in %d s.", limit, secs))
}
