package cli_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/mcpgen/mcpgen/internal/testenv"
)

// lookupGo is a tool that starts a span of its own through OpenTelemetry's
// global tracer, as a handler calling an instrumented database would.
const lookupGo = `package main

import (
	"context"

	"go.opentelemetry.io/otel"
)

// LookupInput names what to look up.
type LookupInput struct {
	// Key is looked up.
	Key string ` + "`json:\"key\"`" + `
}

// Lookup queries the database.
//
//mcpgen:tool readonly
func Lookup(ctx context.Context, in LookupInput) (string, error) {
	_, span := otel.Tracer("tally/db").Start(ctx, "db.query")
	defer span.End()
	return "found " + in.Key, nil
}
`

// otlpReceiver is an OTLP/HTTP receiver: it decodes the protobuf export
// requests a connector sends and keeps their spans and metric names.
type otlpReceiver struct {
	mu      sync.Mutex
	spans   []*tracepb.Span
	metrics map[string]bool
	errs    []string
}

func (o *otlpReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	o.mu.Lock()
	defer o.mu.Unlock()
	if err != nil || r.Header.Get("Content-Type") != "application/x-protobuf" {
		o.errs = append(o.errs, fmt.Sprintf("%s: content type %q, %v", r.URL.Path, r.Header.Get("Content-Type"), err))
		http.Error(w, "want protobuf", http.StatusUnsupportedMediaType)
		return
	}
	var resp proto.Message
	switch r.URL.Path {
	case "/v1/traces":
		var req coltracepb.ExportTraceServiceRequest
		if err := proto.Unmarshal(body, &req); err != nil {
			o.errs = append(o.errs, "traces: "+err.Error())
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				o.spans = append(o.spans, ss.Spans...)
			}
		}
		resp = &coltracepb.ExportTraceServiceResponse{}
	case "/v1/metrics":
		var req colmetricpb.ExportMetricsServiceRequest
		if err := proto.Unmarshal(body, &req); err != nil {
			o.errs = append(o.errs, "metrics: "+err.Error())
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		for _, rm := range req.ResourceMetrics {
			for _, sm := range rm.ScopeMetrics {
				for _, m := range sm.Metrics {
					o.metrics[m.Name] = true
				}
			}
		}
		resp = &colmetricpb.ExportMetricsServiceResponse{}
	default:
		http.NotFound(w, r)
		return
	}
	b, _ := proto.Marshal(resp)
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(b)
}

// find returns the spans named name in trace.
func (o *otlpReceiver) find(trace []byte, name string) []*tracepb.Span {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []*tracepb.Span
	for _, s := range o.spans {
		if s.Name == name && bytes.Equal(s.TraceId, trace) {
			out = append(out, s)
		}
	}
	return out
}

