package schema

import (
	"fmt"
	"go/types"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generator/diag"
	"golang.org/x/tools/txtar"
)

func TestFields(t *testing.T) {
	l := load(t, []txtar.File{{Name: "t.go", Data: []byte(`package t

// Mode says how to greet.
type Mode string

type Common struct {
	// Lang is a BCP 47 language tag.
	Lang string ` + "`json:\"lang\" mcpgen:\"default=en\"`" + `
}

type Args struct {
	Common
	Name  string  ` + "`json:\"name\"`" + ` // who to greet
	Mode  Mode    ` + "`json:\"mode,omitempty\"`" + `
	Style *string
	Skip  string  ` + "`json:\"-\"`" + `
	hide  string
}
`)}})
	tn := l.lookup(t, "Args")
	var got []string
	for _, f := range l.b.Fields(tn.Type()) {
		p := l.b.fset.Position(f.Pos)
		got = append(got, fmt.Sprintf("%s %s %q required=%v %s %d:%d", f.Name, f.GoName, f.Description, f.Required, f.Type, p.Line, p.Column))
	}
	want := []string{
		`lang Lang "Lang is a BCP 47 language tag." required=false string 8:2`,
		`name Name "who to greet" required=true string 13:2`,
		`mode Mode "Mode says how to greet." required=false example.com/t.Mode 14:2`,
		`Style Style "" required=false *string 15:2`,
	}
	if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
		t.Errorf("Fields:\n%s\nwant:\n%s", g, w)
	}
	if f := l.b.Fields(l.lookup(t, "Mode").Type()); f != nil {
		t.Errorf("Fields of a non-struct = %v, want none", f)
	}
	// The pointer form gives the same fields.
	if a, b := len(l.b.Fields(tn.Type())), len(l.b.Fields(typesPointer(tn.Type()))); a != b {
		t.Errorf("Fields(*Args) has %d fields, Fields(Args) %d", b, a)
	}
	// The same diagnostic is reported once per Builder.
	var d1, d2 diag.List
	bad := load(t, []txtar.File{{Name: "t.go", Data: []byte("package t\n\ntype In struct {\n\tC chan int `json:\"c\"`\n}\n")}})
	in := bad.lookup(t, "In")
	_, ok1 := bad.b.Object(in.Type(), in.Pos(), &d1)
	_, ok2 := bad.b.Object(in.Type(), in.Pos(), &d2)
	if ok1 || ok2 || len(d1) != 1 || len(d2) != 0 {
		t.Errorf("repeated build: ok %v %v, diagnostics %d then %d; want false false, 1 then 0", ok1, ok2, len(d1), len(d2))
	}
}

func typesPointer(t types.Type) types.Type { return types.NewPointer(t) }
