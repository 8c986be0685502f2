package connector_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/connector"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestToolsList(t *testing.T) {
	_, cs := connect(t, testApp(newProbe()), nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]*mcp.Tool{}
	for _, tl := range res.Tools {
		tools[tl.Name] = tl
		// Every tool carries all four hints explicitly.
		raw, _ := json.Marshal(tl.Annotations)
		for _, hint := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
			if !strings.Contains(string(raw), `"`+hint+`"`) {
				t.Errorf("tool %s: annotations %s lack %s", tl.Name, raw, hint)
			}
		}
		if tl.Description == "" {
			t.Errorf("tool %s has no description", tl.Name)
		}
	}
	if len(tools) != 14 {
		t.Errorf("got %d tools, want 14", len(tools))
	}
	fo := tools["find_orders"]
	if fo == nil {
		t.Fatal("find_orders not listed")
	}
	if fo.Title != "Find orders" || fo.Description != "FindOrders lists the orders of one customer, newest first." {
		t.Errorf("title/description = %q / %q", fo.Title, fo.Description)
	}
	a := fo.Annotations
	if !a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint || !a.IdempotentHint || a.OpenWorldHint == nil || *a.OpenWorldHint {
		t.Errorf("annotations = %+v", a)
	}
	in, _ := json.Marshal(fo.InputSchema)
	var want, got any
	json.Unmarshal([]byte(findOrdersInput), &want)
	json.Unmarshal(in, &got)
	if !jsonEqual(want, got) {
		t.Errorf("inputSchema = %s, want %s", in, findOrdersInput)
	}
	out, _ := json.Marshal(fo.OutputSchema)
	if !strings.Contains(string(out), `"orders"`) {
		t.Errorf("outputSchema = %s", out)
	}
	ui, _ := fo.Meta["ui"].(map[string]any)
	if ui["resourceUri"] != testView.URI || fo.Meta["ui/resourceUri"] != testView.URI {
		t.Errorf("_meta = %v", fo.Meta)
	}
	if vis, _ := ui["visibility"].([]any); len(vis) != 2 || vis[0] != "model" || vis[1] != "app" {
		t.Errorf("_meta.ui.visibility = %v", ui["visibility"])
	}
	if _, ok := fo.Meta["openai/outputTemplate"]; ok {
		t.Error("openai/outputTemplate emitted without WithOpenAIMeta")
	}
	if _, ok := fo.Meta["anthropic/maxResultSizeChars"]; ok {
		t.Error("maxResultSizeChars advertised though no cap was set")
	}
	if got := tools["big"].Meta["anthropic/maxResultSizeChars"]; got != float64(100) {
		t.Errorf("big: _meta[anthropic/maxResultSizeChars] = %v, want 100", got)
	}
	if a := tools["fail"].Annotations; a.ReadOnlyHint || !*a.DestructiveHint || !*a.OpenWorldHint {
		t.Errorf("fail annotations = %+v", a)
	}
}

func jsonEqual(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

func TestOpenAIMeta(t *testing.T) {
	_, cs := connect(t, testApp(newProbe()), nil, connector.WithOpenAIMeta(true))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		if tl.Name == "find_orders" && tl.Meta["openai/outputTemplate"] != testView.URI {
			t.Errorf("_meta = %v", tl.Meta)
		}
	}
}

func TestCallStruct(t *testing.T) {
	_, cs := connect(t, testApp(newProbe()), nil)
	res := call(t, cs, "find_orders", map[string]any{"customer": "C42"})
	if res.IsError {
		t.Fatalf("isError: %s", textOf(t, res))
	}
	// The default limit (10) was applied before the handler decoded.
	want := `{"customer":"C42","limit":10,"orders":["C42-1","C42-2","C42-3"]}`
	if got := textOf(t, res); got != want {
		t.Errorf("text copy = %s, want %s", got, want)
	}
	sc, _ := json.Marshal(res.StructuredContent)
	if string(sc) != want {
		t.Errorf("structuredContent = %s, want %s", sc, want)
	}
}