// TestTelemetryBuiltConnector builds a connector whose tool starts a span
// of its own, runs it with OTLP export and --metrics-addr, and checks
// that an OTLP receiver gets the call's span in the trace the client sent
// in _meta with the tool's span under it, and that Debian's Prometheus,
// scraping /metrics, answers a query about the tool's calls.
func TestTelemetryBuiltConnector(t *testing.T) {
	t.Parallel()
	promBin := testenv.Prometheus(t)
	mcpgen, dir := scaffoldDeploy(t)
	if err := os.WriteFile(filepath.Join(dir, "lookup.go"), []byte(lookupGo), 0o644); err != nil {
		t.Fatal(err)
	}
	// The tool imports OpenTelemetry, which the module cache holds (the
	// runtime requires it).
	if out, errOut, code := run(t, dir, []string{"GOFLAGS=-mod=mod", "GOPROXY=off"}, "go", "mod", "tidy"); code != 0 {
		t.Fatalf("go mod tidy: exit %d\n%s%s", code, out, errOut)
	}
	if out, errOut, code := run(t, dir, nil, mcpgen, "build", "-o", "bin/tally"); code != 0 {
		t.Fatalf("mcpgen build: exit %d\n%s%s", code, out, errOut)
	}

	recv := &otlpReceiver{metrics: map[string]bool{}}
	collector := httptest.NewServer(recv) // 127.0.0.1
	t.Cleanup(collector.Close)
	c := startConnector(t, filepath.Join(dir, "bin", "tally"), []string{
		"OTEL_EXPORTER_OTLP_ENDPOINT=" + collector.URL,
		"OTEL_BSP_SCHEDULE_DELAY=100",
		"OTEL_METRIC_EXPORT_INTERVAL=200",
		"OTEL_SERVICE_NAME=tally-test",
	}, "--metrics-addr", "127.0.0.1:0")
	m := regexp.MustCompile(`serving metrics at http://(\S+)/metrics`).FindStringSubmatch(c.stderr())
	if m == nil {
		t.Fatalf("no metrics address in the connector's log:\n%s", c.stderr())
	}
	metricsAddr := m[1]

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: c.url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	traceID, parentID := make([]byte, 16), make([]byte, 8)
	rand.Read(traceID)
	rand.Read(parentID)
	const calls = 3
	for i := range calls {
		meta := mcp.Meta{"traceparent": "00-" + hex.EncodeToString(traceID) + "-" + hex.EncodeToString(parentID) + "-01"}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "lookup", Arguments: map[string]any{"key": fmt.Sprint(i)}, Meta: meta})
		if err != nil || res.IsError {
			t.Fatalf("call lookup: %v %+v", err, res)
		}
	}

	t.Run("otlp", func(t *testing.T) {
		var server, child []*tracepb.Span
		for ctx.Err() == nil {
			server, child = recv.find(traceID, "tools/call lookup"), recv.find(traceID, "db.query")
			if len(server) == calls && len(child) == calls {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		recv.mu.Lock()
		errs, metrics := recv.errs, recv.metrics
		recv.mu.Unlock()
		if len(errs) > 0 {
			t.Errorf("receiver errors: %v", errs)
		}
		if len(server) != calls || len(child) != calls {
			t.Fatalf("in trace %x: %d tools/call lookup spans and %d db.query spans, want %d each", traceID, len(server), len(child), calls)
		}
		ids := map[string]bool{}
		for _, s := range server {
			if !bytes.Equal(s.ParentSpanId, parentID) || s.Kind != tracepb.Span_SPAN_KIND_SERVER {
				t.Errorf("server span: parent %x kind %v, want the client's span %x and SERVER", s.ParentSpanId, s.Kind, parentID)
			}
			attrs := map[string]string{}
			for _, kv := range s.Attributes {
				attrs[kv.Key] = kv.Value.GetStringValue()
			}
			if attrs["mcp.method.name"] != "tools/call" || attrs["gen_ai.tool.name"] != "lookup" || attrs["mcp.session.id"] != cs.ID() || attrs["jsonrpc.request.id"] == "" {
				t.Errorf("server span attributes %v", attrs)
			}
			ids[string(s.SpanId)] = true
		}
		for _, s := range child {
			if !ids[string(s.ParentSpanId)] {
				t.Errorf("db.query's parent %x is not a tools/call span", s.ParentSpanId)
			}
		}
		for ctx.Err() == nil {
			recv.mu.Lock()
			got := metrics["mcp.server.operation.duration"] && metrics["mcpgen.server.result.size"]
			recv.mu.Unlock()
			if got {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Errorf("OTLP metrics received: %v; want mcp.server.operation.duration and mcpgen.server.result.size", metrics)
	})

	t.Run("prometheus", func(t *testing.T) {
		api := startPrometheus(t, promBin, metricsAddr)
		query := `sum(mcp_server_operation_duration_seconds_count{gen_ai_tool_name="lookup",mcpgen_outcome="ok"})`
		var last string
		for ctx.Err() == nil {
			vs, err := promQuery(ctx, api, query)
			if err == nil && len(vs) == 1 && vs[0] == fmt.Sprint(calls) {
				break
			}
			last = fmt.Sprintf("%q %v", vs, err)
			time.Sleep(200 * time.Millisecond)
		}
		if ctx.Err() != nil {
			t.Fatalf("Prometheus: %s = %s, want %d", query, last, calls)
		}

		// Every query of the Grafana dashboard in docs/ is valid PromQL
		// over these metrics, and those about calls made have answers.
		b, err := os.ReadFile(filepath.Join(testenv.Root(), "docs", "grafana", "mcpgen-connector.json"))
		if err != nil {
			t.Fatal(err)
		}
		var dash struct {
			Panels []struct {
				ID      int
				Title   string
				Targets []struct{ Expr string }
			}
		}
		if err := json.Unmarshal(b, &dash); err != nil {
			t.Fatal(err)
		}
		answered := map[int]bool{1: true, 2: true, 4: true, 7: true} // panels about what happened here
		for _, p := range dash.Panels {
			for _, tg := range p.Targets {
				expr := strings.NewReplacer("$__rate_interval", "1m", "$job", ".+").Replace(tg.Expr)
				for {
					vs, err := promQuery(ctx, api, expr)
					if err != nil {
						t.Fatalf("dashboard panel %q: %s: %v", p.Title, expr, err)
					}
					if len(vs) > 0 || !answered[p.ID] {
						break
					}
					if ctx.Err() != nil {
						t.Fatalf("dashboard panel %q: %s has no answer", p.Title, expr)
					}
					time.Sleep(200 * time.Millisecond)
				}
			}
		}
	})
}

// startPrometheus runs Debian's Prometheus on a loopback port, scraping
// target (HOST:PORT) every second, and returns its API's base URL.
func startPrometheus(t *testing.T, bin, target string) string {
	t.Helper()
	dir := t.TempDir()
	conf := fmt.Sprintf("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n  - job_name: connector\n    static_configs:\n      - targets: [%q]\n", target)
	file := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(file, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	cmd := exec.Command(bin, "--config.file="+file, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		fmt.Sprintf("--web.listen-address=127.0.0.1:%d", port))
	var logs syncWriter
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("prometheus:\n%s", logs.String())
		}
	})
	return fmt.Sprintf("http://127.0.0.1:%d", port)
}

// promQuery asks Prometheus's HTTP API for an instant vector and returns
// the values of its samples.
func promQuery(ctx context.Context, api, query string) ([]string, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, api+"/api/v1/query?query="+url.QueryEscape(query), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, err
	}
	if out.Status != "success" {
		return nil, fmt.Errorf("%s: %s", out.Status, out.Error)
	}
	var vs []string
	for _, r := range out.Data.Result {
		v, _ := r.Value[1].(string)
		vs = append(vs, v)
	}
	return vs, nil
}
