package templates

import (
	"go/format"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFilesRender(t *testing.T) {
	files, err := Files(Data{
		Name: "acme", Module: "example.com/acme", GoVersion: "1.26.0",
		MCPGenVersion: "v0.0.0-00010101000000-000000000000", MCPGenReplace: "./third_party/mcpgen",
		MCPGenSource: "/src/my mcpgen",
		View:         true,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"go.mod", "main.go", "textstats.go", "textstats_test.go", "README.md", ".gitignore",
		"ui/stats.tsx", "ui/stats.css", "package.json", "tsconfig.json", "Dockerfile", ".dockerignore",
		"fixtures/text_stats/default.json", "stats_view_test.go"} {
		if _, ok := files[want]; !ok {
			t.Errorf("missing %s; have %v", want, keys(files))
		}
	}
	for name, b := range files {
		if !strings.HasSuffix(name, ".go") {
			continue
		}
		formatted, err := format.Source(b)
		if err != nil {
			t.Errorf("%s does not parse: %v", name, err)
		} else if string(formatted) != string(b) {
			t.Errorf("%s is not gofmt-formatted", name)
		}
	}
	mod := string(files["go.mod"])
	for _, want := range []string{
		"module example.com/acme\n",
		"require github.com/mcpgen/mcpgen v0.0.0-00010101000000-000000000000\n",
		"replace github.com/mcpgen/mcpgen => ./third_party/mcpgen\n",
		"(made by `mcpgen new` from /src/my mcpgen)",
		"tool github.com/mcpgen/mcpgen/cmd/mcpgen\n",
	} {
		if !strings.Contains(mod, want) {
			t.Errorf("go.mod lacks %q:\n%s", want, mod)
		}
	}
	if !strings.Contains(string(files["textstats.go"]), `title="Text statistics" ui=stats`) {
		t.Error("text_stats is not linked to its view")
	}
	if !strings.Contains(string(files["package.json"]), `"name": "acme"`) {
		t.Errorf("package.json: %s", files["package.json"])
	}
	if df := string(files["Dockerfile"]); !strings.Contains(df, "FROM golang:1.26 AS build\n") || !strings.Contains(df, "-o /out/acme .") ||
		!strings.Contains(df, "\nCOPY third_party/mcpgen/ third_party/mcpgen/\nRUN go mod download\n") {
		t.Errorf("Dockerfile:\n%s", df)
	}
	if !strings.Contains(string(files["main.go"]), "//go:generate go tool mcpgen generate") {
		t.Error("main.go lacks its go:generate line")
	}
}

func TestFilesWithoutReplace(t *testing.T) {
	files, err := Files(Data{Name: "acme", Module: "acme", GoVersion: "1.26.0", MCPGenVersion: "v0.3.0"})
	if err != nil {
		t.Fatal(err)
	}
	if mod := string(files["go.mod"]); strings.Contains(mod, "replace") || !strings.Contains(mod, "mcpgen v0.3.0") {
		t.Errorf("go.mod:\n%s", mod)
	}
	if df := string(files["Dockerfile"]); strings.Contains(df, "third_party") {
		t.Errorf("a Dockerfile without a copy of mcpgen copies one:\n%s", df)
	}
	for name := range files {
		if viewOnly(name) || strings.HasPrefix(name, "fixtures/") || name == "stats_view_test.go" {
			t.Errorf("a project without a view has %s", name)
		}
	}
	if strings.Contains(string(files["textstats.go"]), "ui=") || strings.Contains(string(files["README.md"]), "ui/stats.tsx") {
		t.Error("a project without a view links or documents one")
	}
}

func TestWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "acme")
	written, err := Write(dir, Data{Name: "acme", Module: "acme", GoVersion: "1.26.0", MCPGenVersion: "v0.3.0"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range written {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	if _, err := Write(dir, Data{Name: "acme"}); err == nil {
		t.Error("Write with incomplete Data: want an error")
	}
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestNPMName(t *testing.T) {
	for in, want := range map[string]string{"acme": "acme", "My.Tool": "my.tool", "a b+c": "a-b-c", "_x": "x"} {
		if got := npmName(in); got != want {
			t.Errorf("npmName(%q) = %q, want %q", in, got, want)
		}
	}
}