func TestCallInvalidArguments(t *testing.T) {
	_, cs := connect(t, testApp(newProbe()), nil)
	for _, tc := range []struct {
		args any
		want string
	}{
		{map[string]any{"customer": "C1", "limit": 60}, `invalid arguments: "limit": must be <= 50`},
		{map[string]any{"customer": "C1", "limit": 0}, `invalid arguments: "limit": must be >= 1`},
		{map[string]any{"customer": "C1", "limit": "ten"}, `invalid arguments: "limit": must be of type integer`},
		{map[string]any{}, `invalid arguments: "customer": is required`},
		{map[string]any{"customer": "x"}, `invalid arguments: "customer": must match the pattern "^C[0-9]+$"`},
		{map[string]any{"customer": "C1", "limt": 5}, `invalid arguments: "limt": unknown field`},
	} {
		res := call(t, cs, "find_orders", tc.args)
		if !res.IsError {
			t.Errorf("%v: not an error: %s", tc.args, textOf(t, res))
			continue
		}
		if got := textOf(t, res); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%v:\n got %s\nwant %s", tc.args, got, tc.want)
		}
	}
}

func TestCallErrorPanicTimeout(t *testing.T) {
	var logs syncBuffer
	s, err := connector.NewServer(testApp(newProbe()), connector.WithLogger(quietLogger(&logs)))
	if err != nil {
		t.Fatal(err)
	}
	cs := connectServer(t, s, nil)

	res := call(t, cs, "fail", nil)
	if !res.IsError || textOf(t, res) != "backend unavailable: connection refused" {
		t.Errorf("fail: isError=%v %q", res.IsError, textOf(t, res))
	}

	res = call(t, cs, "boom", nil)
	if !res.IsError || !strings.HasPrefix(textOf(t, res), "internal error in tool boom: assignment to entry in nil map") {
		t.Errorf("boom: isError=%v %q", res.IsError, textOf(t, res))
	}
	if !strings.Contains(logs.String(), "panic in tool") || !strings.Contains(logs.String(), "fixture_test.go") {
		t.Errorf("panic stack not logged:\n%s", logs.String())
	}
	// The server keeps serving after a panic.
	if res := call(t, cs, "find_orders", map[string]any{"customer": "C1"}); res.IsError {
		t.Errorf("call after panic: %s", textOf(t, res))
	}

	for _, name := range []string{"slow", "stubborn"} {
		start := time.Now()
		res = call(t, cs, name, nil)
		if !res.IsError || textOf(t, res) != "tool "+name+" timed out after 50ms" {
			t.Errorf("%s: isError=%v %q", name, res.IsError, textOf(t, res))
		}
		if d := time.Since(start); d > 300*time.Millisecond {
			t.Errorf("%s: answered after %s, want about 50ms", name, d)
		}
	}
}

func TestTruncation(t *testing.T) {
	_, cs := connect(t, testApp(newProbe()), nil)
	res := call(t, cs, "big", nil)
	if res.IsError {
		t.Fatal(textOf(t, res))
	}
	// The cap (100, advertised as anthropic/maxResultSizeChars) holds the
	// notice too.
	want := strings.Repeat("é", 45) + "\n\n… truncated: showing the first 45 of 1000 characters"
	got := textOf(t, res)
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if n := utf8.RuneCountInString(got); n > 100 {
		t.Errorf("the truncated text has %d characters, over the cap of 100", n)
	}
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.Name == "big" && tool.Meta["anthropic/maxResultSizeChars"] != 100.0 {
			t.Errorf("big advertises %v", tool.Meta["anthropic/maxResultSizeChars"])
		}
	}
	// Caps of every size: the text never exceeds them.
	for _, max := range []int{1, 10, 54, 55, 56, 999, 1000} {
		app := testApp(newProbe())
		for i := range app.Tools {
			if app.Tools[i].Name == "big" {
				app.Tools[i].MaxResultChars = max
			}
		}
		_, cs := connect(t, app, nil)
		got := textOf(t, call(t, cs, "big", nil))
		if n := utf8.RuneCountInString(got); n > max || (max == 1000 && got != strings.Repeat("é", 1000)) {
			t.Errorf("cap %d: %d characters: %q", max, n, got)
		}
	}
}

