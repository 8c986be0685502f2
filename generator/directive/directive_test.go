package directive

import (
	"strconv"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generator/diag"
	"github.com/mcpgen/mcpgen/internal/ratespec"
)

var at = diag.Pos{File: "x.go", Line: 7, Col: 1}

func TestParseOptions(t *testing.T) {
	text := `//mcpgen:tool readonly name=find_orders title="Find \"all\" orders" timeout=30s visibility=model,app maxresult=1000 ui=card`
	var diags diag.List
	d, ok := Parse(text, at, &diags)
	if !ok || len(diags) != 0 {
		t.Fatalf("Parse: ok=%v diags:\n%s", ok, diags.Render(""))
	}
	if d.Kind != KindTool {
		t.Errorf("kind = %q", d.Kind)
	}
	want := []struct {
		name, value string
		col         int
	}{
		{"readonly", "", 15}, {"name", "find_orders", 24}, {"title", `Find "all" orders`, 41},
		{"timeout", "30s", 69}, {"visibility", "model,app", 81}, {"maxresult", "1000", 102}, {"ui", "card", 117},
	}
	if len(d.Options) != len(want) {
		t.Fatalf("got %d options, want %d: %+v", len(d.Options), len(want), d.Options)
	}
	for i, w := range want {
		o := d.Options[i]
		if o.Name != w.name || o.Value != w.value || o.Pos.Col != w.col || o.Pos.Line != 7 {
			t.Errorf("option %d = %+v, want %s=%q at col %d", i, o, w.name, w.value, w.col)
		}
		if got := text[o.Pos.Col-1:]; !strings.HasPrefix(got, w.name) {
			t.Errorf("option %s: col %d points at %q", w.name, o.Pos.Col, got)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string // "col: message fragment"
	}{
		{`//mcpgen:tool readonyl`, []string{`15: unknown option "readonyl" for //mcpgen:tool; did you mean "readonly"?`}},
		{`//mcpgen:tool raedonly`, []string{`15: did you mean "readonly"?`}},
		{`//mcpgen:tool frobnicate`, []string{`15: unknown option "frobnicate" for //mcpgen:tool`}},
		{`//mcpgen:tol`, []string{`10: unknown directive kind "tol"; did you mean "tool"?`}},
		{`//mcpgen:`, []string{`10: directive //mcpgen: has no kind`}},
		{`//mcpgen:view border`, []string{`10: //mcpgen:view belongs in a view's source, not in Go code`}},
		{`//mcpgen:tool timeout=abc`, []string{`23: invalid timeout "abc": not a duration`}},
		{`//mcpgen:tool timeout=-1s`, []string{`23: invalid timeout "-1s": must be positive`}},
		{`//mcpgen:tool name=find/orders`, []string{`20: invalid name "find/orders": character '/' is not allowed`}},
		{`//mcpgen:tool name=` + strings.Repeat("a", 129), []string{`20: 129 characters long`}},
		{`//mcpgen:tool readonly destructive`, []string{`24: options "readonly" and "destructive" contradict each other`}},
		{`//mcpgen:tool closedworld openworld`, []string{`27: options "openworld" and "closedworld" contradict`}},
		{`//mcpgen:tool title="Find orders`, []string{`21: unterminated quoted value`}},
		{`//mcpgen:tool readonly readonly`, []string{`24: option "readonly" is given twice`}},
		{`//mcpgen:tool readonly=yes`, []string{`15: option "readonly" is a flag and takes no value`}},
		{`//mcpgen:tool name`, []string{`15: option "name" needs a value`}},
		{`//mcpgen:tool name=`, []string{`20: option "name" has an empty value`}},
		{`//mcpgen:tool visibility=user`, []string{`26: invalid visibility "user"`}},
		{`//mcpgen:tool maxresult=600000`, []string{`25: invalid maxresult "600000": out of range`}},
		{`//mcpgen:tool ui=my/card`, []string{`18: invalid view name "my/card"`}},
		{`//mcpgen:tool =x`, []string{`15: expected an option name before "="`}},
		{`//mcpgen:tool title="a"b`, []string{`24: unexpected "b" after the quoted value of "title"`}},
		{`//mcpgen:resource mime=text`, []string{`24: invalid MIME type "text"`, `1: //mcpgen:resource needs uri=`}},
		{`//mcpgen:resource uri=notes`, []string{`23: invalid resource URI "notes": no scheme`}},
		{`//mcpgen:complete arg=x`, []string{`1: //mcpgen:complete needs exactly one of prompt= or resource=`}},
		{`//mcpgen:complete prompt=p`, []string{`1: //mcpgen:complete needs arg=`}},
		{`//mcpgen:prompt readonly`, []string{`17: unknown option "readonly" for //mcpgen:prompt`}},
		{`//mcpgen:tool task=always`, []string{`20: invalid task="always"`}},
		{`//mcpgen:prompt task`, []string{`17: unknown option "task" for //mcpgen:prompt`}},
		{`//mcpgen:tool askfirst`, []string{`15: askfirst needs task`}},
		// Several mistakes on one line are all reported.
		{`//mcpgen:tool readonyl timeout=x name=a!`, []string{`15: unknown option`, `32: invalid timeout`, `39: invalid name`}},
	} {
		var diags diag.List
		_, ok := Parse(tc.text, at, &diags)
		if ok {
			t.Errorf("%s: ok, want errors", tc.text)
		}
		if len(diags) != len(tc.want) {
			t.Errorf("%s: got %d diagnostics, want %d:\n%s", tc.text, len(diags), len(tc.want), diags.Render(""))
			continue
		}
		for i, w := range tc.want {
			col, frag, _ := strings.Cut(w, ": ")
			got := diags[i]
			if got.Pos.Line != 7 || itoa(got.Pos.Col) != col || !strings.Contains(got.Message, frag) {
				t.Errorf("%s: diagnostic %d = %s, want col %s and %q", tc.text, i, got, col, frag)
			}
			if got.Hint == "" {
				t.Errorf("%s: diagnostic %q has no hint", tc.text, got.Message)
			}
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestTaskOption checks the forms of task= a tool accepts, and that the
// list of valid options names it.
func TestTaskOption(t *testing.T) {
	for _, text := range []string{`//mcpgen:tool readonly task`, `//mcpgen:tool task=required`, `//mcpgen:tool task=optional`, `//mcpgen:tool task askfirst`} {
		var diags diag.List
		if _, ok := Parse(text, at, &diags); !ok || len(diags) != 0 {
			t.Errorf("%s: %s", text, diags.Render(""))
		}
	}
	var diags diag.List
	Parse(`//mcpgen:tool tsak`, at, &diags)
	if len(diags) != 1 || !strings.Contains(diags[0].Hint, "scope, task, timeout") || !strings.Contains(diags[0].Message, `did you mean "task"?`) {
		t.Errorf("got %s", diags.Render(""))
	}
}

func TestUnknownOptionListsValid(t *testing.T) {
	var diags diag.List
	Parse(`//mcpgen:prompt nme=x`, at, &diags)
	if len(diags) != 1 || !strings.Contains(diags[0].Hint, "valid options: name, scope, title") || !strings.Contains(diags[0].Message, `did you mean "name"?`) {
		t.Fatalf("got %s", diags.Render(""))
	}
}

func TestClassify(t *testing.T) {
	for text, want := range map[string]Class{
		"//mcpgen:tool":      IsDirective,
		"// mcpgen:tool":     Spaced,
		"//\tmcpgen:tool x":  Spaced,
		"// FindOrders does": NotDirective,
		"//go:generate x":    NotDirective,
		"//mcpgenerate":      NotDirective,
	} {
		if got := Classify(text); got != want {
			t.Errorf("Classify(%q) = %v, want %v", text, got, want)
		}
	}
	var diags diag.List
	CheckSpaced("// mcpgen:tool readonly", at, &diags)
	if len(diags) != 1 || !strings.Contains(diags[0].Hint, "//mcpgen:tool readonly") {
		t.Fatalf("got %s", diags.Render(""))
	}
}

func TestTemplateVars(t *testing.T) {
	vars, bad := TemplateVars("test://template/{id}/data/{+path}{?q}")
	if len(vars) != 2 || vars[0].Name != "id" || vars[0].Offset != 17 || vars[1].Name != "path" || len(bad) != 1 || bad[0] != "{?q}" {
		t.Fatalf("vars %+v bad %v", vars, bad)
	}
}

// FuzzLex checks that any comment line parses without panicking and that
// every reported position lies on the line.
func FuzzLex(f *testing.F) {
	for _, s := range []string{
		`//mcpgen:tool readonly title="Find orders" timeout=30s`,
		`//mcpgen:resource uri=test://template/{id}/data mime=application/json`,
		`//mcpgen:complete prompt=p arg=x`,
		`//mcpgen:tool title="a\"b" ="x" "y`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		text := Prefix + s
		var diags diag.List
		d, ok := Parse(text, at, &diags)
		if ok && diags.HasErrors() {
			t.Fatalf("ok with errors: %s", diags.Render(""))
		}
		if !ok && !diags.HasErrors() {
			t.Fatalf("not ok without errors")
		}
		line := text
		if i := strings.IndexAny(line, "\r\n"); i >= 0 {
			line = line[:i]
		}
		for _, dg := range diags {
			if dg.Pos.Line != 7 || dg.Pos.Col < 1 || dg.Pos.Col > len(line)+1 {
				t.Fatalf("diagnostic off the line: %s", dg)
			}
		}
		for _, o := range d.Options {
			if !strings.HasPrefix(line[o.Pos.Col-1:], o.Name) {
				t.Fatalf("option %q at col %d does not point at it in %q", o.Name, o.Pos.Col, line)
			}
		}
	})
}

// TestRateMatchesRuntime: ratelimit= takes exactly what the connector's
// --rate-limit flag takes.
func TestRateMatchesRuntime(t *testing.T) {
	for _, v := range []string{"10/1m", "5/30s", "10/s", "60/m", "500/h", "3/90s", "1/1ms", "0/1m", "-1/1m", "x/1m", "10", "10/", "10/0s", "10/-1m", "10/soon", "/1m"} {
		n, per, why := Rate(v)
		r, err := ratespec.ParseRate(v)
		if (why == "") != (err == nil) || (err == nil && (r.N != n || r.Per != per)) {
			t.Errorf("%q: directive.Rate = %d, %v, %q; connector.ParseRate = %v, %v", v, n, per, why, r, err)
		}
	}
}
