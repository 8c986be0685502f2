package connector

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/mcpgen/mcpgen/connector/store"
	"github.com/mcpgen/mcpgen/internal/cmdline"
	"github.com/mcpgen/mcpgen/internal/httpedge"

	// The Redis backend, so that --store redis://… works on every built
	// connector with no code change.
	_ "github.com/mcpgen/mcpgen/connector/store/redisstore"
)

// minStateKey is the shortest --state-key accepted, in bytes.
const minStateKey = 16

// shared holds the flags of replicas that form one connector: the state
// store, the key that signs requestState, the proxies trusted to name
// the caller.
type shared struct {
	store    *string
	stateKey *string
	proxies  *[]string
}

func sharedFlags(c *cmdline.Set) *shared {
	return &shared{
		store: c.String("store", "MCPGEN_STORE", "",
			"keep state (sessions' events, rate limits, requestState key, notifications) in\nthe store at `URL`, shared by every replica given the same one:\nredis://[user:pass@]host:port[/db], rediss:// for TLS (default: in the process)"),
		stateKey: c.String("state-key", "MCPGEN_STATE_KEY", "",
			"sign requestState with `KEY` (or the contents of @FILE), at least 16 bytes; a\ncomma-separated list rotates: sign with the first, accept any (default: a\nrandom key kept in the store)"),
		proxies: c.List("trusted-proxy", "MCPGEN_TRUSTED_PROXY",
			"take the caller from Forwarded / X-Forwarded-For only when the TCP peer is in\nthese `CIDR` ranges (the load balancer's); a forged header from anyone else\nchanges nothing"),
	}
}

// options opens the store and reads the keys; close releases the store.
func (f *shared) options(ctx context.Context) (opts []Option, close func(), err error) {
	close = func() {}
	ranges, err := httpedge.ParseTrustedProxies(*f.proxies)
	if err != nil {
		return nil, close, err
	}
	if len(ranges) > 0 {
		opts = append(opts, WithTrustedProxies(ranges))
	}
	if *f.stateKey != "" {
		keys, err := parseStateKeys(*f.stateKey)
		if err != nil {
			return nil, close, err
		}
		opts = append(opts, WithStateKeys(keys...))
	}
	if *f.store != "" {
		st, err := store.Open(ctx, *f.store)
		if err != nil {
			return nil, close, fmt.Errorf("--store: %v", err)
		}
		opts = append(opts, WithStore(st))
		close = func() { st.Close() }
	}
	return opts, close, nil
}

// parseStateKeys reads --state-key: KEY or @FILE, comma-separated.
func parseStateKeys(v string) ([][]byte, error) {
	var keys [][]byte
	for i, e := range strings.Split(v, ",") {
		e = strings.TrimSpace(e)
		where := fmt.Sprintf("--state-key: key %d", i+1)
		if name, ok := strings.CutPrefix(e, "@"); ok {
			b, err := os.ReadFile(name)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", where, err)
			}
			e = strings.TrimSpace(string(b))
			where += " (" + name + ")"
		}
		if len(e) < minStateKey {
			return nil, fmt.Errorf("%s is %d bytes; want at least %d, such as the output of `openssl rand -base64 32`", where, len(e), minStateKey)
		}
		keys = append(keys, []byte(e))
	}
	return keys, nil
}

// storeHealth reports what is wrong with the state store, or nil.
func (s *Server) storeHealth() error {
	if h, ok := s.state.(interface{ Health() error }); ok {
		return h.Health()
	}
	return nil
}