func TestContentResult(t *testing.T) {
	_, cs := connect(t, testApp(newProbe()), nil)
	res := call(t, cs, "mixed", nil)
	if res.IsError || len(res.Content) != 5 {
		t.Fatalf("isError=%v content=%d", res.IsError, len(res.Content))
	}
	if img, ok := res.Content[1].(*mcp.ImageContent); !ok || img.MIMEType != "image/png" || string(img.Data) != "\x89PNG" {
		t.Errorf("content[1] = %#v", res.Content[1])
	}
	if au, ok := res.Content[2].(*mcp.AudioContent); !ok || au.MIMEType != "audio/wav" {
		t.Errorf("content[2] = %#v", res.Content[2])
	}
	if er, ok := res.Content[3].(*mcp.EmbeddedResource); !ok || er.Resource.Text != "embedded" {
		t.Errorf("content[3] = %#v", res.Content[3])
	}
	if rl, ok := res.Content[4].(*mcp.ResourceLink); !ok || rl.URI != "test://static-text" || rl.Name != "static" {
		t.Errorf("content[4] = %#v", res.Content[4])
	}
}

func TestUnknownTool(t *testing.T) {
	_, cs := connect(t, testApp(newProbe()), nil)
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "nope"})
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("err = %v, want -32602", err)
	}
}

func TestResources(t *testing.T) {
	_, cs := connect(t, testApp(newProbe()), nil)
	ctx := context.Background()
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://static-text"})
	if err != nil || res.Contents[0].Text != "This is the content of the static text resource." || res.Contents[0].MIMEType != "text/plain" {
		t.Errorf("static-text: %v %+v", err, res)
	}
	res, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://static-binary"})
	if err != nil || string(res.Contents[0].Blob) != "\x89PNG\x00\x01\x02" || res.Contents[0].MIMEType != "image/png" {
		t.Errorf("static-binary: %v %+v", err, res)
	}
	res, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://template/42/data"})
	if err != nil || res.Contents[0].Text != `{"id":"42"}` || res.Contents[0].URI != "test://template/42/data" {
		t.Errorf("template: %v %+v", err, res)
	}
	for _, uri := range []string{"test://template/missing/data", "test://nothing"} {
		_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		var we *jsonrpc.Error
		if !errors.As(err, &we) || we.Code != mcp.CodeResourceNotFound {
			t.Errorf("%s: err = %v, want -32002", uri, err)
		}
	}
	tl, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(tl.ResourceTemplates) != 1 || tl.ResourceTemplates[0].URITemplate != "test://template/{id}/data" {
		t.Errorf("templates: %v %+v", err, tl)
	}
}

func TestViewResource(t *testing.T) {
	_, cs := connect(t, testApp(newProbe()), nil)
	ctx := context.Background()
	list, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var view *mcp.Resource
	for _, r := range list.Resources {
		if r.URI == testView.URI {
			view = r
		}
	}
	if view == nil || view.MIMEType != "text/html;profile=mcp-app" {
		t.Fatalf("view resource = %+v", view)
	}
	wantUI := `{"csp":{"connectDomains":["https://api.example.com"]},"domain":"orders.example.com","permissions":{"clipboardWrite":{}},"prefersBorder":true}`
	if got, _ := json.Marshal(view.Meta["ui"]); string(got) != wantUI {
		t.Errorf("resource _meta.ui = %s\nwant %s", got, wantUI)
	}
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: testView.URI})
	if err != nil || res.Contents[0].Text != testView.HTML || res.Contents[0].MIMEType != connector.ViewMIMEType {
		t.Fatalf("read view: %v %+v", err, res)
	}
	if got, _ := json.Marshal(res.Contents[0].Meta["ui"]); string(got) != wantUI {
		t.Errorf("contents _meta.ui = %s", got)
	}
}

