// Package serverjson writes a connector's server.json, the document the
// official MCP Registry lists a server by (schema SchemaURL): its
// reverse-DNS name, version, description, and how to get it — the MCP
// Bundle (download URL and SHA-256), an OCI image, or a deployed remote
// endpoint with the headers it wants — from what mcpgen.json declares.
package serverjson

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpgen/mcpgen/generator/ir"
)

// SchemaURL is the registry schema a server.json names and conforms to.
const SchemaURL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"

// Server is server.json. Field order is the order written.
type Server struct {
	Schema      string      `json:"$schema"`
	Name        string      `json:"name"`
	Title       string      `json:"title,omitempty"`
	Description string      `json:"description"`
	Version     string      `json:"version"`
	WebsiteURL  string      `json:"websiteUrl,omitempty"`
	Repository  *Repository `json:"repository,omitempty"`
	Packages    []Package   `json:"packages,omitempty"`
	Remotes     []Transport `json:"remotes,omitempty"`
}

// Repository is where the source is.
type Repository struct {
	URL    string `json:"url"`
	Source string `json:"source"`
}

// Package is one way to install the server locally.
type Package struct {
	RegistryType         string          `json:"registryType"`
	Identifier           string          `json:"identifier"`
	Version              string          `json:"version,omitempty"`
	FileSHA256           string          `json:"fileSha256,omitempty"`
	Transport            Transport       `json:"transport"`
	EnvironmentVariables []KeyValueInput `json:"environmentVariables,omitempty"`
}

// Transport is how a client talks to the server.
type Transport struct {
	Type    string          `json:"type"`
	URL     string          `json:"url,omitempty"`
	Headers []KeyValueInput `json:"headers,omitempty"`
}

// KeyValueInput is an environment variable or a header a user supplies.
type KeyValueInput struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	IsRequired  bool   `json:"isRequired,omitempty"`
	IsSecret    bool   `json:"isSecret,omitempty"`
	Format      string `json:"format,omitempty"`
	Default     string `json:"default,omitempty"`
}

// Options are what New needs beyond the project.
type Options struct {
	// Version overrides mcpgen.json's version (a leading v is dropped).
	Version string
	// BundleSHA256 is the hex SHA-256 of the .mcpb built in the same run;
	// required when mcpgen.json publishes one.
	BundleSHA256 string
}

// New describes proj for the registry. It reports every field the registry
// requires that the project does not give.
func New(proj *ir.Project, opts Options) (*Server, error) {
	meta := proj.Meta
	if meta == nil {
		return nil, fmt.Errorf("server.json is made from mcpgen.json, and the project has none (see docs/distribute.md)")
	}
	version := strings.TrimPrefix(opts.Version, "v")
	if version == "" {
		version = meta.Version
	}
	s := &Server{Schema: SchemaURL, Name: meta.RegistryName, Title: meta.Title, Description: meta.Description,
		Version: version, WebsiteURL: meta.Homepage}
	if meta.Repository != "" {
		s.Repository = &Repository{URL: meta.Repository, Source: source(meta.Repository)}
	}
	var missing []string
	if s.Version == "" {
		missing = append(missing, `a version (--version v1.2.0, or "version" in mcpgen.json)`)
	}
	if s.Description == "" {
		missing = append(missing, `"description" in mcpgen.json`)
	}
	pub := meta.Publish
	if pub.MCPB == "" && pub.OCI == "" && pub.Remote == "" {
		missing = append(missing, `where it is published: "publish": {"mcpb": URL, "oci": IMAGE or "remote": URL} in mcpgen.json`)
	}
	if pub.MCPB != "" && opts.BundleSHA256 == "" {
		missing = append(missing, "the bundle's SHA-256 (build it in the same run: mcpgen build --mcpb --server-json)")
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("server.json needs %s", strings.Join(missing, ", "))
	}
	var env []KeyValueInput
	for _, st := range meta.Settings {
		kv := KeyValueInput{Name: st.Env, Description: orTitle(st.Description, st.Title), IsRequired: st.Required, IsSecret: st.Sensitive}
		switch st.Type {
		case "number", "boolean":
			kv.Format = st.Type
		case "directory", "file":
			kv.Format = "filepath"
		}
		if st.Default != nil {
			kv.Default = fmt.Sprint(st.Default)
		}
		env = append(env, kv)
	}
	stdio := Transport{Type: "stdio"}
	if pub.MCPB != "" {
		s.Packages = append(s.Packages, Package{RegistryType: "mcpb", Identifier: expand(pub.MCPB, version),
			Version: version, FileSHA256: opts.BundleSHA256, Transport: stdio, EnvironmentVariables: env})
	}
	if pub.OCI != "" {
		s.Packages = append(s.Packages, Package{RegistryType: "oci", Identifier: expand(pub.OCI, version),
			Transport: stdio, EnvironmentVariables: env})
	}
	if pub.Remote != "" {
		r := Transport{Type: "streamable-http", URL: pub.Remote}
		for _, h := range pub.Headers {
			r.Headers = append(r.Headers, KeyValueInput{Name: h.Name, Description: h.Description, IsRequired: h.Required, IsSecret: h.Secret})
		}
		s.Remotes = append(s.Remotes, r)
	}
	return s, nil
}

// Marshal renders s as server.json's bytes.
func (s *Server) Marshal() []byte {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		panic("serverjson: " + err.Error()) // plain data
	}
	return append(b, '\n')
}

// expand replaces {version} in a published location.
func expand(s, version string) string { return strings.ReplaceAll(s, "{version}", version) }

// source names the forge of a repository URL, as the registry expects.
func source(url string) string {
	for _, f := range []string{"github", "gitlab"} {
		if strings.Contains(url, "://"+f+".com/") {
			return f
		}
	}
	return "git"
}

func orTitle(desc, title string) string {
	if desc != "" {
		return desc
	}
	return title
}
