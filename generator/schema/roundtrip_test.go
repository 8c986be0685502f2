package schema

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcpgen/mcpgen/generator/diag"
	"golang.org/x/tools/txtar"
)

// TestEncodingJSONRoundTrip runs a program that encodes real Go values with
// encoding/json, and checks that what it prints is valid against the
// schemas built for those types: the output schema for every value (zero
// values included), and the input schema for values that set every
// required field. That pins flattening, names, nulls, []byte, time and
// duration encodings to what encoding/json really does.
func TestEncodingJSONRoundTrip(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	ar, err := txtar.ParseFile("testdata/run/encoding.txtar")
	if err != nil {
		t.Fatal(err)
	}
	l := load(t, ar.Files)
	cmd := exec.Command("go", "run", ".")
	cmd.Dir = l.dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go run: %v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 4 {
		t.Fatalf("too few values printed:\n%s", out)
	}
	resolved := map[string]*jsonschema.Resolved{}
	schemaFor := func(kind, name string) *jsonschema.Resolved {
		if rs := resolved[kind+name]; rs != nil {
			return rs
		}
		tn := l.lookup(t, name)
		build := l.b.Object
		if kind == "out" {
			build = l.b.Output
		}
		var diags diag.List
		raw, ok := build(tn.Type(), tn.Pos(), &diags)
		if !ok {
			t.Fatalf("%s: %s", name, diags.Render(l.dir))
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		rs, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, raw)
		}
		resolved[kind+name] = rs
		return rs
	}
	for _, line := range lines {
		// KIND TYPE JSON, KIND "out" (output schema) or "in" (both schemas)
		f := strings.SplitN(line, " ", 3)
		if len(f) != 3 {
			t.Fatalf("bad line %q", line)
		}
		var inst any
		if err := json.Unmarshal([]byte(f[2]), &inst); err != nil {
			t.Fatal(err)
		}
		if err := schemaFor("out", f[1]).Validate(inst); err != nil {
			t.Errorf("output schema of %s rejects encoding/json's %s: %v", f[1], f[2], err)
		}
		if f[0] == "in" {
			if err := schemaFor("in", f[1]).Validate(inst); err != nil {
				t.Errorf("input schema of %s rejects encoding/json's %s: %v", f[1], f[2], err)
			}
		}
	}
}
