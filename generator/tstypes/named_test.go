package tstypes

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generator"
	"github.com/mcpgen/mcpgen/internal/testenv"
)

// sharedSource has Go structs and an enum type shared by two tools, a struct
// used once, and a struct named like a struct of another package.
const sharedSource = `package main

import (
	"context"

	"example.com/shop/other"
)

func main() {}

// Region is a sales region.
type Region string

const (
	North Region = "north"
	South Region = "south"
)

// Totals sum some orders.
type Totals struct {
	// Revenue is in US dollars.
	Revenue float64 ` + "`json:\"revenue\"`" + `
	Orders  int     ` + "`json:\"orders\"`" + `
}

// Detail is used once.
type Detail struct {
	Note string ` + "`json:\"note\"`" + `
}

type Product struct {
	SKU string ` + "`json:\"sku\"`" + `
}

type SummaryInput struct {
	Region Region ` + "`json:\"region\"`" + `
}

type Summary struct {
	Totals   Totals        ` + "`json:\"totals\"`" + `
	Previous *Totals       ` + "`json:\"previous,omitempty\"`" + `
	Detail   Detail        ` + "`json:\"detail\"`" + `
	Regions  []Region      ` + "`json:\"regions\"`" + `
	Product  Product       ` + "`json:\"product\"`" + `
	Other    other.Product ` + "`json:\"other\"`" + `
}

type DrillInput struct {
	Region *Region ` + "`json:\"region,omitempty\"`" + `
}

type Drill struct {
	// Sums are the product's totals.
	Sums Totals ` + "`json:\"sums\"`" + `
}

// Summarize sums the sales.
//
//mcpgen:tool readonly
func Summarize(ctx context.Context, in SummaryInput) (Summary, error) { return Summary{}, nil }

// DrillDown sums one product.
//
//mcpgen:tool readonly
func DrillDown(ctx context.Context, in DrillInput) (Drill, error) { return Drill{}, nil }
`

const otherSource = `package other

// Product is another package's product.
type Product struct {
	ID int ` + "`json:\"id\"`" + `
}
`

// TestNamedTypesFromGo generates the declarations of a real Go module: a
// named struct or enum type shared by several fields or tools is one named
// interface or type, referenced by name, whether the JSON Schema inlines it
// or not.
func TestNamedTypesFromGo(t *testing.T) {
	dir := t.TempDir()
	mod, err := os.ReadFile(filepath.Join(testenv.Root(), "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(mod), "\n")
	lines[0] = "module example.com/shop"
	files := map[string]string{
		"go.mod":         strings.Join(lines, "\n") + "\nrequire github.com/mcpgen/mcpgen v0.0.0\n\nreplace github.com/mcpgen/mcpgen => " + testenv.Root() + "\n",
		"main.go":        sharedSource,
		"other/other.go": otherSource,
	}
	sum, err := os.ReadFile(filepath.Join(testenv.Root(), "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	files["go.sum"] = string(sum)
	for name, src := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, diags := generator.Generate(context.Background(), generator.Config{Dir: dir})
	if res == nil {
		t.Fatalf("generate:\n%s", diags.Render(dir))
	}
	got := string(Declarations(res.Project))
	for _, want := range []string{
		"/** Region is a sales region. */\ntype Region = \"north\" | \"south\";",
		"interface SummarizeInput {\n  region: Region;\n}",
		"interface DrillDownInput {\n  region?: Region;\n}",
		"/** Totals sum some orders. */\ninterface Totals {\n  /** Revenue is in US dollars. */\n  revenue: number;\n  orders: number;\n}",
		"  totals: Totals;\n",
		"  previous?: Totals;\n",
		"  detail: Detail;\n",
		"  regions: Region[] | null;\n",
		"  /** Sums are the product's totals. */\n  sums: Totals;\n",
		"  product: MainProduct;\n", // two structs named Product: qualified by package
		"  other: OtherProduct;\n",
		"/** Product is another package's product. */\ninterface OtherProduct {\n  id: number;\n}",
		"summarize: { input: SummarizeInput; output: SummarizeOutput };",
		// The Go names of the input and output structs, as aliases.
		"/** The Go type SummaryInput: the same as SummarizeInput. */\ntype SummaryInput = SummarizeInput;",
		"/** The Go type Summary: the same as SummarizeOutput. */\ntype Summary = SummarizeOutput;",
		"type DrillInput = DrillDownInput;",
		"type Drill = DrillDownOutput;",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("declarations lack %q:\n%s", want, got)
		}
	}
	for _, once := range []string{"interface Totals ", "type Region ", "interface Detail "} {
		if n := strings.Count(got, once); n != 1 {
			t.Errorf("%q declared %d times, want once:\n%s", once, n, got)
		}
	}
	// The served schemas are unchanged: a struct used once stays inline.
	for _, tl := range res.Project.Tools {
		if tl.Name == "drill_down" && strings.Contains(string(tl.OutputSchema), "$defs") {
			t.Errorf("drill_down's outputSchema has $defs: %s", tl.OutputSchema)
		}
	}
}
