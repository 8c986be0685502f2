package mcpb

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generator/ir"
)

func project() *ir.Project {
	return &ir.Project{Name: "orders",
		Tools: []ir.Tool{{Name: "find_orders", Title: "Find orders", Description: "Lists orders."}},
		Meta: &ir.Meta{Title: "Acme Orders", Description: "Orders.", Author: ir.Author{Name: "Acme"},
			Settings: []ir.Setting{
				{Key: "api_key", Env: "ACME_API_KEY", Title: "API key", Type: "string", Sensitive: true, Required: true},
				{Key: "region", Env: "ACME_REGION", Title: "Region", Type: "string"},
				{Key: "limit", Env: "ACME_LIMIT", Title: "Limit", Type: "number"},
			}}}
}

func TestNewManifest(t *testing.T) {
	t.Parallel()
	m, err := NewManifest(project(), "v2.0.1", []string{"windows", "linux", "darwin"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(m)
	got := string(b)
	for _, want := range []string{
		`"manifest_version":"0.3"`, `"version":"2.0.1"`, `"display_name":"Acme Orders"`,
		`"type":"binary","entry_point":"server/darwin/orders"`,
		`"command":"${__dirname}/server/darwin/orders","args":["--stdio"]`,
		`"ACME_API_KEY":"${user_config.api_key}"`,
		`"linux":{"command":"${__dirname}/server/linux/orders"}`,
		`"win32":{"command":"${__dirname}/server/win32/orders.exe"}`,
		`"platforms":["darwin","linux","win32"]`,
		`"tools":[{"name":"find_orders","description":"Lists orders."}]`,
		// An optional text setting gets an empty default, so an unset one
		// is not passed as the literal placeholder; a number does not.
		`"region":{"type":"string","title":"Region","description":"Region","default":""}`,
		`"limit":{"type":"number","title":"Limit","description":"Limit"}`,
		`"api_key":{"type":"string","title":"API key","description":"API key","required":true,"sensitive":true}`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("manifest lacks %s:\n%s", want, got)
		}
	}
}

func TestNewManifestNeeds(t *testing.T) {
	t.Parallel()
	_, err := NewManifest(&ir.Project{Name: "x"}, "", []string{"linux"})
	for _, want := range []string{"a version", `"description"`, `"author"`, "docs/distribute.md"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v; want it to name %s", err, want)
		}
	}
}

func TestWriteDeterministic(t *testing.T) {
	t.Parallel()
	files := []File{{Name: "b", Data: []byte("2"), Exec: true}, {Name: "a", Data: []byte("1")}}
	var x, y bytes.Buffer
	if err := Write(&x, files); err != nil {
		t.Fatal(err)
	}
	if err := Write(&y, []File{files[1], files[0]}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(x.Bytes(), y.Bytes()) {
		t.Error("the same files in another order give other bytes")
	}
}

// TestLauncher runs the Linux launcher with stand-ins for the two
// binaries: it must start the one of this machine's architecture with the
// arguments it was given.
func TestLauncher(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("uname", "-m").Output()
	if err != nil {
		t.Skip("no uname")
	}
	dir := t.TempDir()
	for _, arch := range []string{"amd64", "arm64"} {
		os.WriteFile(filepath.Join(dir, "orders-"+arch), []byte("#!/bin/sh\necho "+arch+" \"$@\"\n"), 0o755)
	}
	os.WriteFile(filepath.Join(dir, "orders"), launcher("orders", []string{"amd64", "arm64"}), 0o755)
	got, err := exec.Command(filepath.Join(dir, "orders"), "--stdio").CombinedOutput()
	want := map[string]string{"x86_64": "amd64 --stdio\n", "aarch64": "arm64 --stdio\n", "arm64": "arm64 --stdio\n"}[strings.TrimSpace(string(out))]
	if want == "" {
		t.Skipf("no bundle binary for %s", out)
	}
	if err != nil || string(got) != want {
		t.Errorf("launcher: %q, %v; want %q", got, err, want)
	}
}

func TestUniversalRejectsNonMachO(t *testing.T) {
	t.Parallel()
	if _, err := Universal([]byte("\x7fELF not mach-o")); err == nil || !strings.Contains(err.Error(), "not a Mach-O file") {
		t.Errorf("err = %v", err)
	}
}
