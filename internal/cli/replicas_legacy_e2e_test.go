package cli_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testenv"
)

// TestReplicasLegacyTransports has official TypeScript SDK clients
// configured with "sse" and "ws" use three replicas of examples/everything
// behind HAProxy round robin (no stickiness), 10 of each: every one
// connects, lists, calls with progress, answers an elicitation and is
// notified of a subscribed resource's updates made through other replicas.
// An HTTP+SSE client POSTs each message wherever the balancer sends it,
// so two in three reach a replica that does not hold its stream.
func TestReplicasLegacyTransports(t *testing.T) {
	t.Parallel()
	node := testenv.Node(t)
	modules := testenv.NodeModules(t, "@modelcontextprotocol/sdk")
	redis := testenv.StartRedis(t)
	bin := buildEverything(t)
	lb, _ := startReplicas(t, bin, redis.URL(), 3)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	script, _ := filepath.Abs(filepath.Join("testdata", "tsreplicas_legacy.mjs"))
	const n = 10
	out, err := exec.CommandContext(ctx, node, script, modules, strings.TrimSuffix(lb, "/mcp"), strconv.Itoa(n)).CombinedOutput()
	if err != nil {
		t.Fatalf("the TypeScript clients failed: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var got struct {
		SSE, WS  map[string]int
		Failures []string
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
		t.Fatalf("reading the clients' report: %v\n%s", err, out)
	}
	t.Logf("clients report: %s", lines[len(lines)-1])
	for kind, counts := range map[string]map[string]int{"sse": got.SSE, "ws": got.WS} {
		for _, step := range []string{"connected", "listed", "progressed", "elicited", "notified"} {
			if counts[step] != n {
				t.Errorf("%s: %d/%d clients %s; failures: %q", kind, counts[step], n, step, got.Failures)
			}
		}
	}
}
