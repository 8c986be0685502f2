package cli_test

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"debug/macho"
	"debug/pe"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpgen/mcpgen/internal/testenv"
)

// These tests build MCP Bundles and server.json of testdata/weather, a
// connector whose mcpgen.json declares two settings, and check them with
// the official @anthropic-ai/mcpb CLI, the TypeScript SDK client and the MCP
// Registry's schema.

// weatherProject copies testdata/weather into a temporary directory, its
// go.mod's replace pointing at this checkout.
func weatherProject(t *testing.T) string {
	t.Helper()
	src := filepath.Join("testdata", "weather")
	dst := filepath.Join(t.TempDir(), "weather")
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		data = bytes.ReplaceAll(data, []byte("MCPGEN_ROOT"), []byte(testenv.Root()))
		if err := os.WriteFile(filepath.Join(dst, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// mcpbCLI runs the official mcpb command and returns its output.
func mcpbCLI(t *testing.T, args ...string) (string, int) {
	t.Helper()
	node := testenv.Node(t)
	nm := testenv.NodeModules(t, "@anthropic-ai/mcpb")
	stdout, stderr, code := run(t, t.TempDir(), nil, node, append([]string{filepath.Join(nm, "@anthropic-ai", "mcpb", "dist", "cli", "cli.js")}, args...)...)
	return stdout + stderr, code
}

func readZip(t *testing.T, path string) map[string]*zip.File {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { zr.Close() })
	files := map[string]*zip.File{}
	for _, f := range zr.File {
		files[f.Name] = f
	}
	return files
}

func zipData(t *testing.T, f *zip.File) []byte {
	t.Helper()
	rc, err := f.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(rc); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestBundle builds the full bundle — every platform — once, and checks it
// as Claude Desktop and the registry will read it.
func TestBundle(t *testing.T) {
	t.Parallel()
	bin := mcpgenBinary(t)
	testenv.Node(t)
	testenv.NodeModules(t, "@anthropic-ai/mcpb", "@modelcontextprotocol/sdk")
	dir := weatherProject(t)
	stdout, stderr, code := run(t, dir, nil, bin, "build", "--mcpb", "--server-json", "--version", "v1.4.0")
	if code != 0 {
		t.Fatalf("mcpgen build --mcpb --server-json: exit %d\n%s%s", code, stdout, stderr)
	}
	bundle := filepath.Join(dir, "weather.mcpb")
	if !strings.Contains(stdout, "built "+bundle+": 1 tool, for darwin/amd64, darwin/arm64, linux/amd64, linux/arm64, windows/amd64") {
		t.Errorf("stdout: %s", stdout)
	}

	t.Run("contents", func(t *testing.T) {
		files := readZip(t, bundle)
		var names []string
		for n := range files {
			names = append(names, n)
		}
		slices.Sort(names)
		want := []string{"icon.png", "manifest.json", "server/darwin/weather", "server/linux/weather",
			"server/linux/weather-amd64", "server/linux/weather-arm64", "server/win32/weather.exe"}
		if !slices.Equal(names, want) {
			t.Fatalf("entries %v, want %v", names, want)
		}
		for _, n := range names[2:] {
			if m := files[n].Mode(); m.Perm() != 0o755 {
				t.Errorf("%s: mode %v, want 0755", n, m)
			}
		}
		// macOS runs the slice of its architecture from one universal binary.
		fat, err := macho.NewFatFile(bytes.NewReader(zipData(t, files["server/darwin/weather"])))
		if err != nil {
			t.Fatalf("server/darwin/weather is not a universal binary: %v", err)
		}
		var cpus []string
		for _, a := range fat.Arches {
			cpus = append(cpus, a.Cpu.String())
		}
		slices.Sort(cpus)
		if !slices.Equal(cpus, []string{"CpuAmd64", "CpuArm64"}) {
			t.Errorf("universal binary's architectures: %v", cpus)
		}
		if _, err := pe.NewFile(bytes.NewReader(zipData(t, files["server/win32/weather.exe"]))); err != nil {
			t.Errorf("the Windows binary: %v", err)
		}
		var m map[string]any
		if err := json.Unmarshal(zipData(t, files["manifest.json"]), &m); err != nil {
			t.Fatal(err)
		}
		if m["version"] != "1.4.0" || m["manifest_version"] != "0.3" {
			t.Errorf("manifest version %v, manifest_version %v", m["version"], m["manifest_version"])
		}
	})

	t.Run("mcpb validate and info", func(t *testing.T) {
		unpacked := filepath.Join(t.TempDir(), "x")
		if out, code := mcpbCLI(t, "unpack", bundle, unpacked); code != 0 {
			t.Fatalf("mcpb unpack: exit %d\n%s", code, out)
		}
		out, code := mcpbCLI(t, "validate", filepath.Join(unpacked, "manifest.json"))
		if code != 0 || !strings.Contains(out, "Manifest schema validation passes") || strings.Contains(out, "ERROR") {
			t.Errorf("mcpb validate: exit %d\n%s", code, out)
		}
		out, code = mcpbCLI(t, "info", bundle)
		if code != 0 || !strings.Contains(out, "File: weather.mcpb") {
			t.Errorf("mcpb info: exit %d\n%s", code, out)
		}
	})

	t.Run("started as Claude Desktop does", func(t *testing.T) {
		unpacked := filepath.Join(t.TempDir(), "weather")
		if out, code := mcpbCLI(t, "unpack", bundle, unpacked); code != 0 {
			t.Fatalf("mcpb unpack: exit %d\n%s", code, out)
		}
		scripts := t.TempDir()
		script, err := os.ReadFile(filepath.Join("testdata", "bundle_client.mjs"))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(scripts, "client.mjs"), script, 0o644)
		if err := os.Symlink(testenv.NodeModules(t), filepath.Join(scripts, "node_modules")); err != nil {
			t.Fatal(err)
		}
		env := []string{"BUNDLE_DIR=" + unpacked, `USER_CONFIG={"api_key":"sk-test-7f3a"}`}
		stdout, stderr, code := run(t, scripts, env, testenv.Node(t), "client.mjs")
		if code != 0 {
			t.Fatalf("client: exit %d\n%s\n%s", code, stdout, stderr)
		}
		var got struct {
			Config struct {
				Command string
				Args    []string
				Env     map[string]string
			}
			ServerInfo struct{ Name, Version string }
			Tools      []struct{ Name, Title, Description string }
			Result     map[string]any
			IsError    bool
		}
		if err := json.Unmarshal([]byte(stdout), &got); err != nil {
			t.Fatalf("client output: %v\n%s", err, stdout)
		}
		if got.Config.Command != filepath.Join(unpacked, "server", "linux", "weather") || !slices.Equal(got.Config.Args, []string{"--stdio"}) {
			t.Errorf("command %q %v: want the Linux launcher with --stdio", got.Config.Command, got.Config.Args)
		}
		if got.ServerInfo.Name != "weather" || got.ServerInfo.Version != "v1.4.0" {
			t.Errorf("serverInfo %+v", got.ServerInfo)
		}
		if len(got.Tools) != 1 || got.Tools[0].Title != "Get the forecast" {
			t.Errorf("tools %+v", got.Tools)
		}
		// The settings reached the server: the key the user gave, the
		// default of the one they left.
		if got.IsError || got.Result["keyTail"] != "7f3a" || got.Result["units"] != "metric" {
			t.Errorf("get_forecast: isError %v, %v", got.IsError, got.Result)
		}
	})

	t.Run("server.json", func(t *testing.T) {
		doc, err := os.ReadFile(filepath.Join(dir, "server.json"))
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(bundle)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		for _, want := range []string{`"fileSha256": "` + hex.EncodeToString(sum[:]) + `"`, `"version": "1.4.0"`,
			`"identifier": "https://github.com/mcpgen/mcpgen/releases/download/v1.4.0/weather.mcpb"`} {
			if !strings.Contains(string(doc), want) {
				t.Errorf("server.json lacks %s:\n%s", want, doc)
			}
		}
		schemaData, err := os.ReadFile(filepath.Join(testenv.Root(), "internal", "serverjson", "testdata", "server.schema.json"))
		if err != nil {
			t.Fatal(err)
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(schemaData, &s); err != nil {
			t.Fatal(err)
		}
		r, err := s.Resolve(nil)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		json.Unmarshal(doc, &v)
		if err := r.Validate(v); err != nil {
			t.Errorf("server.json does not validate against the registry's schema: %v\n%s", err, doc)
		}
	})
}

// TestBundleDeterministic builds a one-platform bundle twice: the same
// inputs give the same bytes.
func TestBundleDeterministic(t *testing.T) {
	t.Parallel()
	bin := mcpgenBinary(t)
	dir := weatherProject(t)
	var sums []string
	for _, out := range []string{"a.mcpb", "b.mcpb"} {
		stdout, stderr, code := run(t, dir, nil, bin, "build", "--mcpb", "--platforms", "linux/amd64", "-o", out)
		if code != 0 {
			t.Fatalf("build: exit %d\n%s%s", code, stdout, stderr)
		}
		data, err := os.ReadFile(filepath.Join(dir, out))
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.Sum256(data)
		sums = append(sums, hex.EncodeToString(h[:]))
	}
	if sums[0] != sums[1] {
		t.Errorf("two builds of the same project differ: %s, %s", sums[0], sums[1])
	}
	files := readZip(t, filepath.Join(dir, "a.mcpb"))
	if _, ok := files["server/linux/weather"]; !ok || len(files) != 3 {
		t.Errorf("a linux/amd64 bundle holds the manifest, the icon and server/linux/weather; got %d entries", len(files))
	}
}

// TestBundleNeeds: what a bundle cannot do without is reported before any
// binary is built, naming the file and field to add.
func TestBundleNeeds(t *testing.T) {
	t.Parallel()
	bin := mcpgenBinary(t)
	dir := weatherProject(t)
	os.WriteFile(filepath.Join(dir, "mcpgen.json"), []byte(`{"title": "Weather"}`), 0o644)
	_, stderr, code := run(t, dir, nil, bin, "build", "--mcpb")
	for _, want := range []string{"a version (--version", `"description" in mcpgen.json`, `"author"`} {
		if code != 1 || !strings.Contains(stderr, want) {
			t.Errorf("exit %d; stderr should name %s:\n%s", code, want, stderr)
		}
	}
	_, stderr, code = run(t, dir, nil, bin, "build", "--mcpb", "--platforms", "plan9/amd64")
	if code != 2 || !strings.Contains(stderr, `unknown platform "plan9/amd64"`) {
		t.Errorf("--platforms plan9/amd64: exit %d\n%s", code, stderr)
	}
	_, stderr, code = run(t, dir, nil, bin, "build", "--server-json")
	if code != 1 || !strings.Contains(stderr, `"publish"`) {
		t.Errorf("--server-json without publish: exit %d\n%s", code, stderr)
	}
}
