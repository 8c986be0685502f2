package schema

import (
	"encoding/json"
	"go/token"
	"go/types"
	"strconv"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcpgen/mcpgen/generator/diag"
)

func TestParseTag(t *testing.T) {
	tests := []struct {
		in   string
		want string // options as key=value|..., then errors as !kind@off
	}{
		{"", ""},
		{"min=1,max=50", "min=1@0 max=50@6"},
		{" min = 1 , uniqueItems ", "min=1@1 uniqueItems@11"},
		{"pattern=^[A-Z]-[0-9]+$,format=email", "pattern=^[A-Z]-[0-9]+$@0 format=email@23"},
		{"pattern='^[a-z]{1,3}$',max=2", "pattern='^[a-z]{1,3}$'@0 max=2@23"},
		{"title='it''s',x", "title='it's'@0 x@14"},
		{"default=", "default=@0"},
		{"a,,b", "a@0 b@3 !empty@2"},
		{"a,", "a@0 !empty@1"},
		{"=1", "!empty@0"},
		{"p='abc", "p='abc'@0 !unterminated@2"},
		{"p='a'b,c", "p='a'@0 c@7 !afterQuote@5"},
	}
	for _, tt := range tests {
		opts, errs := parseTag(tt.in)
		var got []string
		for _, o := range opts {
			s := o.Key
			if o.HasValue {
				v := o.Value
				if o.Quoted {
					v = "'" + v + "'"
				}
				s += "=" + v
			}
			got = append(got, s+"@"+itoa(o.Off))
		}
		for _, e := range errs {
			got = append(got, "!"+e.Kind+"@"+itoa(e.Off))
		}
		if g := strings.Join(got, " "); g != tt.want {
			t.Errorf("parseTag(%q) = %s, want %s", tt.in, g, tt.want)
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// FuzzParseTag checks that any tag parses without panicking, that every
// option's offsets point at its key and value within the tag, and that an
// unquoted value never holds a comma.
func FuzzParseTag(f *testing.F) {
	for _, s := range []string{"min=1,max=50", "pattern='a,b'", "title='it''s'", "a,,b", "p='x", "=", "'", ",", "enum=a|b|c,default=b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		opts, errs := parseTag(s)
		for _, o := range opts {
			if o.Key == "" {
				t.Fatalf("empty key in %q", s)
			}
			if o.Off < 0 || o.Off+len(o.Key) > len(s) || s[o.Off:o.Off+len(o.Key)] != o.Key {
				t.Fatalf("key %q not at offset %d of %q", o.Key, o.Off, s)
			}
			if o.HasValue && (o.ValOff < 0 || o.ValOff > len(s)) {
				t.Fatalf("value offset %d out of %q", o.ValOff, s)
			}
			if o.HasValue && !o.Quoted && (strings.Contains(o.Value, ",") || !strings.HasPrefix(s[o.ValOff:], o.Value)) {
				t.Fatalf("unquoted value %q of %q at %d is wrong", o.Value, s, o.ValOff)
			}
		}
		for _, e := range errs {
			if e.Off < 0 || e.Off > len(s) {
				t.Fatalf("error offset %d out of %q", e.Off, s)
			}
		}
	})
}

func TestGoOnlyRegexp(t *testing.T) {
	for p, want := range map[string]bool{
		`^[a-z]+$`:        false,
		`\Aabc`:           true,
		`abc\z`:           true,
		`\\A`:             false,
		`(?i)abc`:         true,
		`(?:abc)`:         false,
		`(?<n>a)`:         false,
		`(?P<n>a)`:        true,
		`[[:alpha:]]`:     true,
		`[a[]`:            false,
		`\pL`:             true,
		`\p{Greek}+`:      false,
		`a\-b`:            true,
		`[a\-b]`:          false,
		`a\_b`:            true,
		`a\/b`:            false,
		`a{`:              true,
		`a{1,3}b{2}c{3,}`: false,
		`a}`:              true,
		`x]`:              true,
		`[^]a]`:           true,
		`\Qa.b\E`:         true,
		`[]a]`:            true,
		`^\d{3}-\d{4}$`:   false,
		`^[^\]:]+:[0-9]$`: false,
	} {
		if got := goOnlyRegexp(p) != ""; got != want {
			t.Errorf("goOnlyRegexp(%q) = %q, want Go-only %v", p, goOnlyRegexp(p), want)
		}
	}
}

func TestDidYouMean(t *testing.T) {
	names := constraintKeys()
	for in, want := range map[string]string{
		"minimun":   `; did you mean "minimum"?`,
		"maxlength": `; did you mean "maxLength"?`,
		"pattren":   `; did you mean "pattern"?`,
		"zzz":       "",
		"defualt":   `; did you mean "default"?`,
	} {
		if got := didYouMean(in, names); got != want {
			t.Errorf("didYouMean(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzConstraints applies arbitrary mcpgen tags to fields of several types:
// building never panics, and every schema built without errors is a valid
// JSON Schema 2020-12 whose defaults satisfy it.
func FuzzConstraints(f *testing.F) {
	for _, s := range []string{"min=1,max=50,default=10", "pattern='^[a-z]{1,3}$',default=ab", "enum=a|b,default=c",
		"minItems=1,uniqueItems,maxLength=3", "type=string,minLength=2", "format=email,examples=a@b.c|x@y.z",
		"multipleOf=0.5,exclusiveMin=0", "default='[1,2]'", "const=1", "deprecated,readOnly=false,title='a,b'"} {
		for k := range uint8(len(fuzzTypes)) {
			f.Add(s, k)
		}
	}
	f.Fuzz(func(t *testing.T, tag string, kind uint8) {
		ft := fuzzTypes[int(kind)%len(fuzzTypes)]
		st := types.NewStruct([]*types.Var{types.NewField(token.NoPos, nil, "F", ft, false)},
			[]string{`json:"f" mcpgen:` + strconv.Quote(tag)})
		b := NewBuilder(token.NewFileSet(), nil)
		var diags diag.List
		raw, ok := b.Object(st, token.NoPos, &diags)
		if !ok {
			if !diags.HasErrors() {
				t.Fatalf("not ok without errors for %q", tag)
			}
			return
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatalf("tag %q: schema %s does not parse: %v", tag, raw, err)
		}
		if _, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true}); err != nil {
			t.Fatalf("tag %q on %s: schema %s does not resolve: %v", tag, ft, raw, err)
		}
	})
}

var fuzzTypes = []types.Type{
	types.Typ[types.Int],
	types.Typ[types.Uint8],
	types.Typ[types.String],
	types.Typ[types.Float64],
	types.Typ[types.Bool],
	types.NewSlice(types.Typ[types.String]),
	types.NewSlice(types.Typ[types.Int]),
	types.NewMap(types.Typ[types.String], types.Typ[types.Int]),
	types.NewPointer(types.Typ[types.Int]),
	types.NewInterfaceType(nil, nil),
}
