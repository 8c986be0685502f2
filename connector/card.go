package connector

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/internal/authgate"
	"github.com/mcpgen/mcpgen/internal/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Server cards (SEP-2127, an experimental MCP extension whose draft lives
// in modelcontextprotocol/experimental-ext-server-card) let directories and
// clients learn what a server is before connecting. The draft reserves
// <streamable-http-url>/server-card for a server's own card, with the
// media type below, CORS open to every origin, and ETag revalidation.
const (
	// cardPath is where the card is served: the MCP endpoint + /server-card.
	cardPath = "/mcp/server-card"
	// cardMediaType is the card's Content-Type.
	cardMediaType = "application/mcp-server-card+json"
	// cardSchema is the $schema every card names.
	cardSchema = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"
	// cardMeta is mcpgen's namespace in the card's _meta: the draft leaves
	// tools, capabilities and auth out of the card proper (clients list
	// them once connected) and keeps _meta for what a vendor adds.
	cardMeta = "io.github.mcpgen/"
)

// card is the JSON document; field order is the order written.
type card struct {
	Schema      string          `json:"$schema"`
	Name        string          `json:"name"`
	Version     string          `json:"version"`
	Description string          `json:"description"`
	Title       string          `json:"title,omitempty"`
	WebsiteURL  string          `json:"websiteUrl,omitempty"`
	Repository  *cardRepository `json:"repository,omitempty"`
	Remotes     []cardRemote    `json:"remotes,omitempty"`
	Meta        map[string]any  `json:"_meta,omitempty"`
}

type cardRepository struct {
	URL    string `json:"url"`
	Source string `json:"source"`
}

type cardRemote struct {
	Type                      string       `json:"type"`
	URL                       string       `json:"url"`
	Headers                   []cardHeader `json:"headers,omitempty"`
	SupportedProtocolVersions []string     `json:"supportedProtocolVersions,omitempty"`
}

type cardHeader struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	IsRequired  bool   `json:"isRequired,omitempty"`
	IsSecret    bool   `json:"isSecret,omitempty"`
}

type cardTool struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
}

// Card returns the server card's bytes. The card names the remote endpoint
// only when the server knows its public URL (WithPublicURL): a URL guessed
// from a request's Host could be anyone's.
func (s *Server) Card() []byte {
	s.cardOnce.Do(func() { s.card = s.newCard() })
	return s.card
}

func (s *Server) newCard() []byte {
	app := s.app
	c := card{
		Schema: cardSchema, Name: app.RegistryName, Version: appVersion(app),
		Description: app.Description, Title: app.Title, WebsiteURL: app.WebsiteURL,
	}
	if c.Name == "" {
		c.Name = "local/" + s.mcpName()
	}
	if c.Description == "" {
		// The card requires one; a project without mcpgen.json has only
		// its name.
		c.Description = "The " + s.mcpName() + " MCP server"
	}
	if r := []rune(c.Description); len(r) > 100 {
		// The draft allows 100 characters (lint's DIST003 says so earlier).
		c.Description = string(r[:99]) + "…"
	}
	if app.Repository != "" {
		src := "git"
		if strings.Contains(app.Repository, "://github.com/") {
			src = "github"
		} else if strings.Contains(app.Repository, "://gitlab.com/") {
			src = "gitlab"
		}
		c.Repository = &cardRepository{URL: app.Repository, Source: src}
	}
	versions := append([]string{wire.StatelessVersion}, mcp.SupportedProtocolVersions()...)
	if s.opts.publicURL != "" {
		r := cardRemote{Type: "streamable-http", URL: strings.TrimSuffix(s.opts.publicURL, "/") + "/mcp", SupportedProtocolVersions: versions}
		if s.opts.auth != nil {
			r.Headers = []cardHeader{{Name: "Authorization", Description: "Bearer token (OAuth 2.1; the authorization server is named in the protected-resource metadata)", IsRequired: true, IsSecret: true}}
		}
		c.Remotes = []cardRemote{r}
	}
	caps := map[string]any{}
	if len(app.Tools) > 0 {
		caps["tools"] = map[string]any{"listChanged": true}
	}
	if len(app.Resources) > 0 || len(app.Views) > 0 {
		caps["resources"] = map[string]any{"listChanged": true}
	}
	if len(app.Prompts) > 0 {
		caps["prompts"] = map[string]any{"listChanged": true}
	}
	if len(app.Completions) > 0 {
		caps["completions"] = map[string]any{}
	}
	caps["logging"] = map[string]any{}
	tools := []cardTool{}
	for _, t := range app.Tools {
		tools = append(tools, cardTool{Name: t.Name, Title: t.Title, Description: t.Description})
	}
	auth := map[string]any{"required": s.opts.auth != nil}
	if a := s.opts.auth; a != nil && s.opts.publicURL != "" {
		_, metadata := authgate.ResourceURLs(s.opts.publicURL)
		auth["type"] = "oauth2"
		auth["resourceMetadata"] = metadata
	}
	c.Meta = map[string]any{
		cardMeta + "capabilities": caps,
		cardMeta + "tools":        tools,
		cardMeta + "auth":         auth,
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		panic("runtime: server card: " + err.Error()) // plain data
	}
	return append(b, '\n')
}

// CardHandler serves the server card: GET and HEAD, with a strong ETag
// (If-None-Match answered 304), an hour of public caching, and the CORS
// headers the draft requires, since the card is public metadata a browser
// page may read.
func (s *Server) CardHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Allow-Methods", "GET")
		h.Set("Access-Control-Allow-Headers", "Content-Type, If-None-Match")
		h.Set("Access-Control-Expose-Headers", "ETag")
		switch r.Method {
		case http.MethodOptions:
			w.WriteHeader(http.StatusNoContent)
			return
		case http.MethodGet, http.MethodHead:
		default:
			h.Set("Allow", "GET, HEAD, OPTIONS")
			http.Error(w, "Method Not Allowed: the server card is read with GET", http.StatusMethodNotAllowed)
			return
		}
		body := s.Card()
		sum := sha256.Sum256(body)
		h.Set("ETag", `"`+hex.EncodeToString(sum[:16])+`"`)
		h.Set("Cache-Control", "public, max-age=3600")
		h.Set("Content-Type", cardMediaType)
		h.Set("X-Content-Type-Options", "nosniff")
		// ServeContent answers If-None-Match with 304 (and HEAD and
		// ranges) from the ETag set above.
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
	})
}
