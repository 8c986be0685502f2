// Package install turns "register this connector with that MCP client" into
// an edit of the client's configuration file. The clients are data (Clients:
// where each keeps its file per scope, which key holds its servers, how an
// entry is spelt); the edit is a pure function from the old bytes to the new
// (Servers.Edit, Servers.Remove) that keeps everything it does not own; and
// a Change is written atomically, durably and with one backup, or not at all
// when nothing changed.
package install

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Scope is where a client reads a server from: the user's own configuration
// (every project) or one project's.
type Scope string

// Scopes.
const (
	User    Scope = "user"
	Project Scope = "project"
)

// Base is the directory a configuration file's path is relative to.
type Base int

// Bases.
const (
	// Home is the user's home directory ($HOME, %USERPROFILE%).
	Home Base = iota
	// Config is the user's configuration directory: $XDG_CONFIG_HOME (or
	// ~/.config) on Linux, ~/Library/Application Support on macOS,
	// %APPDATA% on Windows.
	Config
	// ProjectDir is the project the client is used in: the current
	// directory.
	ProjectDir
)

// Location is a configuration file: Rel (slash-separated) under Base.
type Location struct {
	Base Base
	Rel  string
}

// Client is an MCP client whose configuration mcpgen can edit.
type Client struct {
	// Target is the name on mcpgen's command line.
	Target string
	// Title is the client's name for people.
	Title string
	// Files maps each scope the client has to its file; DefaultScope is
	// used when none is asked for.
	Files        map[Scope]Location
	DefaultScope Scope
	// Servers locates the servers object in the file.
	Servers Servers
	// Type writes "type": "stdio" or "http" in each entry, as the client
	// expects.
	Type bool
	// URL is whether the client connects to a running server by URL; a
	// client without it only starts its servers itself.
	URL bool
	// Transports are the transports the client can reach a URL by, the
	// default first; nil means Streamable HTTP only.
	Transports []Transport
	// Lock is whether the client locks its file while it saves it, with a
	// directory FILE.lock (npm's proper-lockfile): mcpgen then takes that
	// lock too, so the client's saves and its edit never interleave.
	Lock bool
}

// Clients are the supported clients, by Target.
var Clients = []*Client{
	{
		Target:       "claude-desktop",
		Title:        "Claude Desktop",
		Files:        map[Scope]Location{User: {Config, "Claude/claude_desktop_config.json"}},
		DefaultScope: User,
		Servers:      Servers{Path: []string{"mcpServers"}},
	},
	{
		Target: "claude-code",
		Title:  "Claude Code",
		Files: map[Scope]Location{
			User:    {Home, ".claude.json"},
			Project: {ProjectDir, ".mcp.json"},
		},
		DefaultScope: User,
		Servers:      Servers{Path: []string{"mcpServers"}},
		Type:         true,
		URL:          true,
		Transports:   []Transport{HTTP, SSE, WebSocket},
		Lock:         true,
	},
	{
		Target: "cursor",
		Title:  "Cursor",
		Files: map[Scope]Location{
			User:    {Home, ".cursor/mcp.json"},
			Project: {ProjectDir, ".cursor/mcp.json"},
		},
		DefaultScope: User,
		Servers:      Servers{Path: []string{"mcpServers"}},
		URL:          true,
	},
	{
		Target: "vscode",
		Title:  "Visual Studio Code",
		Files: map[Scope]Location{
			User:    {Config, "Code/User/mcp.json"},
			Project: {ProjectDir, ".vscode/mcp.json"},
		},
		DefaultScope: User,
		Servers:      Servers{Path: []string{"servers"}, JSONC: true},
		Type:         true,
		URL:          true,
	},
	{
		Target:       "mcp-json",
		Title:        "a project's .mcp.json",
		Files:        map[Scope]Location{Project: {ProjectDir, ".mcp.json"}},
		DefaultScope: Project,
		Servers:      Servers{Path: []string{"mcpServers"}},
		Type:         true,
		URL:          true,
	},
}

// Lookup returns the client called target, or nil.
func Lookup(target string) *Client {
	for _, c := range Clients {
		if c.Target == target {
			return c
		}
	}
	return nil
}

// Targets returns every client's Target.
func Targets() []string {
	var out []string
	for _, c := range Clients {
		out = append(out, c.Target)
	}
	return out
}

// ScopeNames returns the client's scopes, sorted.
func (c *Client) ScopeNames() []string {
	var out []string
	for s := range c.Files {
		out = append(out, string(s))
	}
	sort.Strings(out)
	return out
}

// Env is where the directories a Location is relative to come from.
type Env struct {
	// Home, ConfigDir and WorkDir are the Home, Config and ProjectDir
	// bases. Empty ones are taken from the process (os.UserHomeDir,
	// os.UserConfigDir, os.Getwd).
	Home, ConfigDir, WorkDir string
	// Getenv reads an environment variable; nil means os.Getenv.
	Getenv func(string) string
}

