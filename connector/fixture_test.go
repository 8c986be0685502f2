package connector_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen"
	"github.com/mcpgen/mcpgen/connector"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The types and functions below stand for a user's connector; testApp
// registers them exactly as mcpgen_gen.go would.

type FindOrdersInput struct {
	Customer string `json:"customer"`
	Limit    int    `json:"limit,omitempty"`
}

type FindOrdersOutput struct {
	Customer string   `json:"customer"`
	Limit    int      `json:"limit"`
	Orders   []string `json:"orders"`
}

func FindOrders(ctx context.Context, in FindOrdersInput) (FindOrdersOutput, error) {
	out := FindOrdersOutput{Customer: in.Customer, Limit: in.Limit, Orders: []string{}}
	for i := range min(in.Limit, 3) {
		out.Orders = append(out.Orders, fmt.Sprintf("%s-%d", in.Customer, i+1))
	}
	return out, nil
}

type Booking struct {
	Name   string   `json:"name" mcpgen:"title=Your name,minLength=1"`
	Seats  int      `json:"seats" mcpgen:"default=2,min=1,max=8"`
	Class  string   `json:"class" mcpgen:"enum=eco:Economy|biz:Business"`
	Meal   string   `json:"meal,omitempty" mcpgen:"enum=veg|fish"`
	Extras []string `json:"extras,omitempty" mcpgen:"enum=wifi|lounge"`
	Notify *bool    `json:"notify"`
}

const findOrdersInput = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",` +
	`"properties":{"customer":{"type":"string","description":"Customer id.","pattern":"^C[0-9]+$"},` +
	`"limit":{"type":"integer","minimum":1,"maximum":50,"default":10}},` +
	`"required":["customer"],"additionalProperties":false}`

const findOrdersOutput = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",` +
	`"properties":{"customer":{"type":"string"},"limit":{"type":"integer"},"orders":{"type":"array","items":{"type":"string"}}},` +
	`"required":["customer","limit","orders"],"additionalProperties":false}`

const emptyInput = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":false}`

// probe lets tests observe what handlers saw.
type probe struct {
	cancelled chan error // the wait tool's ctx.Err() once cancelled
	started   chan struct{}
}

func newProbe() *probe {
	return &probe{cancelled: make(chan error, 1), started: make(chan struct{}, 1)}
}

var testView = connector.View{
	Name: "orders",
	URI:  "ui://orders/3f2a9c",
	HTML: "<!doctype html><html><body><div id=root></div></body></html>",
	Meta: connector.ViewMeta{
		ConnectDomains: []string{"https://api.example.com"},
		Permissions:    []string{"clipboardWrite"},
		Domain:         "orders.example.com",
		PrefersBorder:  ptr(true),
	},
}

func ptr[T any](v T) *T { return &v }

func noInput(h func(ctx context.Context) (any, error)) connector.ToolHandler {
	return func(ctx context.Context, args json.RawMessage) (any, error) {
		var in struct{}
		if err := connector.Decode(args, &in); err != nil {
			return nil, err
		}
		return h(ctx)
	}
}

