// Package mcpb turns a built connector into an MCP Bundle (.mcpb), the file
// Claude Desktop installs with one click: a zip holding manifest.json, the
// connector's binary for every platform and its icon. The manifest follows
// the version the @anthropic-ai/mcpb CLI validates (ManifestVersion); its
// tools come from the generated registry and its user_config from the
// settings mcpgen.json declares, each passed to the server as the
// environment variable the setting names. The same inputs give the same
// bytes.
package mcpb

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mcpgen/mcpgen/generator/ir"
)

// ManifestVersion is the manifest format written: 0.3, the current stable
// version (0.4 only adds Python's uv runtime and is marked experimental).
const ManifestVersion = "0.3"

// Manifest is manifest.json. Field order is the order written.
type Manifest struct {
	ManifestVersion string                `json:"manifest_version"`
	Name            string                `json:"name"`
	DisplayName     string                `json:"display_name,omitempty"`
	Version         string                `json:"version"`
	Description     string                `json:"description"`
	LongDescription string                `json:"long_description,omitempty"`
	Author          Author                `json:"author"`
	Repository      *Repository           `json:"repository,omitempty"`
	Homepage        string                `json:"homepage,omitempty"`
	Icon            string                `json:"icon,omitempty"`
	Server          Server                `json:"server"`
	Tools           []Tool                `json:"tools,omitempty"`
	ToolsGenerated  bool                  `json:"tools_generated"`
	Keywords        []string              `json:"keywords,omitempty"`
	License         string                `json:"license,omitempty"`
	Compatibility   Compatibility         `json:"compatibility"`
	UserConfig      map[string]UserOption `json:"user_config,omitempty"`
}

// Author is who makes the connector.
type Author struct {
	Name  string `json:"name"`
	Email string `json:"email,omitempty"`
	URL   string `json:"url,omitempty"`
}

// Repository is where the source is.
type Repository struct {
	Type string `json:"type"`
	URL  string `json:"url"`
}

// Server says how a host starts the connector.
type Server struct {
	Type       string    `json:"type"` // always "binary"
	EntryPoint string    `json:"entry_point"`
	MCPConfig  MCPConfig `json:"mcp_config"`
}

// MCPConfig is the command a host runs; ${__dirname} is the directory the
// bundle was unpacked into and ${user_config.KEY} a setting's value.
type MCPConfig struct {
	Command           string                    `json:"command"`
	Args              []string                  `json:"args"`
	Env               map[string]string         `json:"env,omitempty"`
	PlatformOverrides map[string]PlatformConfig `json:"platform_overrides,omitempty"`
}

// PlatformConfig replaces the command on one platform (darwin, win32,
// linux: Node's process.platform).
type PlatformConfig struct {
	Command string `json:"command"`
}

// Tool is one tool as hosts list it before installing.
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// Compatibility says where the bundle runs.
type Compatibility struct {
	Platforms []string `json:"platforms"`
}

// UserOption is one setting in the host's install form.
type UserOption struct {
	Type        string   `json:"type"`
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Required    bool     `json:"required,omitempty"`
	Sensitive   bool     `json:"sensitive,omitempty"`
	Default     any      `json:"default,omitempty"`
	Min         *float64 `json:"min,omitempty"`
	Max         *float64 `json:"max,omitempty"`
}

// IconFile is where the icon is inside the bundle.
const IconFile = "icon.png"

// NodePlatform names a GOOS as Node's process.platform does (the keys of
// platform_overrides and compatibility.platforms).
func NodePlatform(goos string) string {
	if goos == "windows" {
		return "win32"
	}
	return goos
}

// NewManifest describes proj as a bundle of version carrying a binary for
// each of goos (darwin, linux, windows; see Layout for the paths). It
// reports every field the bundle needs and the project does not give.
func NewManifest(proj *ir.Project, version string, goos []string) (*Manifest, error) {
	m := &Manifest{
		ManifestVersion: ManifestVersion,
		Name:            proj.Name,
		Version:         strings.TrimPrefix(version, "v"),
		ToolsGenerated:  false,
	}
	meta := proj.Meta
	if meta == nil {
		meta = &ir.Meta{}
	}
	if m.Version == "" {
		m.Version = meta.Version
	}
	m.DisplayName = meta.Title
	m.Description = meta.Description
	m.LongDescription = meta.LongDescription
	m.Author = Author(meta.Author)
	m.Homepage = meta.Homepage
	m.License = meta.License
	m.Keywords = meta.Keywords
	if meta.Repository != "" {
		m.Repository = &Repository{Type: "git", URL: meta.Repository}
	}
	if meta.Icon != "" {
		m.Icon = IconFile
	}
	var missing []string
	if m.Version == "" {
		missing = append(missing, `a version (--version v1.2.0, or "version" in mcpgen.json)`)
	}
	if m.Description == "" {
		missing = append(missing, `"description" in mcpgen.json`)
	}
	if m.Author.Name == "" {
		missing = append(missing, `"author": {"name": ...} in mcpgen.json`)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("an MCP Bundle needs %s (see docs/distribute.md)", strings.Join(missing, ", "))
	}

	for _, t := range proj.Tools {
		m.Tools = append(m.Tools, Tool{Name: t.Name, Description: t.Description})
	}
	sorted := append([]string(nil), goos...)
	sort.Strings(sorted)
	if len(sorted) == 0 {
		return nil, fmt.Errorf("an MCP Bundle needs a binary for at least one platform")
	}
	base := sorted[0]
	m.Server = Server{Type: "binary", EntryPoint: Entry(proj.Name, base), MCPConfig: MCPConfig{
		Command: "${__dirname}/" + Entry(proj.Name, base),
		Args:    []string{"--stdio"},
	}}
	for _, g := range sorted {
		m.Compatibility.Platforms = append(m.Compatibility.Platforms, NodePlatform(g))
		if g == base {
			continue
		}
		if m.Server.MCPConfig.PlatformOverrides == nil {
			m.Server.MCPConfig.PlatformOverrides = map[string]PlatformConfig{}
		}
		m.Server.MCPConfig.PlatformOverrides[NodePlatform(g)] = PlatformConfig{Command: "${__dirname}/" + Entry(proj.Name, g)}
	}
	for _, s := range meta.Settings {
		if m.UserConfig == nil {
			m.UserConfig = map[string]UserOption{}
			m.Server.MCPConfig.Env = map[string]string{}
		}
		o := UserOption{Type: s.Type, Title: s.Title, Description: s.Description, Required: s.Required,
			Sensitive: s.Sensitive, Default: s.Default, Min: s.Min, Max: s.Max}
		if o.Description == "" {
			o.Description = s.Title
		}
		// A host substitutes ${user_config.KEY} only when the setting has a
		// value: an optional text setting left empty would otherwise reach
		// the server as the literal placeholder.
		if o.Default == nil && !o.Required && (o.Type == "string" || o.Type == "directory" || o.Type == "file") {
			o.Default = ""
		}
		m.UserConfig[s.Key] = o
		m.Server.MCPConfig.Env[s.Env] = "${user_config." + s.Key + "}"
	}
	return m, nil
}

// Entry is the path, inside the bundle, of the command that starts the
// connector called name on goos: server/darwin/NAME (a universal binary
// when the bundle has both Mac architectures), server/linux/NAME (a
// launcher picking NAME-amd64 or NAME-arm64 when it has both),
// server/win32/NAME.exe.
func Entry(name, goos string) string {
	if goos == "windows" {
		name += ".exe"
	}
	return "server/" + NodePlatform(goos) + "/" + name
}
