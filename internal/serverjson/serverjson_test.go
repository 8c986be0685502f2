package serverjson

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpgen/mcpgen/generator/ir"
)

// registrySchema is the registry's schema, kept in testdata (see its README).
func registrySchema(t *testing.T) *jsonschema.Resolved {
	t.Helper()
	data, err := os.ReadFile("testdata/server.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("the registry's schema: %v", err)
	}
	if s.ID != SchemaURL {
		t.Fatalf("testdata/server.schema.json is %s; SchemaURL names %s: keep them together", s.ID, SchemaURL)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("resolving the registry's schema: %v", err)
	}
	return r
}

// validate checks server.json's bytes against the schema.
func validate(t *testing.T, r *jsonschema.Resolved, doc []byte) error {
	t.Helper()
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatal(err)
	}
	return r.Validate(v)
}

func project() *ir.Project {
	return &ir.Project{Name: "orders", Meta: &ir.Meta{
		RegistryName: "io.github.acme/orders", Title: "Acme Orders", Description: "Find and track Acme orders.",
		Version: "1.2.0", Homepage: "https://acme.example/orders", Repository: "https://github.com/acme/orders",
		Settings: []ir.Setting{
			{Key: "api_key", Env: "ACME_API_KEY", Title: "API key", Type: "string", Sensitive: true, Required: true},
			{Key: "limit", Env: "ACME_LIMIT", Title: "Limit", Type: "number", Default: 10.0},
			{Key: "dir", Env: "ACME_DIR", Title: "Folder", Type: "directory"},
		},
		Publish: ir.Publish{
			MCPB:    "https://github.com/acme/orders/releases/download/v{version}/orders.mcpb",
			OCI:     "ghcr.io/acme/orders:{version}",
			Remote:  "https://mcp.acme.example/mcp",
			Headers: []ir.Header{{Name: "Authorization", Description: "Bearer token", Required: true, Secret: true}},
		},
	}}
}

func TestNewValidAgainstRegistrySchema(t *testing.T) {
	t.Parallel()
	r := registrySchema(t)
	const sum = "fe333e598595000ae021bd27117db32ec69af6987f507ba7a63c90638ff633ce"
	s, err := New(project(), Options{Version: "v1.3.0", BundleSHA256: sum})
	if err != nil {
		t.Fatal(err)
	}
	doc := s.Marshal()
	if err := validate(t, r, doc); err != nil {
		t.Fatalf("server.json does not validate against the registry's schema: %v\n%s", err, doc)
	}
	for _, want := range []string{
		`"name": "io.github.acme/orders"`, `"version": "1.3.0"`,
		`"identifier": "https://github.com/acme/orders/releases/download/v1.3.0/orders.mcpb"`,
		`"fileSha256": "` + sum + `"`, `"identifier": "ghcr.io/acme/orders:1.3.0"`,
		`"type": "streamable-http"`, `"name": "ACME_API_KEY"`, `"isSecret": true`, `"format": "filepath"`,
		`"source": "github"`,
	} {
		if !strings.Contains(string(doc), want) {
			t.Errorf("server.json lacks %s:\n%s", want, doc)
		}
	}
}

// TestSchemaCatches shows the kept schema rejects what the registry
// rejects, so the test above can fail.
func TestSchemaCatches(t *testing.T) {
	t.Parallel()
	r := registrySchema(t)
	for name, mutate := range map[string]func(*Server){
		"name without a slash": func(s *Server) { s.Name = "orders" },
		"description over 100": func(s *Server) { s.Description = strings.Repeat("x", 101) },
		"checksum not hex":     func(s *Server) { s.Packages[0].FileSHA256 = "XYZ" },
	} {
		s, err := New(project(), Options{BundleSHA256: strings.Repeat("ab", 32)})
		if err != nil {
			t.Fatal(err)
		}
		mutate(s)
		if err := validate(t, r, s.Marshal()); err == nil {
			t.Errorf("%s: the schema accepted it", name)
		}
	}
}

func TestNewNeeds(t *testing.T) {
	t.Parallel()
	if _, err := New(&ir.Project{Name: "x"}, Options{}); err == nil || !strings.Contains(err.Error(), "mcpgen.json") {
		t.Errorf("no mcpgen.json: err = %v", err)
	}
	p := project()
	p.Meta.Version, p.Meta.Description = "", ""
	_, err := New(p, Options{})
	for _, want := range []string{"a version", `"description"`, "SHA-256"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v; want it to name %s", err, want)
		}
	}
}
