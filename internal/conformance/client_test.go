package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// goClient is a go-sdk client session with everything the server sent it
// besides responses.
type goClient struct {
	*mcp.ClientSession

	mu       sync.Mutex
	logs     []*mcp.LoggingMessageParams
	progress []*mcp.ProgressNotificationParams
	sampled  []*mcp.CreateMessageParams
	elicited []*mcp.ElicitParams
	updated  chan string
}

// connect opens a go-sdk client session over transport, speaking protocol
// version ("" for the client's newest). The client answers sampling with
// "Paris" and accepts every elicitation with answer(params).
func connect(t *testing.T, ctx context.Context, transport mcp.Transport, version string, answer func(*mcp.ElicitParams) map[string]any) *goClient {
	t.Helper()
	c := &goClient{updated: make(chan string, 16)}
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpgen-conformance", Version: "1.0.0"}, &mcp.ClientOptions{
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			c.mu.Lock()
			c.sampled = append(c.sampled, req.Params)
			c.mu.Unlock()
			return &mcp.CreateMessageResult{Role: "assistant", Content: &mcp.TextContent{Text: "Paris"}, Model: "test-model", StopReason: "endTurn"}, nil
		},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			c.mu.Lock()
			c.elicited = append(c.elicited, req.Params)
			c.mu.Unlock()
			return &mcp.ElicitResult{Action: "accept", Content: answer(req.Params)}, nil
		},
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			c.mu.Lock()
			c.logs = append(c.logs, req.Params)
			c.mu.Unlock()
		},
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			c.mu.Lock()
			c.progress = append(c.progress, req.Params)
			c.mu.Unlock()
		},
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			c.updated <- req.Params.URI
		},
	})
	session, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { session.Close() })
	c.ClientSession = session
	return c
}

// call calls a tool and returns the text of its result, failing the test
// on a protocol error or an isError result.
func (c *goClient) call(t *testing.T, ctx context.Context, params *mcp.CallToolParams) string {
	t.Helper()
	res, err := c.CallTool(ctx, params)
	if err != nil {
		t.Fatalf("tools/call %s: %v", params.Name, err)
	}
	text := contentText(res.Content)
	if res.IsError {
		t.Fatalf("tools/call %s: isError: %s", params.Name, text)
	}
	return text
}

