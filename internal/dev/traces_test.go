package dev_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpgen/mcpgen/internal/browser"
	"github.com/mcpgen/mcpgen/internal/testenv"
)

// TestInspectorTraces: under mcpgen dev the connector exports the trace of
// a request whose caller sampled it (as the inspector does, with a
// traceparent in _meta) to the inspector, which answers its spans at
// /_mcpgen/traces/ID: the connector's server span of the call, a child of
// the caller's span. A request without a traceparent is not traced. In
// Chromium, the inspector sends a traceparent with its requests and shows
// a request's trace when its protocol entry is opened.
func TestInspectorTraces(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a connector")
	}
	ds := startDev(t, scaffold(t), nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "tracer", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ds.url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	const trace, parent = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "hello", Arguments: map[string]any{"name": "ann"},
		Meta: mcp.Meta{"traceparent": "00-" + trace + "-" + parent + "-01"}})
	if err != nil || res.IsError {
		t.Fatalf("hello: %v %v", res, err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "hello", Arguments: map[string]any{"name": "bob"}}); err != nil {
		t.Fatal(err)
	}
	base := strings.TrimSuffix(ds.url, "/mcp")
	type span struct {
		SpanID, ParentSpanID, Name, Kind, Service string
		Attributes                                map[string]any
	}
	var spans []span
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		resp, err := http.Get(base + "/_mcpgen/traces/" + trace)
		if err != nil {
			t.Fatal(err)
		}
		var got struct{ Spans []span }
		json.NewDecoder(resp.Body).Decode(&got)
		resp.Body.Close()
		if spans = got.Spans; len(spans) > 0 || time.Now().After(deadline) {
			break
		}
	}
	var call *span
	for i, s := range spans {
		if s.Name == "tools/call hello" {
			call = &spans[i]
		}
	}
	if call == nil {
		t.Fatalf("no span tools/call hello in the trace the request named: %+v\n%s", spans, ds.out.String())
	}
	if call.ParentSpanID != parent || call.Kind != "server" {
		t.Errorf("the call's span %+v: want a server span whose parent is the caller's %s", call, parent)
	}
	// Only the sampled request was traced: the trace endpoint saw one
	// trace, and the other call's spans are nowhere.
	for _, s := range spans {
		if args, _ := json.Marshal(s.Attributes); strings.Contains(string(args), "bob") {
			t.Errorf("a span of the untraced call in this trace: %+v", s)
		}
	}

	chrome := testenv.Chromium(t)
	b, err := browser.Launch(ctx, browser.Options{Exec: chrome})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	// The inspector's / shows no view, so Open reports a timeout once the
	// page has loaded; the test drives the page itself.
	v, err := b.Open(ctx, base+`/?tool=hello&input={"name":"cy"}&call=1`, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	wait := func(what, expr string) {
		t.Helper()
		if err := v.HostWait(ctx, "!!("+expr+")", 30*time.Second); err != nil {
			text, _ := v.HostEval(ctx, `document.body ? document.body.innerText : ""`)
			t.Fatalf("waiting for %s: %v\nthe page:\n%s", what, err, text)
		}
	}
	const sent = `(window.__mcpgenInspector?.protocol ?? []).findIndex((e) => e.traceId && e.message?.method === "tools/call" && e.message.params?._meta?.traceparent?.includes(e.traceId))`
	wait("the deep-linked tools/call sent with a traceparent", sent+" >= 0")
	if _, err := v.HostEval(ctx, `document.querySelectorAll(".log li")[`+sent+`].querySelector(".entry").click(), true`); err != nil {
		t.Fatal(err)
	}
	wait("the call's trace in the protocol panel", `document.querySelector("[aria-label=Trace]")?.innerText.includes("tools/call hello")`)
}
