package schema

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/testenv"
	"golang.org/x/tools/txtar"
)

// ajvScript compiles each schema with Ajv's draft 2020-12 validator in
// strict mode with ajv-formats (what MCP's TypeScript SDK uses to check
// tool results), and reports every instance whose verdict is not the
// expected one, or a schema that does not compile, one line each.
const ajvScript = `
const Ajv2020 = require("ajv/dist/2020").default;
const addFormats = require("ajv-formats");
const cases = JSON.parse(require("fs").readFileSync(process.argv[2], "utf8"));
let bad = 0;
for (const c of cases) {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  for (const f of ["idn-email", "idn-hostname", "iri", "iri-reference"]) ajv.addFormat(f, true);
  // MCP's own annotation (SEP-2243): strict mode knows only JSON Schema's
  // keywords; the TypeScript SDK's validator is not strict.
  ajv.addKeyword("x-mcp-header");
  let validate;
  try {
    validate = ajv.compile(c.schema);
  } catch (e) {
    console.log(c.name + ": does not compile: " + e.message);
    bad++;
    continue;
  }
  for (const v of c.valid || []) {
    if (!validate(v)) { console.log(c.name + ": rejects " + JSON.stringify(v) + ": " + ajv.errorsText(validate.errors)); bad++; }
  }
  for (const v of c.invalid || []) {
    if (validate(v)) { console.log(c.name + ": accepts " + JSON.stringify(v)); bad++; }
  }
  console.log(c.name + ": ok");
}
process.exit(bad ? 1 : 0);
`

// TestAjv checks every golden schema with a second, independent validator:
// Ajv (draft 2020-12, strict, with formats), which hosts and MCP's
// TypeScript SDK use. Each must compile and agree on the valid/ and
// invalid/ instances, so patterns, formats and keywords are portable.
func TestAjv(t *testing.T) {
	node := testenv.Node(t)
	modules := testenv.NodeModules(t, "ajv", "ajv-formats")
	type ajvCase struct {
		Name    string            `json:"name"`
		Schema  json.RawMessage   `json:"schema"`
		Valid   []json.RawMessage `json:"valid"`
		Invalid []json.RawMessage `json:"invalid"`
	}
	var cases []*ajvCase
	paths, _ := filepath.Glob("testdata/*.txtar")
	for _, path := range paths {
		ar, err := txtar.ParseFile(path)
		if err != nil {
			t.Fatal(err)
		}
		byName := map[string]*ajvCase{}
		for _, f := range ar.Files {
			if name, ok := strings.CutPrefix(f.Name, "want/"); ok && strings.HasSuffix(name, ".json") {
				c := &ajvCase{Name: filepath.Base(path) + ":" + name, Schema: json.RawMessage(f.Data)}
				byName[name] = c
				cases = append(cases, c)
			}
		}
		for _, f := range ar.Files {
			kind, name, _ := strings.Cut(f.Name, "/")
			c := byName[name]
			if c == nil || (kind != "valid" && kind != "invalid") {
				continue
			}
			for _, line := range strings.Split(strings.TrimSpace(string(f.Data)), "\n") {
				if kind == "valid" {
					c.Valid = append(c.Valid, json.RawMessage(line))
				} else {
					c.Invalid = append(c.Invalid, json.RawMessage(line))
				}
			}
		}
	}
	if len(cases) < 5 {
		t.Fatalf("only %d schemas found", len(cases))
	}
	dir := t.TempDir()
	data, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	input := filepath.Join(dir, "cases.json")
	script := filepath.Join(dir, "ajv.js")
	if err := os.WriteFile(input, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, []byte(ajvScript), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, script, input)
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	if err != nil {
		t.Fatalf("ajv: %v\n%s", err, out.String())
	}
	if n := strings.Count(out.String(), ": ok\n"); n != len(cases) {
		t.Fatalf("ajv checked %d of %d schemas:\n%s", n, len(cases), out.String())
	}
}
