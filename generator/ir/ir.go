// Package ir is the plain-data model between parsing a user's Go code and
// emitting mcpgen_gen.go: every tool, resource, prompt, completion and view of
// one connector, with schemas already computed. It is JSON-marshalable, sorted
// deterministically, and holds no go/ast or go/types values, so it can be
// golden-tested and dumped for debugging (mcpgen generate --ir).
package ir

import (
	"encoding/json"
	"strings"

	"github.com/mcpgen/mcpgen/generator/diag"
)

// Project is one connector: the module and everything declared in it.
type Project struct {
	Module  string `json:"module"`  // module path, e.g. "example.com/acme"
	Dir     string `json:"dir"`     // absolute module root
	Name    string `json:"name"`    // server name announced in serverInfo
	Version string `json:"version"` // server version announced in serverInfo
	// MainPkg is the import path of the package mcpgen_gen.go is written into
	// (the module root package, which is package main).
	MainPkg string `json:"mainPkg"`

	Tools       []Tool       `json:"tools,omitempty"`       // sorted by Name
	Resources   []Resource   `json:"resources,omitempty"`   // sorted by URI
	Prompts     []Prompt     `json:"prompts,omitempty"`     // sorted by Name
	Completions []Completion `json:"completions,omitempty"` // sorted by Ref then Arg
	Views       []View       `json:"views,omitempty"`       // sorted by Name

	// Meta is what the project file mcpgen.json says about the connector as
	// something to distribute; nil when the project has none.
	Meta *Meta `json:"meta,omitempty"`
	// EnvReads are the environment variables the module's code reads by a
	// constant name (os.Getenv, os.LookupEnv), sorted by Name then
	// position: lint checks every declared setting is among them.
	EnvReads []EnvRead `json:"envReads,omitempty"`
}

// EnvRead is one read of an environment variable by a constant name.
type EnvRead struct {
	Name string   `json:"name"`
	Pos  diag.Pos `json:"pos"`
}

// Meta is the project file mcpgen.json: the connector as a product that
// people install (an MCP Bundle), find (the MCP Registry's server.json) and
// discover (its server card). Every field is optional in the file; the
// builders say which they need.
type Meta struct {
	// File is the absolute path of mcpgen.json.
	File string `json:"file"`
	// RegistryName is the reverse-DNS name of the MCP Registry and of the
	// server card, such as io.github.acme/orders. When the file does not
	// give one it is derived from the module path (RegistryNameOf).
	RegistryName string `json:"registryName"`
	// Title is the human-readable name hosts show ("Acme Orders").
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// LongDescription is Markdown shown on the bundle's page in hosts.
	LongDescription string `json:"longDescription,omitempty"`
	// Version is the release version (semantic versioning, no leading v);
	// mcpgen build --version overrides it.
	Version    string   `json:"version,omitempty"`
	Author     Author   `json:"author,omitzero"`
	Icon       string   `json:"icon,omitempty"` // PNG file, relative to the module root
	License    string   `json:"license,omitempty"`
	Homepage   string   `json:"homepage,omitempty"`
	Repository string   `json:"repository,omitempty"` // source repository URL
	Keywords   []string `json:"keywords,omitempty"`
	// Settings are what a user configures when installing the connector
	// (an API key, a directory); each reaches the server as an environment
	// variable. In file order.
	Settings []Setting `json:"settings,omitempty"`
	// Publish says where the release is published, for server.json.
	Publish Publish `json:"publish,omitzero"`
	// Pos maps a JSON pointer into the file ("/description",
	// "/settings/0/env") to where its value was written, so findings point
	// at it. The file's start is "".
	Pos map[string]diag.Pos `json:"-"`
}

// At returns where the value at pointer was written, else where its closest
// written parent was, else the file.
func (m *Meta) At(pointer string) diag.Pos {
	for {
		if p, ok := m.Pos[pointer]; ok {
			return p
		}
		i := strings.LastIndexByte(pointer, '/')
		if i < 0 {
			return diag.Pos{File: m.File, Line: 1, Col: 1}
		}
		pointer = pointer[:i]
	}
}

// Author is who makes the connector.
type Author struct {
	Name  string `json:"name,omitempty"`
	Email string `json:"email,omitempty"`
	URL   string `json:"url,omitempty"`
}

