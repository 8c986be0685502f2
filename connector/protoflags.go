package connector

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/internal/cmdline"
)

// protocol holds the flags that bound sessions, questions to clients and
// stdio input.
type protocol struct {
	sessionIdle   *time.Duration
	clientTimeout *time.Duration
	maxLine       *byteSize
	maxSessions   *int
	perCaller     *int
}

func protocolFlags(c *cmdline.Set) *protocol {
	p := &protocol{
		sessionIdle: c.Duration("session-idle", "MCPGEN_SESSION_IDLE", defaultSessionIdle,
			"close an HTTP session after `DURATION` without a request (0: never); its client\ngets 404 with JSON-RPC error -32001 and starts a new one"),
		maxSessions: c.Int("max-sessions", "MCPGEN_MAX_SESSIONS", defaultMaxSessions,
			"hold at most `N` HTTP sessions at once (0: no bound); an initialize beyond it\nis answered 503 with Retry-After"),
		perCaller: c.Int("max-sessions-per-caller", "MCPGEN_MAX_SESSIONS_PER_CALLER", defaultMaxSessionsPerCaller,
			"hold at most `N` HTTP sessions of one caller (token subject, else client address;\n0: no bound); beyond it the caller's least recently used idle session is\nclosed, or the initialize answered 429 with Retry-After when none is idle"),
		clientTimeout: c.Duration("client-timeout", "MCPGEN_CLIENT_TIMEOUT", defaultClientRequestTimeout,
			"wait at most `DURATION` for the client to answer a question (sampling, elicitation)"),
		maxLine: new(byteSize),
	}
	*p.maxLine = defaultMaxLineBytes
	c.Var(p.maxLine, "stdio-max-line", "MCPGEN_STDIO_MAX_LINE",
		"with --stdio, the longest line of JSON-RPC read, in `BYTES` (16MiB, 512KiB, 1000000);\na longer line is answered with an error and skipped")
	return p
}

func (p *protocol) options() []Option {
	idle := *p.sessionIdle
	if idle == 0 {
		idle = -1 // never
	}
	bound := func(n int) int {
		if n <= 0 {
			return -1 // none
		}
		return n
	}
	return []Option{
		WithSessionIdle(idle),
		WithMaxSessions(bound(*p.maxSessions), bound(*p.perCaller)),
		WithClientRequestTimeout(*p.clientTimeout),
		WithMaxLineBytes(int(*p.maxLine)),
	}
}

// byteSize is a flag value in bytes, with an optional KiB, MiB, GiB (or
// KB, MB, GB) suffix.
type byteSize int

func (b *byteSize) Set(v string) error {
	s := strings.TrimSpace(v)
	mult := 1
	for _, u := range []struct {
		suffix string
		mult   int
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1000}, {"MB", 1000_000}, {"GB", 1000_000_000}, {"B", 1}} {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 || n > (1<<31)/mult {
		return fmt.Errorf("want a positive size such as 16MiB, 512KiB or 1000000, got %q", v)
	}
	*b = byteSize(n * mult)
	return nil
}

func (b *byteSize) String() string {
	switch n := int(*b); {
	case n > 0 && n%(1<<20) == 0:
		return strconv.Itoa(n>>20) + "MiB"
	case n > 0 && n%(1<<10) == 0:
		return strconv.Itoa(n>>10) + "KiB"
	default:
		return strconv.Itoa(n)
	}
}