func TestSetViews(t *testing.T) {
	var mu sync.Mutex
	changed := map[string]int{}
	note := func(kind string) {
		mu.Lock()
		changed[kind]++
		mu.Unlock()
	}
	s, cs := connect(t, testApp(newProbe()), &mcp.ClientOptions{
		ToolListChangedHandler:     func(context.Context, *mcp.ToolListChangedRequest) { note("tools") },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { note("resources") },
	})
	v := testView
	v.URI = "ui://orders/77e0b1"
	v.HTML = "<html>new</html>"
	s.SetViews([]connector.View{v})
	ctx := context.Background()
	deadline := time.Now().Add(5 * time.Second)
	for i := 0; ; i++ {
		mu.Lock()
		done := changed["tools"] > 0 && changed["resources"] > 0
		mu.Unlock()
		if done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("list_changed notifications: %v", changed)
		}
		time.Sleep(10 * time.Millisecond)
		if i%20 == 19 {
			// Under 2026-07-28 the client opens its subscriptions/listen
			// stream without waiting for the server to take it: change
			// the views again, ending with v, until it is notified.
			s.SetViews([]connector.View{testView})
			s.SetViews([]connector.View{v})
		}
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: testView.URI}); err == nil {
		t.Error("old view URI still served")
	}
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: v.URI})
	if err != nil || res.Contents[0].Text != "<html>new</html>" {
		t.Errorf("new view: %v %+v", err, res)
	}
	tools, _ := cs.ListTools(ctx, nil)
	for _, tl := range tools.Tools {
		if tl.Name == "find_orders" && tl.Meta["ui/resourceUri"] != v.URI {
			t.Errorf("tool _meta after SetViews = %v", tl.Meta)
		}
	}
}

func TestSubscribe(t *testing.T) {
	for _, v := range versions {
		t.Run(v, func(t *testing.T) { testSubscribe(t, v) })
	}
}

func testSubscribe(t *testing.T, version string) {
	updated := make(chan string, 4)
	_, cs := connectVersion(t, version, testApp(newProbe()), &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) { updated <- r.Params.URI },
	})
	ctx := context.Background()
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://watched"}); err != nil {
		t.Fatal(err)
	}
	if version < "2026-07-28" {
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://unknown"}); err == nil {
			t.Error("subscribing to an unknown resource succeeded")
		}
	}
	// Under 2026-07-28, Subscribe opens a subscriptions/listen stream
	// without waiting for the server to take it: touch until notified.
	deadline := time.Now().Add(5 * time.Second)
notified:
	for {
		call(t, cs, "touch", nil)
		select {
		case uri := <-updated:
			if uri != "test://watched" {
				t.Errorf("updated %s", uri)
			}
			break notified
		case <-time.After(100 * time.Millisecond):
			if time.Now().After(deadline) {
				t.Fatal("no notifications/resources/updated")
			}
		}
	}
	for len(updated) > 0 {
		<-updated // notifications of the extra touches
	}
	if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "test://watched"}); err != nil {
		t.Fatal(err)
	}
	if version >= "2026-07-28" {
		// Unsubscribing ends the listen stream, which the server notices
		// asynchronously.
		time.Sleep(100 * time.Millisecond)
	}
	call(t, cs, "touch", nil)
	select {
	case uri := <-updated:
		t.Errorf("notified after unsubscribe: %s", uri)
	case <-time.After(200 * time.Millisecond):
	}
}

func TestPrompts(t *testing.T) {
	_, cs := connect(t, testApp(newProbe()), nil)
	ctx := context.Background()
	list, err := cs.ListPrompts(ctx, nil)
	if err != nil || len(list.Prompts) != 2 {
		t.Fatalf("prompts/list: %v %+v", err, list)
	}
	res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"name": "Ada", "style": "warm"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Messages) != 1 || res.Messages[0].Role != "user" || res.Messages[0].Content.(*mcp.TextContent).Text != "Greet Ada in a warm way." {
		t.Errorf("greet = %+v", res.Messages)
	}
	if res.Description != "Greets someone." {
		t.Errorf("description = %q", res.Description)
	}
	_, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"style": "warm"}})
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams || !strings.Contains(we.Message, `missing required argument "name"`) {
		t.Errorf("missing argument: %v", err)
	}
	res, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "convo"})
	if err != nil || len(res.Messages) != 2 || res.Messages[1].Role != "assistant" {
		t.Errorf("convo: %v %+v", err, res)
	}
}

func TestCompletions(t *testing.T) {
	_, cs := connect(t, testApp(newProbe()), nil)
	ctx := context.Background()
	res, err := cs.Complete(ctx, &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "greet"},
		Argument: mcp.CompleteParamsArgument{Name: "style", Value: "style"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Completion; len(c.Values) != 100 || c.Total != 150 || !c.HasMore {
		t.Errorf("completion = %d values, total %d, hasMore %v", len(c.Values), c.Total, c.HasMore)
	}
	res, err = cs.Complete(ctx, &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "greet"},
		Argument: mcp.CompleteParamsArgument{Name: "style", Value: "style14"},
	})
	if err != nil || len(res.Completion.Values) != 10 || res.Completion.HasMore {
		t.Errorf("style14: %v %+v", err, res)
	}
	res, err = cs.Complete(ctx, &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: "test://template/{id}/data"},
		Argument: mcp.CompleteParamsArgument{Name: "id", Value: "7"},
	})
	if err != nil || strings.Join(res.Completion.Values, ",") != "71,72" {
		t.Errorf("resource completion: %v %+v", err, res)
	}
}