func testApp(p *probe) *connector.App {
	return &connector.App{
		Name:    "acme",
		Version: "1.2.3",
		Tools: []connector.Tool{
			{
				Name:         "find_orders",
				Title:        "Find orders",
				Description:  "FindOrders lists the orders of one customer, newest first.",
				InputSchema:  findOrdersInput,
				OutputSchema: findOrdersOutput,
				Annotations:  connector.Annotations{ReadOnly: true, Idempotent: true},
				UI:           "orders",
				Visibility:   []string{"model", "app"},
				Result:       connector.ResultStruct,
				Handler: func(ctx context.Context, args json.RawMessage) (any, error) {
					var in FindOrdersInput
					if err := connector.Decode(args, &in); err != nil {
						return nil, err
					}
					return FindOrders(ctx, in)
				},
			},
			{
				Name: "fail", Description: "Fails.", InputSchema: emptyInput, Result: connector.ResultText,
				Annotations: connector.Annotations{Destructive: true, OpenWorld: true},
				Handler: noInput(func(ctx context.Context) (any, error) {
					return "", fmt.Errorf("backend unavailable: connection refused")
				}),
			},
			{
				Name: "boom", Description: "Panics.", InputSchema: emptyInput, Result: connector.ResultText,
				Handler: noInput(func(ctx context.Context) (any, error) {
					var m map[string]int
					m["x"] = 1 // nil map write
					return "unreachable", nil
				}),
			},
			{
				Name: "slow", Description: "Waits for its deadline.", InputSchema: emptyInput, Result: connector.ResultText,
				Timeout: 50 * time.Millisecond,
				Handler: noInput(func(ctx context.Context) (any, error) {
					<-ctx.Done()
					return "", ctx.Err()
				}),
			},
			{
				Name: "stubborn", Description: "Ignores its context.", InputSchema: emptyInput, Result: connector.ResultText,
				Timeout: 50 * time.Millisecond,
				Handler: noInput(func(ctx context.Context) (any, error) {
					time.Sleep(400 * time.Millisecond)
					return "late", nil
				}),
			},
			{
				Name: "big", Description: "Returns too much text.", InputSchema: emptyInput, Result: connector.ResultText,
				MaxResultChars: 100,
				Handler: noInput(func(ctx context.Context) (any, error) {
					return strings.Repeat("é", 1000), nil
				}),
			},
			{
				Name: "mixed", Description: "Returns several content blocks.", InputSchema: emptyInput, Result: connector.ResultContent,
				Handler: noInput(func(ctx context.Context) (any, error) {
					return mcpgen.Contents{
						mcpgen.Text("a picture:"),
						mcpgen.Image([]byte{0x89, 'P', 'N', 'G'}, "image/png"),
						mcpgen.Audio([]byte("RIFF"), "audio/wav"),
						mcpgen.EmbeddedText("test://doc", "text/plain", "embedded"),
						mcpgen.Link("test://static-text", "static"),
					}, nil
				}),
			},
			{
				Name: "log", Description: "Logs.", InputSchema: emptyInput, Result: connector.ResultText,
				Handler: noInput(func(ctx context.Context) (any, error) {
					mcpgen.Log(ctx, mcpgen.LevelDebug, "debug detail")
					mcpgen.Log(ctx, mcpgen.LevelInfo, "starting")
					mcpgen.Log(ctx, mcpgen.LevelWarning, "slow backend", "ms", 1200, slog.String("host", "db1"))
					return "logged", nil
				}),
			},
			{
				Name: "progress", Description: "Reports progress.", InputSchema: emptyInput, Result: connector.ResultText,
				Handler: noInput(func(ctx context.Context) (any, error) {
					for i := 1; i <= 3; i++ {
						if err := mcpgen.Progress(ctx, float64(i), 3, fmt.Sprintf("step %d", i)); err != nil {
							return "", err
						}
					}
					return "done", nil
				}),
			},
			{
				Name: "sample", Description: "Asks the client's model.", InputSchema: emptyInput, Result: connector.ResultText,
				Handler: noInput(func(ctx context.Context) (any, error) {
					answer, err := mcpgen.Sample(ctx, "What is 2+2?", 50)
					if err != nil {
						return "", err
					}
					return "model said: " + answer, nil
				}),
			},
			{
				Name: "book", Description: "Asks the user.", InputSchema: emptyInput, Result: connector.ResultText,
				Handler: noInput(func(ctx context.Context) (any, error) {
					b, action, err := mcpgen.Elicit[Booking](ctx, "Book the flight?")
					if err != nil {
						return "", err
					}
					return fmt.Sprintf("%s %+v", action, b), nil
				}),
			},
			{
				Name: "interview", Description: "Asks the user, then the model.", InputSchema: emptyInput, Result: connector.ResultText,
				Handler: noInput(func(ctx context.Context) (any, error) {
					b, action, err := mcpgen.Elicit[Booking](ctx, "Who flies?")
					if err != nil {
						return "", err
					}
					if action != mcpgen.Accept {
						return "no booking", nil
					}
					answer, err := mcpgen.Sample(ctx, "Greet "+b.Name, 20)
					if err != nil {
						return "", err
					}
					return b.Name + ": " + answer, nil
				}),
			},
			{
				Name: "wait", Description: "Waits until cancelled.", InputSchema: emptyInput, Result: connector.ResultText,
				Handler: noInput(func(ctx context.Context) (any, error) {
					p.started <- struct{}{}
					select {
					case <-ctx.Done():
						p.cancelled <- ctx.Err()
						return "", ctx.Err()
					case <-time.After(10 * time.Second):
						return "not cancelled", nil
					}
				}),
			},
			{
				Name: "touch", Description: "Changes the watched resource.", InputSchema: emptyInput, Result: connector.ResultNone,
				Handler: noInput(func(ctx context.Context) (any, error) {
					return nil, mcpgen.ResourceUpdated(ctx, "test://watched")
				}),
			},
		},
		Resources: []connector.Resource{
			{
				URI: "test://static-text", Name: "static-text", MIMEType: "text/plain", Result: connector.ResultText,
				Handler: func(ctx context.Context, uri string, vars map[string]string) (any, error) {
					return "This is the content of the static text resource.", nil
				},
			},
			{
				URI: "test://static-binary", Name: "static-binary", MIMEType: "image/png", Result: connector.ResultBytes,
				Handler: func(ctx context.Context, uri string, vars map[string]string) (any, error) {
					return []byte{0x89, 'P', 'N', 'G', 0, 1, 2}, nil
				},
			},
			{
				URI: "test://template/{id}/data", Template: true, Name: "template", MIMEType: "application/json", Result: connector.ResultText,
				Handler: func(ctx context.Context, uri string, vars map[string]string) (any, error) {
					if vars["id"] == "missing" {
						return nil, fmt.Errorf("order %s: %w", vars["id"], mcpgen.ErrNotFound)
					}
					return fmt.Sprintf(`{"id":%q}`, vars["id"]), nil
				},
			},
			{
				URI: "test://watched", Name: "watched", MIMEType: "text/plain", Result: connector.ResultText,
				Handler: func(ctx context.Context, uri string, vars map[string]string) (any, error) {
					return "watched", nil
				},
			},
		},
		Prompts: []connector.Prompt{
			{
				Name: "greet", Description: "Greets someone.", Result: connector.ResultText,
				Arguments: []connector.PromptArgument{
					{Name: "name", Description: "Who to greet.", Required: true},
					{Name: "style", Description: "How."},
				},
				Handler: func(ctx context.Context, args map[string]string) (any, error) {
					return fmt.Sprintf("Greet %s in a %s way.", args["name"], args["style"]), nil
				},
			},
			{
				Name: "convo", Description: "A short conversation.", Result: connector.ResultMessages,
				Handler: func(ctx context.Context, args map[string]string) (any, error) {
					return mcpgen.Messages{mcpgen.UserText("Hi"), mcpgen.AssistantText("Hello!")}, nil
				},
			},
		},
		Completions: []connector.Completion{
			{
				RefKind: "prompt", Ref: "greet", Arg: "style",
				Handler: func(ctx context.Context, value string, args map[string]string) ([]string, error) {
					var out []string
					for i := range 150 {
						if s := fmt.Sprintf("style%03d", i); strings.HasPrefix(s, value) {
							out = append(out, s)
						}
					}
					return out, nil
				},
			},
			{
				RefKind: "resource", Ref: "test://template/{id}/data", Arg: "id",
				Handler: func(ctx context.Context, value string, args map[string]string) ([]string, error) {
					return []string{value + "1", value + "2"}, nil
				},
			},
		},
		Views: []connector.View{testView},
	}
}