// Setting is one value a user gives when installing the connector.
type Setting struct {
	// Key names the setting in the bundle's user_config (snake_case).
	Key string `json:"key"`
	// Env is the environment variable the server reads it from.
	Env         string `json:"env"`
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
	// Type is string, number, boolean, directory or file.
	Type      string   `json:"type"`
	Sensitive bool     `json:"sensitive,omitempty"` // a secret: hosts mask it and keep it in the OS keychain
	Required  bool     `json:"required,omitempty"`
	Default   any      `json:"default,omitempty"`
	Min       *float64 `json:"min,omitempty"`
	Max       *float64 `json:"max,omitempty"`
}

// Publish says where a release can be fetched from.
type Publish struct {
	// MCPB is the HTTPS URL the .mcpb file is downloaded from (a GitHub or
	// GitLab release asset); "{version}" in it is replaced by the version.
	MCPB string `json:"mcpb,omitempty"`
	// OCI is an image reference with a tag or digest, such as
	// ghcr.io/acme/orders:1.2.0 ("{version}" replaced too).
	OCI string `json:"oci,omitempty"`
	// Remote is the URL of a deployed server's MCP endpoint
	// (https://mcp.acme.com/mcp), served over Streamable HTTP.
	Remote string `json:"remote,omitempty"`
	// Headers are the HTTP headers a client sends to Remote.
	Headers []Header `json:"headers,omitempty"`
}

// Header is one HTTP header a remote server wants.
type Header struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
	Secret      bool   `json:"secret,omitempty"`
}

// Func names a user's Go function.
type Func struct {
	PkgPath string   `json:"pkgPath"`
	PkgName string   `json:"pkgName"`
	Name    string   `json:"name"`
	Pos     diag.Pos `json:"pos"`
	// Doc is where the function's doc comment starts (its first "//").
	Doc diag.Pos `json:"doc,omitzero"`
}

// Directive is the //mcpgen: line a tool, resource or prompt was declared
// with, as written: lint findings point at the exact option they are about.
type Directive struct {
	Pos     diag.Pos `json:"pos"` // the comment's first slash
	Options []Option `json:"options,omitempty"`
}

// Option is one option of a directive, where it was written.
type Option struct {
	Name     string   `json:"name"`
	Value    string   `json:"value,omitempty"` // unquoted
	Pos      diag.Pos `json:"pos"`
	ValuePos diag.Pos `json:"valuePos,omitzero"`
}

// Lookup returns the option called name.
func (d Directive) Lookup(name string) (Option, bool) {
	for _, o := range d.Options {
		if o.Name == name {
			return o, true
		}
	}
	return Option{}, false
}

// TypeRef names a Go type as generated code must spell it. Named types are
// PkgPath+Name; other types (slices, maps, basic types) carry Expr, a Go type
// expression whose package qualifiers are the listed Imports' names.
type TypeRef struct {
	PkgPath string `json:"pkgPath,omitempty"`
	Name    string `json:"name,omitempty"`
	Pointer bool   `json:"pointer,omitempty"`
	Expr    string `json:"expr,omitempty"`
}

// ResultKind says how a handler's Go result becomes an MCP result.
type ResultKind string

const (
	ResultNone       ResultKind = "none"       // func(...) error: empty success
	ResultStruct     ResultKind = "struct"     // structuredContent + JSON text copy + outputSchema
	ResultText       ResultKind = "text"       // string → one text content
	ResultBytes      ResultKind = "bytes"      // []byte → blob (resources)
	ResultContent    ResultKind = "content"    // a runtime content value or list, passed through
	ResultCallResult ResultKind = "callResult" // *mcp.CallToolResult / *mcp.GetPromptResult / *mcp.ReadResourceResult as is
	ResultMessages   ResultKind = "messages"   // prompts: []*mcp.PromptMessage or runtime message values
)

// Signature is the shape of a handler, checked by the parser.
type Signature struct {
	Context bool       `json:"context"`          // first parameter is context.Context
	Input   *TypeRef   `json:"input,omitempty"`  // the input struct, if any
	Result  *TypeRef   `json:"result,omitempty"` // the first result, if any
	Kind    ResultKind `json:"kind"`
	Error   bool       `json:"error"` // last result is error
}

