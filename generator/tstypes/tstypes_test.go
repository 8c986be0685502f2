package tstypes

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generator/ir"
	"github.com/mcpgen/mcpgen/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite testdata/orders.d.ts")

func project() *ir.Project {
	return &ir.Project{Tools: []ir.Tool{
		{
			Name: "find_orders",
			InputSchema: []byte(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",
				"properties":{
					"customer":{"type":"string","description":"Customer id, e.g. C-42."},
					"status":{"type":"string","enum":["open","shipped","cancelled"]},
					"limit":{"type":"integer","minimum":1,"maximum":50,"default":10}
				},
				"required":["customer"],"additionalProperties":false}`),
			OutputSchema: []byte(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",
				"properties":{
					"orders":{"type":"array","items":{"$ref":"#/$defs/Order"}},
					"total":{"type":"integer","description":"All matching orders, beyond the page."},
					"next":{"type":["string","null"]},
					"labels":{"type":"object","additionalProperties":{"type":"string"}}
				},
				"required":["orders","total"],
				"$defs":{"Order":{"type":"object","description":"Order is one purchase.\n\nIt is never empty.",
					"properties":{
						"id":{"type":"string"},
						"placed":{"type":"string","format":"date-time"},
						"lines":{"type":["array","null"],"items":{"type":"object","properties":{"sku":{"type":"string"},"qty":{"type":"integer"}},"required":["sku","qty"]}},
						"parent":{"$ref":"#/$defs/Order"},
						"kind":{"const":"order"},
						"x-raw":{}
					},
					"required":["id","placed","lines"]}}}`),
		},
		{
			Name:        "greet",
			InputSchema: []byte(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
		},
		{
			Name:        "list_all",
			InputSchema: []byte(`{"type":"object","properties":{"limit":{"type":"integer"}}}`),
		},
	}}
}

func TestGolden(t *testing.T) {
	got := Declarations(project())
	golden := filepath.Join("testdata", "orders.d.ts")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("Declarations differ from %s (go test -update rewrites it):\n%s", golden, got)
	}
	if !bytes.Equal(got, Declarations(project())) {
		t.Errorf("Declarations is not deterministic")
	}
}

func TestCommentEscape(t *testing.T) {
	got := string(Declarations(&ir.Project{Tools: []ir.Tool{{Name: "t",
		InputSchema: []byte(`{"type":"object","description":"ends */ early","properties":{"a":{"type":"string","description":"x */ y"}}}`)}}}))
	if strings.Contains(got, "ends */") || strings.Contains(got, "x */") || !strings.Contains(got, `x *\/ y`) {
		t.Errorf("a description closed its comment:\n%s", got)
	}
}

func TestPascal(t *testing.T) {
	for in, want := range map[string]string{"find_orders": "FindOrders", "list.items-v2": "ListItemsV2", "3d": "T3d", "Get": "Get"} {
		if got := pascal(in); got != want {
			t.Errorf("pascal(%q) = %q, want %q", in, got, want)
		}
	}
}

const goodView = `import { useApp, useToolData, useToolInput } from "mcpgen/ui";

export default function Orders() {
  const data = useToolData<FindOrdersOutput>();
  const input = useToolInput<FindOrdersInput>();
  const app = useApp();
  // The untyped form still compiles: a generic helper, a computed name.
  async function call<T>(tool: string, args: Record<string, unknown>): Promise<T | undefined> {
    return (await app.callTool<T>(tool, args)).structuredContent;
  }
  const dynamic: string = "greet";
  void call<FindOrdersOutput>("find_orders", { customer: "C-1" });
  void app.callTool(dynamic, { name: "x" }).then((r) => r.structuredContent?.anything);
  if (!data) return <p>Loading {input?.customer}</p>;
  const first: Order | undefined = data.orders[0];
  const next: Tools["find_orders"]["output"]["next"] = data.next;
  return (
    <ul onClick={() => app.callTool<FindOrdersOutput>("find_orders", { customer: "C-1" }).then((r) => r.structuredContent?.total)}
        onKeyDown={() => app.callTool("find_orders", { customer: "C-1", status: "open" }).then((r) => r.structuredContent?.orders[0]?.parent?.id)}
        onBlur={() => app.callTool("greet", { name: "Ada" }).then(() => app.callTool("list_all"))}
        onFocus={() => app.callTool<{ n: number }>("some_other_tool").then((r) => r.structuredContent?.n)}>
      {data.orders.map((o) => <li key={o.id}>{o.placed} {o.lines?.length ?? 0} {first?.id} {next}</li>)}
      <li>{data.total}</li>
    </ul>
  );
}
`

