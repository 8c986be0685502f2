package connector_test

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpgen/mcpgen/connector"
)

// cardSchema is the SEP-2127 draft's schema of a server card, kept in
// testdata (see server-card.README.md).
func cardSchema(t *testing.T) *jsonschema.Resolved {
	t.Helper()
	data, err := os.ReadFile("testdata/server-card.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	s.Ref = "#/$defs/ServerCard"
	r, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func get(t *testing.T, method, url string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, body
}

func TestServerCard(t *testing.T) {
	t.Parallel()
	app := testApp(newProbe())
	app.Title, app.Description, app.RegistryName = "Acme", "Find and track Acme orders.", "io.github.acme/orders"
	app.Repository = "https://github.com/acme/orders"
	mcpURL, _, _, _ := startRun(t, app, []string{"--addr", "127.0.0.1:0", "--public-url", "https://mcp.acme.example"}, nil)
	url := mcpURL + "/server-card"

	resp, body := get(t, "GET", url, map[string]string{"Accept": connector.CardMediaType, "Origin": "https://directory.example"})
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, body)
	}
	for k, want := range map[string]string{
		"Content-Type":                  connector.CardMediaType,
		"Access-Control-Allow-Origin":   "*",
		"Access-Control-Expose-Headers": "ETag",
		"Cache-Control":                 "public, max-age=3600",
	} {
		if got := resp.Header.Get(k); got != want {
			t.Errorf("%s: %q, want %q", k, got, want)
		}
	}
	etag := resp.Header.Get("ETag")
	if !strings.HasPrefix(etag, `"`) || len(etag) < 10 {
		t.Fatalf("ETag %q: want a strong entity tag", etag)
	}
	var doc map[string]any
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatalf("card: %v\n%s", err, body)
	}
	if err := cardSchema(t).Validate(doc); err != nil {
		t.Errorf("the card does not validate against the SEP-2127 schema: %v\n%s", err, body)
	}
	for _, want := range []string{
		`"name": "io.github.acme/orders"`, `"version": "1.2.3"`, `"title": "Acme"`,
		`"url": "https://mcp.acme.example/mcp"`, `"2026-07-28"`, `"2025-11-25"`,
		`"name": "find_orders"`, `"io.github.mcpgen/capabilities"`, `"source": "github"`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("card lacks %s:\n%s", want, body)
		}
	}

	// Revalidation: the same tag is 304 without a body; another is 200.
	resp, body = get(t, "GET", url, map[string]string{"If-None-Match": etag})
	if resp.StatusCode != http.StatusNotModified || len(body) != 0 {
		t.Errorf("If-None-Match %s: %d with %d bytes; want 304 and no body", etag, resp.StatusCode, len(body))
	}
	resp, _ = get(t, "GET", url, map[string]string{"If-None-Match": `"stale"`})
	if resp.StatusCode != 200 {
		t.Errorf("If-None-Match of another tag: %d, want 200", resp.StatusCode)
	}
	// A browser's preflight, and a method the card does not take.
	resp, _ = get(t, "OPTIONS", url, map[string]string{"Origin": "https://directory.example", "Access-Control-Request-Method": "GET"})
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Methods") != "GET" ||
		!strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), "If-None-Match") {
		t.Errorf("preflight: %d %v", resp.StatusCode, resp.Header)
	}
	if resp, _ = get(t, "POST", url, nil); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d, want 405", resp.StatusCode)
	}
}

// TestServerCardWithoutProjectFile: a connector without mcpgen.json and
// without a public URL still serves a valid card, naming no endpoint.
func TestServerCardWithoutProjectFile(t *testing.T) {
	t.Parallel()
	mcpURL, _, _, _ := startRun(t, testApp(newProbe()), []string{"--addr", "127.0.0.1:0"}, nil)
	resp, body := get(t, "GET", mcpURL+"/server-card", nil)
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	var doc map[string]any
	json.Unmarshal(body, &doc)
	if err := cardSchema(t).Validate(doc); err != nil {
		t.Errorf("invalid card: %v\n%s", err, body)
	}
	if doc["name"] != "local/acme" || doc["remotes"] != nil {
		t.Errorf("name %v, remotes %v; want local/acme and none", doc["name"], doc["remotes"])
	}
}

// TestServerCardLongDescription: a description over the draft's 100
// characters is shortened by characters, never inside one.
func TestServerCardLongDescription(t *testing.T) {
	t.Parallel()
	app := testApp(newProbe())
	app.Description = strings.Repeat("é", 150)
	s, err := connector.NewServer(app)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(s.Card(), &doc); err != nil {
		t.Fatal(err)
	}
	if err := cardSchema(t).Validate(doc); err != nil {
		t.Errorf("invalid card: %v", err)
	}
	if d := doc["description"].(string); !strings.HasSuffix(d, "é…") || strings.ContainsRune(d, '\uFFFD') {
		t.Errorf("description %q", d)
	}
}