// Annotations are the tool hints. Every tool gets all four, explicit.
type Annotations struct {
	ReadOnly    bool `json:"readOnlyHint"`
	Destructive bool `json:"destructiveHint"`
	Idempotent  bool `json:"idempotentHint"`
	OpenWorld   bool `json:"openWorldHint"`
}

// Tool is one //mcpgen:tool.
type Tool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description"`
	Func         Func            `json:"func"`
	Sig          Signature       `json:"sig"`
	InputSchema  json.RawMessage `json:"inputSchema"`            // root type object, 2020-12
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"` // for ResultStruct
	// InputTypes and OutputTypes are the same schemas with every named Go
	// struct and enum type in $defs under its Go name: the source of the
	// views' TypeScript declarations (named interfaces), never served.
	// Derived data, left out of the IR's JSON.
	InputTypes  json.RawMessage `json:"-"`
	OutputTypes json.RawMessage `json:"-"`
	Annotations Annotations     `json:"annotations"`
	TimeoutMS   int64           `json:"timeoutMs,omitempty"` // 0: runtime default
	UI          string          `json:"ui,omitempty"`        // view name (ui/NAME.tsx)
	Visibility  []string        `json:"visibility,omitempty"`
	// MaxResultChars overrides the runtime's result-size cap for this tool.
	MaxResultChars int `json:"maxResultChars,omitempty"`
	// Scopes are the OAuth scopes a call needs (scope=).
	Scopes []string `json:"scopes,omitempty"`
	// RateLimit is calls per caller per RatePerMS milliseconds (ratelimit=);
	// 0: no limit of the tool's own.
	RateLimit int   `json:"rateLimit,omitempty"`
	RatePerMS int64 `json:"ratePerMs,omitempty"`
	// Task is "optional" (task: the tool may run as a task when the client
	// supports tasks) or "required" (task=required: only as a task); ""
	// for a tool that always answers at once.
	Task string `json:"task,omitempty"`
	// TaskAsksFirst (askfirst): the handler asks its questions before its
	// task is created, as a multi-round trip, and creates it with
	// mcpgen.StartTask.
	TaskAsksFirst bool `json:"taskAsksFirst,omitempty"`
	// NeverAsks is set when the handler was proved to send the client no
	// request during a call (see generator/parse's asks.go): the runtime
	// then answers its calls on the fast path in every session.
	NeverAsks bool `json:"neverAsks,omitempty"`
	// Directive is the //mcpgen:tool line as written.
	Directive Directive `json:"directive"`
	// Decls are the Go declarations its input and output schemas were
	// built from, in source order: derived data for checks that read how a
	// schema was declared (generator/lint), left out of the IR's JSON.
	Decls []Decl `json:"-"`
}

// Decl is one declaration of the user's code a schema was built from: a
// struct field (a property) or a constant of an enum type (a value).
type Decl struct {
	Kind   string `json:"kind"`   // "field" or "const"
	Output bool   `json:"output"` // found from the output type, not the input
	// Owner is the Go name of the struct (a field's) or of the enum type (a
	// constant's).
	Owner  string `json:"owner"`
	GoName string `json:"goName"`
	// JSONName is the property name (a field's) or the JSON value (a
	// constant's, as JSON: "\"word\"").
	JSONName string `json:"jsonName"`
	// Tagged reports whether a json tag names the field.
	Tagged bool `json:"tagged,omitempty"`
	// JSONTag is the field's json tag as written ("" without one).
	JSONTag string `json:"jsonTag,omitempty"`
	// Required reports whether the field is a required property.
	Required bool `json:"required,omitempty"`
	// Type is the Go type of a field, as written in its package.
	Type string `json:"type,omitempty"`
	// TypeName is the name of a field's named type (pointers removed), or "".
	TypeName string `json:"typeName,omitempty"`
	// Doc is the description the model reads for it: its own doc or line
	// comment, or else, for a field, its named type's doc comment.
	Doc string `json:"doc,omitempty"`
	// TypeDoc reports whether Doc is the field's type's doc comment.
	TypeDoc bool `json:"typeDoc,omitempty"`
	// DocPos is where Doc is written (its comment's first slash); zero
	// when there is no doc.
	DocPos diag.Pos `json:"docPos,omitzero"`
	Pos    diag.Pos `json:"pos"` // the field's or constant's name
}