func contentText(content []mcp.Content) string {
	var parts []string
	for _, c := range content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// TestGoClient exercises examples/everything with the go-sdk client: the
// client answers sampling and elicitation, receives logs, progress and
// resource updates, resumes a stream the server closed, and reads every
// kind of content.
func TestGoClient(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and serves examples/everything; skipped in -short mode")
	}
	url := serve(t, everythingBinary(t))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	answers := map[string]map[string]any{
		"Who are you?":               {"username": "gopher", "email": "gopher@example.com"},
		"Please review your profile": {"name": "Jane Smith", "age": 25, "score": 88.5, "status": "inactive", "verified": false},
		"Please make your choices": {"untitledSingle": "option2", "titledSingle": "value3", "legacyEnum": "opt1",
			"untitledMulti": []string{"option1", "option3"}, "titledMulti": []string{"value2"}},
	}
	// MCP 2025-11-25, with a session: sampling and elicitation as requests
	// to the client, logging/setLevel, stream resumption. both_eras_test.go
	// covers 2026-07-28 on the same binary.
	c := connect(t, ctx, &mcp.StreamableClientTransport{Endpoint: url}, "2025-11-25", func(p *mcp.ElicitParams) map[string]any { return answers[p.Message] })

	t.Run("tools", func(t *testing.T) {
		res, err := c.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
			if tool.Description == "" {
				t.Errorf("tool %s has no description", tool.Name)
			}
			if tool.Annotations == nil {
				t.Errorf("tool %s has no annotations", tool.Name)
			}
		}
		for _, want := range []string{
			"test_simple_text", "test_image_content", "test_audio_content", "test_embedded_resource",
			"test_multiple_content_types", "test_tool_with_logging", "test_error_handling",
			"test_tool_with_progress", "test_sampling", "test_elicitation",
			"test_elicitation_sep1034_defaults", "test_elicitation_sep1330_enums",
			"json_schema_2020_12_tool", "test_reconnection", "update_watched_resource",
		} {
			if !slices.Contains(names, want) {
				t.Errorf("tools/list lacks %s; it has %v", want, names)
			}
		}
	})

	t.Run("content", func(t *testing.T) {
		res, err := c.CallTool(ctx, &mcp.CallToolParams{Name: "test_multiple_content_types"})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Content) != 3 {
			t.Fatalf("got %d content blocks, want 3", len(res.Content))
		}
		if tc, ok := res.Content[0].(*mcp.TextContent); !ok || tc.Text != "Multiple content types test:" {
			t.Errorf("block 0 = %#v, want the text", res.Content[0])
		}
		if img, ok := res.Content[1].(*mcp.ImageContent); !ok || img.MIMEType != "image/png" || !strings.HasPrefix(string(img.Data), "\x89PNG") {
			t.Errorf("block 1 = %#v, want a PNG image", res.Content[1])
		}
		if er, ok := res.Content[2].(*mcp.EmbeddedResource); !ok || er.Resource.URI != "test://mixed-content-resource" || er.Resource.Text != `{"test":"data","value":123}` {
			t.Errorf("block 2 = %#v, want the embedded JSON resource", res.Content[2])
		}
		res, err = c.CallTool(ctx, &mcp.CallToolParams{Name: "test_audio_content"})
		if err != nil {
			t.Fatal(err)
		}
		if a, ok := res.Content[0].(*mcp.AudioContent); !ok || a.MIMEType != "audio/wav" || !strings.HasPrefix(string(a.Data), "RIFF") {
			t.Errorf("audio = %#v, want a RIFF WAVE audio/wav", res.Content[0])
		}
		res, err = c.CallTool(ctx, &mcp.CallToolParams{Name: "test_error_handling"})
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError || !strings.Contains(contentText(res.Content), "This tool intentionally returns an error for testing") {
			t.Errorf("test_error_handling = isError %v %q, want the error text", res.IsError, contentText(res.Content))
		}
	})

	t.Run("sampling", func(t *testing.T) {
		got := c.call(t, ctx, &mcp.CallToolParams{Name: "test_sampling", Arguments: map[string]any{"prompt": "Capital of France?"}})
		if got != "LLM response: Paris" {
			t.Errorf("test_sampling = %q, want %q", got, "LLM response: Paris")
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		if len(c.sampled) != 1 || c.sampled[0].MaxTokens != 100 || len(c.sampled[0].Messages) != 1 {
			t.Fatalf("sampling requests = %+v, want one with maxTokens 100 and one message", c.sampled)
		}
		if tc, ok := c.sampled[0].Messages[0].Content.(*mcp.TextContent); !ok || tc.Text != "Capital of France?" {
			t.Errorf("sampled message = %#v, want the prompt", c.sampled[0].Messages[0].Content)
		}
	})

	t.Run("elicitation", func(t *testing.T) {
		got := c.call(t, ctx, &mcp.CallToolParams{Name: "test_elicitation", Arguments: map[string]any{"message": "Who are you?"}})
		if !strings.Contains(got, "action=accept") || !strings.Contains(got, "gopher@example.com") {
			t.Errorf("test_elicitation = %q, want the accepted answer", got)
		}
		got = c.call(t, ctx, &mcp.CallToolParams{Name: "test_elicitation_sep1034_defaults"})
		if !strings.Contains(got, "Jane Smith") || !strings.Contains(got, "inactive") {
			t.Errorf("test_elicitation_sep1034_defaults = %q, want the answer", got)
		}
		got = c.call(t, ctx, &mcp.CallToolParams{Name: "test_elicitation_sep1330_enums"})
		if !strings.Contains(got, "option3") || !strings.Contains(got, "value3") {
			t.Errorf("test_elicitation_sep1330_enums = %q, want the answer", got)
		}

		c.mu.Lock()
		defer c.mu.Unlock()
		if len(c.elicited) != 3 {
			t.Fatalf("got %d elicitation requests, want 3", len(c.elicited))
		}
		props := func(p *mcp.ElicitParams) map[string]map[string]any {
			var s struct {
				Properties map[string]map[string]any `json:"properties"`
			}
			b, _ := json.Marshal(p.RequestedSchema)
			if err := json.Unmarshal(b, &s); err != nil {
				t.Fatalf("requested schema %s: %v", b, err)
			}
			return s.Properties
		}
		defaults := props(c.elicited[1])
		for field, want := range map[string]any{"name": "John Doe", "age": 30.0, "score": 95.5, "status": "active", "verified": true} {
			if got := defaults[field]["default"]; got != want {
				t.Errorf("profile field %s: default %v, want %v", field, got, want)
			}
		}
		enums := props(c.elicited[2])
		for field, key := range map[string]string{"untitledSingle": "enum", "titledSingle": "oneOf", "legacyEnum": "enumNames", "untitledMulti": "items", "titledMulti": "items"} {
			if _, ok := enums[field][key]; !ok {
				t.Errorf("choices field %s has no %s: %v", field, key, enums[field])
			}
		}
	})

	t.Run("logging", func(t *testing.T) {
		if err := c.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
			t.Fatal(err)
		}
		c.call(t, ctx, &mcp.CallToolParams{Name: "test_tool_with_logging"})
		want := []string{"Tool execution started", "Tool processing data", "Tool execution completed"}
		waitFor(t, "3 log messages", func() bool { c.mu.Lock(); defer c.mu.Unlock(); return len(c.logs) >= 3 })
		c.mu.Lock()
		defer c.mu.Unlock()
		for i, l := range c.logs {
			if i >= len(want) || l.Data != want[i] || l.Level != "info" {
				t.Errorf("log %d = %s %v, want info %q", i, l.Level, l.Data, want[min(i, len(want)-1)])
			}
		}
	})

	t.Run("progress", func(t *testing.T) {
		params := &mcp.CallToolParams{Name: "test_tool_with_progress"}
		params.SetProgressToken("tok-1")
		c.call(t, ctx, params)
		waitFor(t, "3 progress notifications", func() bool { c.mu.Lock(); defer c.mu.Unlock(); return len(c.progress) >= 3 })
		c.mu.Lock()
		defer c.mu.Unlock()
		for i, p := range c.progress {
			if want := []float64{0, 50, 100}[min(i, 2)]; i > 2 || p.Progress != want || p.Total != 100 || p.ProgressToken != "tok-1" {
				t.Errorf("progress %d = %v/%v token %v, want %v/100 token tok-1", i, p.Progress, p.Total, p.ProgressToken, want)
			}
		}
	})

	t.Run("subscriptions", func(t *testing.T) {
		const uri = "test://watched-resource"
		if err := c.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatal(err)
		}
		c.call(t, ctx, &mcp.CallToolParams{Name: "update_watched_resource"})
		select {
		case got := <-c.updated:
			if got != uri {
				t.Errorf("resource updated: %s, want %s", got, uri)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("no notifications/resources/updated within 5s of the update")
		}
		res, err := c.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(res.Contents[0].Text, "version") {
			t.Errorf("watched resource = %q", res.Contents[0].Text)
		}
		if err := c.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri}); err != nil {
			t.Fatal(err)
		}
		c.call(t, ctx, &mcp.CallToolParams{Name: "update_watched_resource"})
		select {
		case got := <-c.updated:
			t.Errorf("notified of %s after unsubscribing", got)
		case <-time.After(300 * time.Millisecond):
		}
	})

	t.Run("resources", func(t *testing.T) {
		for uri, want := range map[string]string{
			"test://static-text":        "This is the content of the static text resource.",
			"test://template/123/data":  `{"data":"Data for ID: 123","id":"123","templateTest":true}`,
			"test://template/abc/data":  `{"data":"Data for ID: abc","id":"abc","templateTest":true}`,
			"test://watched-resource":   "",
			"test://static-binary":      "",
			"test://no-such-resource-x": "not found",
		} {
			res, err := c.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
			if want == "not found" {
				if err == nil {
					t.Errorf("reading %s succeeded, want not found", uri)
				}
				continue
			}
			if err != nil {
				t.Errorf("reading %s: %v", uri, err)
				continue
			}
			got := res.Contents[0]
			if got.URI != uri {
				t.Errorf("%s: content uri %s", uri, got.URI)
			}
			if uri == "test://static-binary" && (got.MIMEType != "image/png" || !strings.HasPrefix(string(got.Blob), "\x89PNG")) {
				t.Errorf("%s: %s blob %q, want a PNG", uri, got.MIMEType, got.Blob)
			}
			if want != "" && got.Text != want {
				t.Errorf("%s: text %q, want %q", uri, got.Text, want)
			}
		}
	})

	t.Run("prompts and completion", func(t *testing.T) {
		res, err := c.GetPrompt(ctx, &mcp.GetPromptParams{Name: "test_prompt_with_arguments", Arguments: map[string]string{"arg1": "hello", "arg2": "world"}})
		if err != nil {
			t.Fatal(err)
		}
		if got := contentText([]mcp.Content{res.Messages[0].Content}); got != "Prompt with arguments: arg1='hello', arg2='world'" {
			t.Errorf("prompt text = %q", got)
		}
		if _, err := c.GetPrompt(ctx, &mcp.GetPromptParams{Name: "test_prompt_with_arguments", Arguments: map[string]string{"arg1": "hello"}}); err == nil {
			t.Errorf("getting the prompt without arg2 succeeded, want an error")
		}
		comp, err := c.Complete(ctx, &mcp.CompleteParams{
			Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "test_prompt_with_arguments"},
			Argument: mcp.CompleteParamsArgument{Name: "arg1", Value: "pa"},
		})
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(comp.Completion.Values); got != "[paris park party]" {
			t.Errorf("completion of arg1 %q = %s, want [paris park party]", "pa", got)
		}
		comp, err = c.Complete(ctx, &mcp.CompleteParams{
			Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: "test://template/{id}/data"},
			Argument: mcp.CompleteParamsArgument{Name: "id", Value: "12"},
		})
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(comp.Completion.Values); got != "[12 123 1234]" {
			t.Errorf("completion of id %q = %s, want [12 123 1234]", "12", got)
		}
	})

	t.Run("reconnection", func(t *testing.T) {
		got := c.call(t, ctx, &mcp.CallToolParams{Name: "test_reconnection"})
		if !strings.Contains(got, "Reconnection test completed successfully") {
			t.Errorf("test_reconnection = %q", got)
		}
	})
}