// File returns the absolute path of the client's configuration file for
// scope ("" for the default scope).
func (c *Client) File(scope Scope, env Env) (string, error) {
	if scope == "" {
		scope = c.DefaultScope
	}
	loc, ok := c.Files[scope]
	if !ok {
		return "", fmt.Errorf("%s has no %s scope; valid: %s", c.Title, scope, strings.Join(c.ScopeNames(), ", "))
	}
	getenv := env.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	var base string
	var err error
	switch loc.Base {
	case Home:
		base = env.Home
		if c.Target == "claude-code" && getenv("CLAUDE_CONFIG_DIR") != "" {
			// Claude Code keeps ~/.claude.json in CLAUDE_CONFIG_DIR when set.
			base = getenv("CLAUDE_CONFIG_DIR")
		}
		if base == "" {
			base, err = os.UserHomeDir()
		}
	case Config:
		base = env.ConfigDir
		if base == "" {
			base, err = os.UserConfigDir()
		}
	case ProjectDir:
		base = env.WorkDir
		if base == "" {
			base, err = os.Getwd()
		}
	}
	if err != nil {
		return "", fmt.Errorf("locating %s's configuration: %w (name the file with --config)", c.Title, err)
	}
	return filepath.Abs(filepath.Join(base, filepath.FromSlash(loc.Rel)))
}

// Transport is how a client reaches a running server, as the "type" of its
// entry spells it.
type Transport string

// Transports, each served by a connector at its own path (Path).
const (
	HTTP      Transport = "http" // Streamable HTTP, at /mcp
	SSE       Transport = "sse"  // the 2024-11-05 HTTP+SSE transport, at /sse
	WebSocket Transport = "ws"   // WebSocket, at /ws
)

// TransportNames are the transports mcpgen knows, for messages.
var TransportNames = []string{string(HTTP), string(SSE), string(WebSocket)}

// Path is the path a connector serves t at.
func (t Transport) Path() string {
	switch t {
	case SSE:
		return "/sse"
	case WebSocket:
		return "/ws"
	}
	return "/mcp"
}

// transportOf returns the client's transport called name ("" for its
// default).
func (c *Client) transportOf(name Transport) (Transport, error) {
	have := c.Transports
	if have == nil {
		have = []Transport{HTTP}
	}
	if name == "" {
		return have[0], nil
	}
	for _, t := range have {
		if t == name {
			return t, nil
		}
	}
	names := string(have[0])
	for i, t := range have[1:] {
		sep := ", "
		if i == len(have)-2 {
			sep = " or "
		}
		names += sep + string(t)
	}
	return "", fmt.Errorf("%s reaches a server by URL over %s, not %q", c.Title, names, name)
}

// endpointPaths are the paths a connector serves its transports at: a URL
// ending in one of them (or in none) names the connector itself, and takes
// the chosen transport's path instead.
var endpointPaths = []string{"", "/", "/mcp", "/sse", "/ws"}

// TransportURL returns raw (http, https, ws or wss) as the URL of t: a
// connector's address, or one of its endpoints, becomes the endpoint of t
// (http://127.0.0.1:8080/mcp with sse is http://127.0.0.1:8080/sse, with
// ws ws://127.0.0.1:8080/ws); any other path (a proxy's) is kept, only
// the scheme following the transport.
func TransportURL(raw string, t Transport) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("--url %q: want http://HOST:PORT/mcp or https://...", raw)
	}
	secure := false
	switch u.Scheme {
	case "http", "ws":
	case "https", "wss":
		secure = true
	default:
		return "", fmt.Errorf("--url %q: want an http, https, ws or wss URL", raw)
	}
	switch {
	case t == WebSocket && secure:
		u.Scheme = "wss"
	case t == WebSocket:
		u.Scheme = "ws"
	case secure:
		u.Scheme = "https"
	default:
		u.Scheme = "http"
	}
	if slices.Contains(endpointPaths, u.Path) {
		u.Path, u.RawPath = t.Path(), ""
	}
	return u.String(), nil
}

// Entry is one server as mcpgen registers it: a command the client starts
// (speaking stdio), or the URL of a running server and the transport to
// reach it by. With no Transport the URL is written as given, for the
// client's default transport (Streamable HTTP); with one, it is made the
// URL of that transport's endpoint (TransportURL).
type Entry struct {
	Command   string
	Args      []string
	Env       map[string]string
	URL       string
	Transport Transport
}

// stdioEntry and httpEntry fix the order of the keys written.
type stdioEntry struct {
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
}

type httpEntry struct {
	Type string `json:"type,omitempty"`
	URL  string `json:"url"`
}

// Render returns e as the client spells it in its file.
func (c *Client) Render(e Entry) (any, error) {
	if e.URL != "" {
		if !c.URL {
			return nil, fmt.Errorf("%s starts its servers itself and cannot connect to a URL: drop --url to register a built binary, or use --dev", c.Title)
		}
		if len(e.Env) > 0 {
			return nil, fmt.Errorf("--env applies to a server the client starts, not to one reached by --url")
		}
		t, err := c.transportOf(e.Transport)
		if err != nil {
			return nil, err
		}
		u := e.URL
		if e.Transport != "" {
			// Asked for by name: the URL names the connector, whichever
			// endpoint it was given with.
			if u, err = TransportURL(e.URL, t); err != nil {
				return nil, err
			}
		}
		h := httpEntry{URL: u}
		if c.Type {
			h.Type = string(t)
		}
		return h, nil
	}
	if e.Transport != "" {
		return nil, fmt.Errorf("--transport applies to a server reached by --url; %s starts this one itself (over stdio)", c.Title)
	}
	s := stdioEntry{Command: e.Command, Args: e.Args, Env: e.Env}
	if c.Type {
		s.Type = "stdio"
	}
	return s, nil
}