func TestLogging(t *testing.T) {
	for _, v := range versions {
		t.Run(v, func(t *testing.T) { testLogging(t, v) })
	}
}

func testLogging(t *testing.T, version string) {
	var mu sync.Mutex
	var got []*mcp.LoggingMessageParams
	_, cs := connectVersion(t, version, testApp(newProbe()), &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			mu.Lock()
			got = append(got, r.Params)
			mu.Unlock()
		},
	})
	ctx := context.Background()
	call(t, cs, "log", nil) // before a level is chosen: nothing is sent
	if version < "2026-07-28" {
		if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
			t.Fatal(err)
		}
		call(t, cs, "log", nil)
	} else {
		// The level travels with each request.
		p := &mcp.CallToolParams{Name: "log", Arguments: map[string]any{}, Meta: mcp.Meta{mcp.MetaKeyLogLevel: "info"}}
		if _, err := cs.CallTool(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(got) }
	waitFor(t, "2 log messages (info, warning)", func() bool { return count() >= 2 })
	time.Sleep(50 * time.Millisecond) // a debug message would have arrived by now
	mu.Lock()
	msgs := slices.Clone(got)
	mu.Unlock()
	if len(msgs) != 2 {
		t.Fatalf("got %d log messages, want 2: %+v", len(msgs), msgs)
	}
	if msgs[0].Level != "info" || msgs[0].Data != "starting" || msgs[0].Logger != "log" {
		t.Errorf("first = %+v", msgs[0])
	}
	if data, _ := json.Marshal(msgs[1].Data); msgs[1].Level != "warning" || string(data) != `{"host":"db1","ms":1200,"msg":"slow backend"}` {
		t.Errorf("second = %+v data %s", msgs[1], data)
	}
}

// waitFor polls cond for up to 5 seconds: notifications reach the client's
// handlers asynchronously.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestProgress(t *testing.T) {
	for _, v := range versions {
		t.Run(v, func(t *testing.T) { testProgress(t, v) })
	}
}

func testProgress(t *testing.T, version string) {
	var mu sync.Mutex
	var got []*mcp.ProgressNotificationParams
	_, cs := connectVersion(t, version, testApp(newProbe()), &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			got = append(got, r.Params)
			mu.Unlock()
		},
	})
	for _, token := range []any{7, "job-abc"} {
		mu.Lock()
		got = nil
		mu.Unlock()
		p := &mcp.CallToolParams{Name: "progress", Arguments: map[string]any{}}
		p.SetProgressToken(token)
		res, err := cs.CallTool(context.Background(), p)
		if err != nil || res.IsError {
			t.Fatalf("progress: %v %v", err, res)
		}
		waitFor(t, "3 progress notifications", func() bool { mu.Lock(); defer mu.Unlock(); return len(got) >= 3 })
		mu.Lock()
		ns := slices.Clone(got)
		mu.Unlock()
		for i, n := range ns {
			tok, _ := json.Marshal(n.ProgressToken)
			want, _ := json.Marshal(token)
			if string(tok) != string(want) || n.Progress != float64(i+1) || n.Total != 3 || n.Message != fmt.Sprintf("step %d", i+1) {
				t.Errorf("token %v: notification %d = token %s progress %v total %v %q", token, i, tok, n.Progress, n.Total, n.Message)
			}
		}
	}
	// Without a token, Progress is a no-op and the call still succeeds.
	mu.Lock()
	got = nil
	mu.Unlock()
	if res := call(t, cs, "progress", nil); res.IsError {
		t.Fatal(textOf(t, res))
	}
	time.Sleep(50 * time.Millisecond)
	mu.Lock()
	n := len(got)
	mu.Unlock()
	if n != 0 {
		t.Errorf("%d notifications without a token", n)
	}
}

