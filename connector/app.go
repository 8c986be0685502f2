// Package runtime is what generated code imports: it turns the registry that
// mcpgen_gen.go declares (an App) into a running MCP server on the official Go
// SDK, serving Streamable HTTP or stdio. User code normally imports the root
// package github.com/mcpgen/mcpgen instead, for content and context helpers.
package connector

import (
	"context"
	"encoding/json"
	"time"
)

// App is a connector's registry, as generated into mcpgen_gen.go.
type App struct {
	Name         string
	Version      string
	Instructions string
	// Title, Description, WebsiteURL, Repository and RegistryName describe
	// the connector in its server card (card.go); they come from the
	// project file mcpgen.json. RegistryName is reverse-DNS
	// (io.github.acme/orders); empty: local/Name.
	Title, Description, WebsiteURL, Repository, RegistryName string
	// MaxResultChars caps the text of every tool result (see
	// defaultMaxResultChars); a Tool's own MaxResultChars overrides it.
	// 0: the default.
	MaxResultChars int

	Tools       []Tool
	Resources   []Resource
	Prompts     []Prompt
	Completions []Completion
	Views       []View
}

// ResultKind says how a handler's value becomes an MCP result. The generator
// decides it from the handler's Go result type.
type ResultKind uint8

const (
	ResultNone       ResultKind = iota // no value: empty success
	ResultStruct                       // structuredContent + JSON text copy
	ResultText                         // string → text content
	ResultBytes                        // []byte → blob (resources)
	ResultContent                      // mcp.Content or []mcp.Content, as is
	ResultCallResult                   // *mcp.CallToolResult / *mcp.GetPromptResult / *mcp.ReadResourceResult, as is
	ResultMessages                     // prompts: []*mcp.PromptMessage
)

// ToolHandler decodes the (validated, defaulted) arguments into the tool's
// input type and calls the user's function. Generated code provides it.
type ToolHandler func(ctx context.Context, args json.RawMessage) (any, error)

// Annotations are a tool's hints; generated code always sets all four.
type Annotations struct {
	ReadOnly, Destructive, Idempotent, OpenWorld bool
}

// Tool is one generated tool registration.
type Tool struct {
	Name        string
	Title       string
	Description string
	// InputSchema and OutputSchema are JSON Schema 2020-12 documents computed
	// by the generator; OutputSchema is empty unless Result is ResultStruct.
	InputSchema  string
	OutputSchema string
	Annotations  Annotations
	Timeout      time.Duration // 0: no per-tool timeout
	UI           string        // linked view name, "" for none
	Visibility   []string      // MCP Apps visibility ("model", "app"); nil: default
	// MaxResultChars overrides App-wide result-size cap; 0: default.
	MaxResultChars int
	Result         ResultKind
	Handler        ToolHandler
	// Scopes are the OAuth scopes a call needs (when auth is on).
	Scopes []string
	// RateLimit bounds calls per caller; the zero Rate means none.
	RateLimit Rate
	// NeverAsks is set by the generator when it proved that the handler
	// sends the client no request (sampling, elicitation, roots) during a
	// call: the runtime may then answer the tool's calls on its fast path
	// in every session, also those whose client can be asked. The zero
	// value is the conservative one: the handler might ask.
	NeverAsks bool
	// Task says whether the tool runs as a task (tasks.go): TaskNever (the
	// zero value), TaskOptional or TaskRequired.
	Task TaskSupport
	// TaskAsksFirst (//mcpgen:tool task askfirst): for a client that
	// declared the tasks extension, the handler runs in the tools/call
	// itself and asks its questions as a multi-round trip; the task is
	// created when it calls mcpgen.StartTask (tasks_first.go). Without
	// it, the task is created before the handler runs.
	TaskAsksFirst bool
}

// ResourceHandler binds the template variables (nil for a fixed URI) into
// the input type and calls the user's function.
type ResourceHandler func(ctx context.Context, uri string, vars map[string]string) (any, error)

// Resource is one generated resource or resource template registration.
type Resource struct {
	URI         string // fixed URI, or RFC 6570 template when Template
	Template    bool
	Name        string
	Title       string
	Description string
	MIMEType    string
	Result      ResultKind
	Handler     ResourceHandler
	Scopes      []string // OAuth scopes a read needs (when auth is on)
}

// PromptHandler binds the arguments into the input type and calls the
// user's function.
type PromptHandler func(ctx context.Context, args map[string]string) (any, error)

// PromptArgument is one argument of a prompt.
type PromptArgument struct {
	Name        string
	Title       string
	Description string
	Required    bool
}

// Prompt is one generated prompt registration.
type Prompt struct {
	Name        string
	Title       string
	Description string
	Arguments   []PromptArgument
	Result      ResultKind
	Handler     PromptHandler
	Scopes      []string // OAuth scopes a get needs (when auth is on)
}

// CompletionHandler proposes values for one argument given its partial value
// and the other arguments already given.
type CompletionHandler func(ctx context.Context, value string, args map[string]string) ([]string, error)

// Completion is one generated completion registration.
type Completion struct {
	RefKind string // "prompt" or "resource"
	Ref     string // prompt name or resource template URI
	Arg     string
	Handler CompletionHandler
}

// View is one bundled MCP Apps view, served as a resource at URI with MIME
// text/html;profile=mcp-app.
type View struct {
	Name string
	URI  string
	HTML string
	Meta ViewMeta
}

// ViewMeta is placed on the view resource as _meta.ui.
type ViewMeta struct {
	ConnectDomains  []string
	ResourceDomains []string
	FrameDomains    []string
	BaseURIDomains  []string
	Permissions     []string
	Domain          string
	PrefersBorder   *bool
	Title           string
	Description     string
}
