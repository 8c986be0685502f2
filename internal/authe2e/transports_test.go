package authe2e_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestSSEClientFlow: the TypeScript SDK's SSEClientTransport, configured
// with the connector's /sse URL and no token, discovers the authorization
// server from /sse's own challenge and metadata (resource …/sse, which the
// SDK requires to be a prefix of the URL it connects to), signs in, and is
// served; a tool needing a scope its token lacks is refused.
func TestSSEClientFlow(t *testing.T) {
	base, p := serveJournal(t)
	res := runClient(t, base+"/sse", "TRANSPORT=sse")
	if res["whoami"] != "alice" {
		t.Errorf("whoami over HTTP+SSE = %v, want alice", res["whoami"])
	}
	if r, _ := res["refused"].(string); !strings.Contains(r, "403") {
		t.Errorf("write_entry without notes:write over HTTP+SSE: refused = %q, write = %v", r, res["writeFirst"])
	}
	var reqs []string
	for _, r := range res["requests"].([]any) {
		reqs = append(reqs, fmt.Sprint(r))
	}
	want := []string{
		"GET /.well-known/oauth-protected-resource/sse 200",
		"POST /token 200",
	}
	i := 0
	for _, r := range reqs {
		if i < len(want) && r == want[i] {
			i++
		}
	}
	if i < len(want) {
		t.Errorf("the client's requests lack %q in order; they were:\n%s", want[i], strings.Join(reqs, "\n"))
	}
	if !p.waitLog("insufficient scope") {
		t.Errorf("the connector's log does not mention the missing scope:\n%s", p.log())
	}
}