// badView misuses fields: totl does not exist, status is not a number, and
// callTool gets a misspelt argument, a misspelt tool and a wrong result field.
const badView = `import { useApp, useToolData, useToolInput } from "mcpgen/ui";

export default function Orders() {
  const data = useToolData<FindOrdersOutput>();
  const input = useToolInput<FindOrdersInput>();
  const status: number | undefined = input?.status;
  const app = useApp();
  return <p onClick={() => app.callTool("find_orders", { customr: "C-1" })}
            onBlur={() => app.callTool("find_ordrs", { customer: "C-1" }).then(() => app.callTool("find_orders"))}
            onFocus={() => app.callTool("find_orders", { customer: "C-1" }).then((r) => r.structuredContent?.totl)}>
    {data?.totl} {status}</p>;
}
`

// tsc type-checks a view against the declarations with the real TypeScript
// compiler and React's type declarations.
func tsc(t *testing.T, view string) (string, error) {
	t.Helper()
	node := testenv.Node(t)
	nm := testenv.NodeModules(t, "typescript", "@types/react", "@types/react-dom")
	dir := t.TempDir()
	files := map[string]string{
		"ui/mcpgen.d.ts": string(Declarations(project())),
		"ui/orders.tsx":  view,
		"tsconfig.json": `{"compilerOptions":{"target":"ES2020","lib":["ES2020","DOM"],"module":"ESNext",
			"moduleResolution":"Bundler","jsx":"react-jsx","strict":true,"noEmit":true,"skipLibCheck":true},"include":["ui"]}`,
	}
	for name, src := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(nm, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, filepath.Join(nm, "typescript", "bin", "tsc"), "-p", "tsconfig.json", "--pretty", "false")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestTypeScriptAcceptsCorrectView(t *testing.T) {
	if out, err := tsc(t, goodView); err != nil {
		t.Fatalf("tsc rejected a correct view: %v\n%s", err, out)
	}
}

func TestTypeScriptRejectsMisuse(t *testing.T) {
	out, err := tsc(t, badView)
	if err == nil {
		t.Fatalf("tsc accepted a view that misuses the tool types:\n%s", out)
	}
	for _, want := range []string{
		`ui/orders.tsx(6,9): error TS2322: Type '"open" | "shipped" | "cancelled" | undefined' is not assignable to type 'number | undefined'`,
		"ui/orders.tsx(11,12): error TS2551: Property 'totl' does not exist on type 'FindOrdersOutput'. Did you mean 'total'?",
		"ui/orders.tsx(8,32): error TS2769: No overload matches this call.",
		"Object literal may only specify known properties, but 'customr' does not exist in type 'FindOrdersInput'. Did you mean to write 'customer'?",
		`ui/orders.tsx(9,40): error TS2769: No overload matches this call.`,
		`Argument of type '"find_ordrs"' is not assignable to parameter of type 'ToolName'.`,
		// Arguments are optional only for a tool that requires none.
		"ui/orders.tsx(9,99): error TS2345",
		"ui/orders.tsx(10,110): error TS2551: Property 'totl' does not exist on type 'FindOrdersOutput'. Did you mean 'total'?",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("tsc output lacks %q:\n%s", want, out)
		}
	}
}

// The reference view that scaffolds and examples start from type-checks too.
func TestTypeScriptAcceptsReferenceCard(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(testenv.Root(), "bundler", "testdata", "card", "ui", "card.tsx"))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := tsc(t, string(src)); err != nil {
		t.Fatalf("tsc rejected bundler/testdata/card/ui/card.tsx: %v\n%s", err, out)
	}
}

func TestNameCollisionsAndEmptySchemas(t *testing.T) {
	got := string(Declarations(&ir.Project{Tools: []ir.Tool{
		{Name: "find-orders", InputSchema: []byte(`{"type":"object","properties":{"a":{"type":"string"}}}`)},
		{Name: "find_orders"},
		{Name: "broken", InputSchema: []byte(`{"type":`)},
	}}))
	for _, want := range []string{
		"interface FindOrdersInput {\n  a?: string;\n}",
		"type FindOrders2Input = { [key: string]: unknown };",
		"type BrokenInput = unknown;",
		`"find-orders": { input: FindOrdersInput; output: unknown };`,
		"find_orders: { input: FindOrders2Input; output: unknown };",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("declarations lack %q:\n%s", want, got)
		}
	}
}

func FuzzDeclarations(f *testing.F) {
	f.Add(`{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"$defs":{"A":{"type":"array","items":{"$ref":"#/$defs/A"}}}}`)
	f.Add(`{"anyOf":[{"type":"string"},{"const":1}],"properties":{"x":{"enum":[null,true,"*/"]}}}`)
	f.Add(`{"type":["object","null"],"properties":[],"required":{},"$ref":"#"}`)
	f.Fuzz(func(t *testing.T, schema string) {
		out := Declarations(&ir.Project{Tools: []ir.Tool{{Name: "t", InputSchema: []byte(schema), OutputSchema: []byte(schema)}}})
		if !bytes.Contains(out, []byte("interface Tools {")) {
			t.Fatalf("no Tools map:\n%s", out)
		}
	})
}