// quietLogger keeps expected panics and errors out of the test output but
// lets a test read them.
func quietLogger(w io.Writer) *slog.Logger {
	if w == nil {
		w = io.Discard
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// connect serves app to a real go-sdk client over in-memory transports,
// speaking the newest protocol version.
func connect(t testing.TB, app *connector.App, copts *mcp.ClientOptions, opts ...connector.Option) (*connector.Server, *mcp.ClientSession) {
	t.Helper()
	return connectVersion(t, "", app, copts, opts...)
}

// versions are the protocol generations a connector serves: sessions with
// server-to-client requests and logging/setLevel (2025-11-25), and
// per-request metadata with multi-round-trip questions (2026-07-28).
var versions = []string{"2025-11-25", "2026-07-28"}

func connectVersion(t testing.TB, version string, app *connector.App, copts *mcp.ClientOptions, opts ...connector.Option) (*connector.Server, *mcp.ClientSession) {
	t.Helper()
	opts = append([]connector.Option{connector.WithLogger(quietLogger(nil))}, opts...)
	s, err := connector.NewServer(app, opts...)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, copts)
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	if version != "" && cs.InitializeResult().ProtocolVersion != version {
		t.Fatalf("negotiated %s, want %s", cs.InitializeResult().ProtocolVersion, version)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return s, cs
}

func textOf(t testing.TB, res *mcp.CallToolResult) string {
	t.Helper()
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func call(t testing.TB, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	return res
}