func TestSampling(t *testing.T) {
	for _, v := range versions {
		t.Run(v, func(t *testing.T) { testSampling(t, v) })
	}
}

func testSampling(t *testing.T, version string) {
	_, cs := connectVersion(t, version, testApp(newProbe()), &mcp.ClientOptions{
		CreateMessageHandler: func(_ context.Context, r *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			q := r.Params.Messages[0].Content.(*mcp.TextContent).Text
			if q != "What is 2+2?" || r.Params.MaxTokens != 50 {
				return nil, errors.New("unexpected request")
			}
			return &mcp.CreateMessageResult{Role: "assistant", Model: "test", Content: &mcp.TextContent{Text: "4"}}, nil
		},
	})
	res := call(t, cs, "sample", nil)
	if res.IsError || textOf(t, res) != "model said: 4" {
		t.Errorf("sample: %v %q", res.IsError, textOf(t, res))
	}
}

func TestElicitation(t *testing.T) {
	for _, v := range versions {
		t.Run(v, func(t *testing.T) { testElicitation(t, v) })
	}
}

func testElicitation(t *testing.T, version string) {
	var schema []byte
	answer := map[string]any{"name": "Ada", "class": "biz", "extras": []any{"wifi"}, "notify": true}
	action := "accept"
	_, cs := connectVersion(t, version, testApp(newProbe()), &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			schema, _ = json.Marshal(r.Params.RequestedSchema)
			if action != "accept" {
				return &mcp.ElicitResult{Action: action}, nil
			}
			return &mcp.ElicitResult{Action: "accept", Content: answer}, nil
		},
	})
	res := call(t, cs, "book", nil)
	if res.IsError {
		t.Fatal(textOf(t, res))
	}
	// seats took its default, applied by the SDK from the schema.
	want := "accept {Name:Ada Seats:2 Class:biz Meal: Extras:[wifi] Notify:"
	if got := textOf(t, res); !strings.HasPrefix(got, want) {
		t.Errorf("got %q, want prefix %q", got, want)
	}
	var s struct {
		Properties map[string]map[string]any `json:"properties"`
		Required   []string                  `json:"required"`
	}
	json.Unmarshal(schema, &s)
	if strings.Join(s.Required, ",") != "name,class" {
		t.Errorf("required = %v", s.Required)
	}
	checks := map[string]string{
		"name":   `{"minLength":1,"title":"Your name","type":"string"}`,
		"seats":  `{"default":2,"maximum":8,"minimum":1,"type":"integer"}`,
		"class":  `{"oneOf":[{"const":"eco","title":"Economy"},{"const":"biz","title":"Business"}],"type":"string"}`,
		"meal":   `{"enum":["veg","fish"],"type":"string"}`,
		"extras": `{"items":{"enum":["wifi","lounge"],"type":"string"},"type":"array"}`,
		"notify": `{"type":"boolean"}`,
	}
	for name, want := range checks {
		if got, _ := json.Marshal(s.Properties[name]); string(got) != want {
			t.Errorf("property %s = %s\nwant %s", name, got, want)
		}
	}
	action = "decline"
	if got := textOf(t, call(t, cs, "book", nil)); !strings.HasPrefix(got, "decline {Name: Seats:0") {
		t.Errorf("decline: %q", got)
	}
}

func TestCancellation(t *testing.T) {
	p := newProbe()
	_, cs := connect(t, testApp(p), nil)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{}})
		errc <- err
	}()
	<-p.started
	cancel() // the client sends notifications/cancelled
	select {
	case err := <-p.cancelled:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("handler ctx.Err() = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("cancellation did not reach the handler's context")
	}
	if err := <-errc; err == nil {
		t.Error("cancelled call returned no error")
	}
}