// TestGoClientStdio runs the server-to-client features over --stdio, where
// the binary is the client's child process and stdout carries only JSON-RPC.
func TestGoClientStdio(t *testing.T) {
	if testing.Short() {
		t.Skip("builds examples/everything; skipped in -short mode")
	}
	bin := everythingBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stderr syncBuffer
	cmd := exec.Command(bin, "--stdio")
	cmd.Stderr = &stderr
	c := connect(t, ctx, &mcp.CommandTransport{Command: cmd}, "", func(*mcp.ElicitParams) map[string]any {
		return map[string]any{"username": "gopher", "email": "gopher@example.com"}
	})
	defer func() {
		if t.Failed() {
			t.Logf("server stderr:\n%s", stderr.String())
		}
	}()

	if got := c.call(t, ctx, &mcp.CallToolParams{Name: "test_sampling", Arguments: map[string]any{"prompt": "Capital of France?"}}); got != "LLM response: Paris" {
		t.Errorf("test_sampling = %q, want %q", got, "LLM response: Paris")
	}
	if got := c.call(t, ctx, &mcp.CallToolParams{Name: "test_elicitation", Arguments: map[string]any{"message": "Who are you?"}}); !strings.Contains(got, "gopher@example.com") {
		t.Errorf("test_elicitation = %q, want the accepted answer", got)
	}
	// Over stdio the go-sdk speaks MCP 2026-07-28, where the log level
	// travels in each request's _meta instead of logging/setLevel.
	if v := c.InitializeResult().ProtocolVersion; v < "2026-07-28" {
		if err := c.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
			t.Fatal(err)
		}
	}
	params := &mcp.CallToolParams{Name: "test_tool_with_logging", Meta: mcp.Meta{mcp.MetaKeyLogLevel: "info"}}
	c.call(t, ctx, params)
	params = &mcp.CallToolParams{Name: "test_tool_with_progress"}
	params.SetProgressToken(7)
	c.call(t, ctx, params)
	waitFor(t, "3 log messages and 3 progress notifications", func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return len(c.logs) >= 3 && len(c.progress) >= 3
	})
	c.mu.Lock()
	defer c.mu.Unlock()
	// The token keeps its JSON type: a number stays a number.
	if tok := c.progress[0].ProgressToken; tok != 7.0 && tok != 7 && tok != int64(7) {
		t.Errorf("progress token = %#v, want the number 7", tok)
	}
}

// waitFor polls cond for up to 5 seconds: notifications may arrive just
// after the response they belong to.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
