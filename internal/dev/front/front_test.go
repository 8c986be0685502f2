package front

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpgen/mcpgen/generator/ir"
)

func TestHostAllowed(t *testing.T) {
	allow := []string{"abc.trycloudflare.com", "*.example.com"}
	for host, want := range map[string]bool{
		"localhost": true, "127.0.0.1": true, "::1": true, "app.localhost": true,
		"abc.trycloudflare.com": true, "ABC.trycloudflare.com.": true,
		"dev.example.com": true, "example.com": false,
		"evil.com": false, "abc.trycloudflare.com.evil.com": false, "10.0.0.5": false,
	} {
		if got := hostAllowed(host, allow); got != want {
			t.Errorf("hostAllowed(%q) = %v, want %v", host, got, want)
		}
	}
	if got := hostOnly("[::1]:8080"); got != "::1" {
		t.Errorf("hostOnly = %q", got)
	}
}

func TestRelink(t *testing.T) {
	f := New(Options{Name: "t", Version: "dev"})
	f.views["card"] = ir.View{Name: "card", URI: "ui://card/new"}
	in := &mcp.Tool{Name: "hello", InputSchema: map[string]any{"type": "object"}, Meta: mcp.Meta{
		"ui":                    map[string]any{"resourceUri": "ui://card/old", "visibility": []any{"model"}},
		"ui/resourceUri":        "ui://card/old",
		"openai/outputTemplate": "ui://other/x",
	}}
	out := f.relink(in)
	if got := out.Meta["ui"].(map[string]any)["resourceUri"]; got != "ui://card/new" {
		t.Errorf("ui.resourceUri = %v", got)
	}
	if got := out.Meta["ui/resourceUri"]; got != "ui://card/new" {
		t.Errorf("ui/resourceUri = %v", got)
	}
	if got := out.Meta["openai/outputTemplate"]; got != "ui://other/x" {
		t.Errorf("an unknown view was relinked: %v", got)
	}
	if in.Meta["ui/resourceUri"] != "ui://card/old" {
		t.Errorf("relink changed its input")
	}
	if !strings.Contains(jsonOf(out), "visibility") {
		t.Errorf("relink dropped other _meta.ui keys: %s", jsonOf(out))
	}
}