func TestNewServerErrors(t *testing.T) {
	app := &connector.App{
		Tools: []connector.Tool{
			{Name: "a b", InputSchema: emptyInput, Handler: noInput(nil)},
			{Name: "ok", InputSchema: `{"type":"array"}`, Handler: noInput(nil)},
			{Name: "ok2", InputSchema: `{`, Handler: noInput(nil)},
			{Name: "ok3", InputSchema: emptyInput, UI: "missing", Handler: noInput(nil)},
			{Name: "ok4", InputSchema: emptyInput},
		},
		Completions: []connector.Completion{{RefKind: "prompt", Ref: "nope", Arg: "x", Handler: func(context.Context, string, map[string]string) ([]string, error) { return nil, nil }}},
	}
	_, err := connector.NewServer(app)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		`tool "a b": a tool name is 1 to 128 characters`,
		`tool "ok": input schema: root "type" must be "object"`,
		`tool "ok2": input schema: not a JSON object`,
		`tool "ok3": ui=missing names no view`,
		`tool "ok4": no Handler`,
		`completion for prompt "nope": no such prompt`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

func TestDecode(t *testing.T) {
	var in FindOrdersInput
	for _, args := range []string{"", "null", " "} {
		if err := connector.Decode(json.RawMessage(args), &in); err != nil || in != (FindOrdersInput{}) {
			t.Errorf("Decode(%q) = %v, %+v", args, err, in)
		}
	}
	if err := connector.Decode(json.RawMessage(`{"customer":"C1","limit":3}`), &in); err != nil || in.Limit != 3 {
		t.Errorf("Decode = %v %+v", err, in)
	}
}

// connectServer connects a real client to an existing Server in memory.
func connectServer(t testing.TB, s *connector.Server, copts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.MCP().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, copts).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return cs
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// waitFor returns what was written once it contains want, or fails the test
// after 5s. A connector's log lines reach its stderr within a moment of
// the request's answer (logbuf), not before it.
func (b *syncBuffer) waitFor(t testing.TB, want string) string {
	t.Helper()
	var s string
	waitFor(t, fmt.Sprintf("%q in the log", want), func() bool { s = b.String(); return strings.Contains(s, want) })
	return s
}

// TestMultiRoundTrip asks two questions in one tool call. Under 2026-07-28
// each question ends the call with an input-required result; the handler
// runs again with the answers. Older clients are asked directly.
func TestMultiRoundTrip(t *testing.T) {
	copts := &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada", "class": "eco"}}, nil
		},
		CreateMessageHandler: func(_ context.Context, r *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: "assistant", Model: "m", Content: &mcp.TextContent{Text: "hello " + r.Params.Messages[0].Content.(*mcp.TextContent).Text}}, nil
		},
	}
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			_, cs := connectVersion(t, v, testApp(newProbe()), copts)
			if got := textOf(t, call(t, cs, "interview", nil)); got != "Ada: hello Greet Ada" {
				t.Errorf("interview: %q", got)
			}
		})
	}

	// The same exchange by hand, with a client that declares elicitation
	// and sampling but does not retry itself.
	byHand := *copts
	byHand.MultiRoundTrip = &mcp.MultiRoundTripOptions{Disabled: true}
	_, cs := connectVersion(t, "2026-07-28", testApp(newProbe()), &byHand)
	ctx := context.Background()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "interview", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	el, ok := res.InputRequests["mcpgen-1"].(*mcp.ElicitParams)
	if !res.NeedsInput() || len(res.InputRequests) != 1 || !ok || el.Message != "Who flies?" || res.RequestState == "" || len(res.Content) != 0 {
		t.Fatalf("first round: %+v", res)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{
		Name: "interview", Arguments: map[string]any{}, RequestState: res.RequestState,
		InputResponses: mcp.InputResponseMap{"mcpgen-1": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Bo", "class": "biz"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	sp, ok := res.InputRequests["mcpgen-2"].(*mcp.CreateMessageWithToolsParams)
	if !res.NeedsInput() || !ok || sp.MaxTokens != 20 {
		t.Fatalf("second round: %+v", res)
	}
	state := res.RequestState
	answer := mcp.InputResponseMap{"mcpgen-2": &mcp.CreateMessageResult{Role: "assistant", Model: "m", Content: &mcp.TextContent{Text: "hi Bo"}}}
	// A forged state is refused: it carries the earlier answers.
	forged := []byte(state)
	forged[3] ^= 1
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "interview", Arguments: map[string]any{}, RequestState: string(forged), InputResponses: answer})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || !strings.HasPrefix(je.Message, "invalid requestState") {
		t.Errorf("forged state: %v", err)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "interview", Arguments: map[string]any{}, RequestState: state, InputResponses: answer})
	if err != nil || res.NeedsInput() || textOf(t, res) != "Bo: hi Bo" {
		t.Errorf("last round: %v %+v %q", err, res, textOf(t, res))
	}
}