// Resource is one //mcpgen:resource: a fixed URI or an RFC 6570 template whose
// variables bind to the fields of the input struct (by JSON name).
type Resource struct {
	URI         string    `json:"uri"`
	Template    bool      `json:"template"`
	Name        string    `json:"name"`
	Title       string    `json:"title,omitempty"`
	Description string    `json:"description"`
	MIMEType    string    `json:"mimeType,omitempty"`
	Func        Func      `json:"func"`
	Sig         Signature `json:"sig"`
	// Vars maps each template variable to the Go field it sets.
	Vars []TemplateVar `json:"vars,omitempty"`
	// Scopes are the OAuth scopes a read needs (scope=).
	Scopes []string `json:"scopes,omitempty"`
	// Directive is the //mcpgen:resource line as written.
	Directive Directive `json:"directive"`
}

// TemplateVar binds one URI template variable to an input struct field.
type TemplateVar struct {
	Name  string `json:"name"`  // variable name in the template
	Field string `json:"field"` // Go field name in the input struct
	Kind  string `json:"kind"`  // Go basic kind of the field: string, int, int64, bool, ...
}

// Prompt is one //mcpgen:prompt.
type Prompt struct {
	Name        string      `json:"name"`
	Title       string      `json:"title,omitempty"`
	Description string      `json:"description"`
	Func        Func        `json:"func"`
	Sig         Signature   `json:"sig"`
	Arguments   []PromptArg `json:"arguments,omitempty"`
	Scopes      []string    `json:"scopes,omitempty"` // OAuth scopes a get needs (scope=)
	// Directive is the //mcpgen:prompt line as written.
	Directive Directive `json:"directive"`
}

// PromptArg is one prompt argument, from one string field of the input struct.
type PromptArg struct {
	Name        string `json:"name"`  // JSON name
	Field       string `json:"field"` // Go field name
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required"`
}

// Completion is one //mcpgen:complete: a function that proposes values for
// one prompt argument or one resource template variable.
type Completion struct {
	// RefKind is "prompt" or "resource"; Ref is the prompt name or the
	// resource template URI.
	RefKind string `json:"refKind"`
	Ref     string `json:"ref"`
	Arg     string `json:"arg"`
	Func    Func   `json:"func"`
	// Context reports whether the function takes the other arguments already
	// given (map[string]string) as well as the partial value.
	Context bool `json:"context"`
	// Ctx reports whether the function's first parameter is context.Context.
	Ctx bool `json:"ctx"`
}

// View is one ui/NAME.tsx (or ui/NAME/index.tsx) bundled into one HTML
// document.
type View struct {
	Name string   `json:"name"`
	File string   `json:"file"` // source path relative to the module root
	URI  string   `json:"uri"`  // ui://NAME/HASH: changes when HTML changes
	HTML string   `json:"-"`    // the bundle; not in IR dumps
	Hash string   `json:"hash"` // hex sha256 of HTML (first 16 chars)
	Meta ViewMeta `json:"meta"`
	// Inputs are the project's own source files the bundle was made of
	// (relative to the module root, slash-separated, sorted; packages under
	// node_modules left out), for checks that read a view's code. Empty
	// when the view was only discovered.
	Inputs []string `json:"inputs,omitempty"`
	// SourceMap is the source map (version 3) of the bundle's script, its
	// sources relative to the module root, and ScriptLine the line of HTML
	// (from 0) the script starts on: they turn a place in the document
	// back into one in the view's source. Empty for a view only discovered.
	SourceMap  string `json:"-"`
	ScriptLine int    `json:"-"`
}

// ViewMeta is the MCP Apps metadata placed on the view resource (_meta.ui).
type ViewMeta struct {
	ConnectDomains  []string `json:"connectDomains,omitempty"`
	ResourceDomains []string `json:"resourceDomains,omitempty"`
	FrameDomains    []string `json:"frameDomains,omitempty"`
	BaseURIDomains  []string `json:"baseUriDomains,omitempty"`
	Permissions     []string `json:"permissions,omitempty"` // e.g. camera, microphone, geolocation, clipboardWrite
	Domain          string   `json:"domain,omitempty"`
	PrefersBorder   *bool    `json:"prefersBorder,omitempty"`
	Title           string   `json:"title,omitempty"`
	Description     string   `json:"description,omitempty"`
}
