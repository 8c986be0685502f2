// Command plain is a connector written directly on the go-sdk: the dev
// loop's tests run it as the child process behind the front.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const version = "v1"

type greetIn struct {
	Name string `json:"name"`
}

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address")
	flag.Parse()
	s := mcp.NewServer(&mcp.Implementation{Name: "plain", Version: version}, &mcp.ServerOptions{
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	mcp.AddTool(s, &mcp.Tool{
		Name:        "greet",
		Description: "Greets someone.",
		Meta:        mcp.Meta{"ui": map[string]any{"resourceUri": "ui://card/fromchild"}},
	}, func(ctx context.Context, req *mcp.CallToolRequest, in greetIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello " + in.Name + " " + version}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "work", Description: "Reports progress, logs, and asks the host's model."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			if tok := req.Params.GetProgressToken(); tok != nil {
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 1, Total: 2})
			}
			_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: "working"})
			res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{
				MaxTokens: 10,
				Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "say something"}}},
			})
			if err != nil {
				return nil, nil, err
			}
			el, err := req.Session.Elicit(ctx, &mcp.ElicitParams{
				Message:         "Your name?",
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}},
			})
			if err != nil {
				return nil, nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{res.Content, &mcp.TextContent{Text: fmt.Sprint(el.Action, " ", el.Content["name"])}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "block", Description: "Waits until the call is cancelled."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "plain: blocking")
			select {
			case <-ctx.Done():
				fmt.Fprintln(os.Stderr, "plain: block cancelled")
				return nil, nil, ctx.Err()
			case <-time.After(time.Minute):
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "not cancelled"}}}, nil, nil
			}
		})
	mcp.AddTool(s, &mcp.Tool{Name: "touch", Description: "Announces that test://static changed."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			_ = s.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "test://static"})
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "touched"}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "crash", Description: "Exits the process shortly after answering."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			go func() {
				time.Sleep(50 * time.Millisecond)
				fmt.Fprintln(os.Stderr, "plain: crashing on purpose")
				os.Exit(3)
			}()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "bye"}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "die", Description: "Exits the process in the middle of the call."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "plain: dying mid-call")
			os.Exit(4)
			return nil, nil, nil
		})
	s.AddResource(&mcp.Resource{URI: "test://die", Name: "die", MIMEType: "text/plain"},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			fmt.Fprintln(os.Stderr, "plain: dying mid-read")
			os.Exit(5)
			return nil, nil
		})
	s.AddResource(&mcp.Resource{URI: "test://static", Name: "static", MIMEType: "text/plain"},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "static " + version}}}, nil
		})
	s.AddResource(&mcp.Resource{URI: "ui://card/fromchild", Name: "card", MIMEType: "text/html;profile=mcp-app"},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/html;profile=mcp-app", Text: "stale"}}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "hi", Description: "Says hi."},
		func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi " + version}}}}, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	http.Handle("/mcp", h)
	fmt.Fprintf(os.Stderr, "plain %s pid %d listening on %s\n", version, os.Getpid(), *addr)
	log.Fatal(http.ListenAndServe(*addr, nil))
}
