package browserbundle

import (
	"strings"
	"testing"

	"github.com/evanw/esbuild/pkg/api"
)

func TestErrorText(t *testing.T) {
	if err := Error("bundling x", nil); err != nil {
		t.Fatalf("Error(nil) = %v", err)
	}
	msgs := []api.Message{
		{Text: "Could not resolve \"nope\"", Location: &api.Location{File: "ui/x.tsx", Line: 3, Column: 0, Length: 6}},
		{Text: "no location"},
	}
	want := "bundling x:\nui/x.tsx:3:1: Could not resolve \"nope\"\nno location\n"
	if got := Error("bundling x", msgs).Error(); got != want {
		t.Errorf("Error = %q, want %q", got, want)
	}
	if p, ok := Position(msgs[0].Location); !ok || p != (Pos{File: "ui/x.tsx", Line: 3, Col: 1, EndCol: 7}) {
		t.Errorf("Position = %+v, %v", p, ok)
	}
}

// TestBuild bundles a TSX entry with the shared options: JSX goes to
// React's automatic runtime and NODE_ENV is production.
func TestBuild(t *testing.T) {
	o := Options()
	o.Stdin = &api.StdinOptions{Contents: "import \"nope\";\nexport const v = <b/>;\n", Sourcefile: "x.tsx", Loader: api.LoaderTSX}
	err := Error("bundling x.tsx", api.Build(o).Errors)
	if err == nil {
		t.Fatal("no error for an unresolved import")
	}
	for _, want := range []string{"x.tsx:1:8: Could not resolve \"nope\"", "x.tsx:2:18: Could not resolve \"react/jsx-runtime\""} {
		if !contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	o.Stdin.Contents = `export const env = process.env.NODE_ENV;`
	res := api.Build(o)
	if len(res.Errors) > 0 || !contains(string(res.OutputFiles[0].Contents), `"production"`) {
		t.Errorf("NODE_ENV not defined: %v %s", res.Errors, res.OutputFiles)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
