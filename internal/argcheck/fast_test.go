package argcheck

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"golang.org/x/tools/txtar"
)

// The fast check must never change an answer: for every schema and
// arguments, Check (fast check first) and checkSlow (the validator alone)
// give the same bytes or the same error text.

// handSchemas exercise what the generated ones rarely do.
var handSchemas = []string{
	findOrdersSchema,
	formatsInput,
	defaultsSchema,
	explainSchema,
	`{"type":"object","properties":{"q":{"type":"string"}}}`,
	`{"type":"object"}`,
	`{}`,
	`{"type":"object","properties":{"n":{"type":["integer","null"],"minimum":-3,"exclusiveMaximum":1e3},"x":{"type":"number","multipleOf":0.25},"b":{"type":"boolean","const":true},"e":{"enum":[1,"one",true,null]},"c":{"const":"k"}},"additionalProperties":{"type":"string","maxLength":3}}`,
	`{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"integer"},"propertyNames":{"pattern":"^[0-9]+$"},"minProperties":1,"maxProperties":2}},"minProperties":1,"maxProperties":3}`,
	`{"type":"object","properties":{"a":{"type":"array","items":{"type":"array","items":{"type":"integer","maximum":9}},"minItems":1,"maxItems":3}},"required":["a"],"additionalProperties":false}`,
	`{"type":"object","properties":{"p":{"anyOf":[{"$ref":"#/$defs/P"},{"type":"null"}]},"t":{"$ref":"#/$defs/T"}},"$defs":{"P":{"type":"object","properties":{"d":{"type":"string","format":"date"},"next":{"$ref":"#/$defs/P"}},"required":["d"],"additionalProperties":false},"T":{"type":"string","enum":["x","y"],"default":"y"}}}`,
	`{"type":"object","properties":{"u":{"anyOf":[{"type":"integer","format":"date"},{"type":"string","format":"date"},{"type":"string","minLength":20}]}}}`,
	`{"type":"object","properties":{"self":{"$ref":"#"},"v":{"type":"integer","default":3}},"maxProperties":2}`,
	`{"type":"object","properties":{"d":{"type":"string","default":"a<b&c"},"n":{"type":"number","default":1e2},"z":{"default":null},"bad":{"type":"string","format":"date","default":"soon"}}}`,
	`{"type":"object","properties":{"o":{"type":"object","default":{"a":1}}}}`,
	`{"type":"object","properties":{"u":{"type":"array","uniqueItems":true},"us":{"type":"array","items":{"type":"string"},"uniqueItems":true,"maxItems":3}}}`,
	`{"type":"object","properties":{"é":{"type":"string","minLength":2,"maxLength":2,"default":"ü"},"k\"q":{"type":"integer"}},"required":["k\"q"]}`,
}

const findOrdersSchema = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"customer":{"type":"string","description":"Customer id, such as C42.","pattern":"^C[0-9]+$"},"status":{"type":"string","enum":["open","shipped","cancelled"]},"limit":{"type":"integer","minimum":1,"maximum":50,"default":10}},"required":["customer"],"additionalProperties":false}`

const defaultsSchema = `{"type":"object","properties":{
	"id":{"type":"integer"},
	"limit":{"type":"integer","default":10},
	"f":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string","default":"x"}}},
	"bill":{"$ref":"#/$defs/Address"},
	"ship":{"type":"array","items":{"$ref":"#/$defs/Address"}},
	"tags":{"type":"object","additionalProperties":{"$ref":"#/$defs/Address"}}},
	"$defs":{"Address":{"type":"object","required":["street"],"properties":{
		"street":{"type":"string"},"country":{"type":"string","default":"US"}}}}}`

const explainSchema = `{"type":"object","additionalProperties":false,"required":["q"],
	"properties":{
		"q":{"type":"string","minLength":2,"maxLength":5},
		"n":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1},
		"kind":{"type":"string","enum":["a","b"]},
		"tags":{"type":"array","maxItems":2,"items":{"type":"string","minLength":2}},
		"filter":{"$ref":"#/$defs/Filter"}},
	"$defs":{"Filter":{"type":"object","required":["lang"],"properties":{"lang":{"type":"string"}}}}}`

// handArgs are the tricky arguments every schema is checked with.
var handArgs = []string{
	``, `null`, ` null `, `{}`, ` { } `, "\t{}\n", `[]`, `[1]`, `1`, `"x"`, `true`, `nul`, `{`, `}`, `{}}`, `{} x`, `{},`,
	`{"customer":"C42"}`, `{"customer":"C42","limit":5}`, `{"customer":"C42","limit":51}`, `{"customer":"C42","limit":0}`,
	`{"customer":"C42","limit":5.0}`, `{"customer":"C42","limit":5.5}`, `{"customer":"C42","limit":1e1}`, `{"customer":"C42","limit":1E+1}`,
	`{"customer":"C42","limit":-0}`, `{"customer":"C42","limit":1e400}`, `{"customer":"C42","limit":1e-400}`, `{"customer":"C42","limit":9007199254740993}`,
	`{"customer":"C42","limit":"5"}`, `{"customer":"C42","limit":null}`, `{"customer":"X42"}`, `{"customer":"C42","status":"open"}`,
	`{"customer":"C42","status":"lost"}`, `{"customer":"C42","extra":1}`, `{"customer":"C42","customer":"X"}`, `{"customer":"X","customer":"C42"}`,
	`{"limit":5,"limit":500,"customer":"C1"}`, `{"\u0063ustomer":"C42"}`, `{"customer":"\u0043\u0034\u0032"}`, `{"customer":"C4\u00322"}`,
	`{"customer":"C42\u0000"}`, "{\"customer\":\"C\xff42\"}", "{\"customer\xff\":\"C42\"}", `{"customer":"C42",}`, `{"customer" : "C42" , "limit" : 7 }`,
	`{"customer":"C42","limit":07}`, `{"customer":"C42","limit":.5}`, `{"customer":"C42","limit":5.}`, `{"customer":"C42","limit":-}`, `{"customer":"C42","limit":1e}`,
	`{"customer":"C42"}garbage`, `{"customer":"C42"} `, "\u00a0{\"customer\":\"C42\"}\u00a0", `{"customer":"C42","limit":[1]}`, `{"customer":"C42","limit":{}}`,
	`{"customer":"C42","x":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}`,
	`{"a":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}`,
	`{"id":9007199254740993,"f":{"a":1}}`, `{"id":9007199254740993}`, `{"id":1 ,"limit":2}`, `{"bill":{"street":"Main"}}`, `{"bill":{}}`,
	`{"ship":[{"street":"A"},{"street":"B","country":"NL"}]}`, `{"tags":{"home":{"street":"C"}}}`,
	`{"q":"x"}`, `{"q":"xx"}`, `{"q":"xxxxxx"}`, `{"q":"xx","n":1}`, `{"q":"xx","n":0.5}`, `{"q":"xx","kind":"c"}`, `{"q":"xx","tags":["aa","bb"]}`,
	`{"q":"xx","tags":["a"]}`, `{"q":"xx","filter":{"lang":"en"}}`, `{"q":"xx","filter":{}}`, `{"q":"xx","zz":1}`, `{"q":"éé"}`, `{"q":"\u00e9\u00e9"}`,
	`{"n":-3,"x":0.75,"b":true,"e":"one","c":"k","extra":"abc"}`, `{"n":null}`, `{"n":-4}`, `{"n":1000}`, `{"n":999.5}`, `{"x":0.3}`, `{"b":false}`,
	`{"e":1.0}`, `{"e":null}`, `{"e":2}`, `{"e":false}`, `{"c":"K"}`, `{"extra":"abcd"}`, `{"extra":1}`,
	`{"m":{"1":1}}`, `{"m":{"1":1,"2":2,"3":3}}`, `{"m":{"x":1}}`, `{"m":{}}`, `{"m":{"1":1,"1":2}}`, `{"m":{"1":1},"a":1,"b":2,"c":3}`,
	`{"a":[[1,2],[3]]}`, `{"a":[]}`, `{"a":[[10]]}`, `{"a":[[1],[2],[3],[4]]}`, `{"a":[[1.5]]}`,
	`{"p":null}`, `{"p":{"d":"2025-01-31"}}`, `{"p":{"d":"yesterday"}}`, `{"p":{"d":"2025-01-31","next":{"d":"2025-02-01"}}}`, `{"p":{}}`, `{"t":"x"}`, `{"t":"z"}`,
	`{"u":"2025-01-31"}`, `{"u":"not a date but long enough"}`, `{"u":"short"}`, `{"u":3}`,
	`{"self":{"self":{"v":1}}}`, `{"v":2,"self":{}}`, `{"v":2,"self":{},"w":1}`, `{"w":1,"x":2}`,
	`{"d":"q"}`, `{"n":5}`, `{"bad":"2025-01-01"}`, `{"o":{}}`, `{"k\"q":1}`, `{"k\u0022q":1}`, `{"é":"üü","k\"q":1}`, `{"\u00e9":"ab","k\"q":1}`,
	`{"date":"2025-01-31","days":["2025-02-28"],"range":{"from":"2024-02-29"},"maybe":null}`, `{"maybe":{"from":"soon"}}`, `{"uuid":"123e4567"}`,
	`{"u":[1,1.0]}`, `{"u":[1,2,"1",true,false,null]}`, `{"u":["a","\u0061"]}`, `{"u":[null,null]}`, `{"u":[-0,0]}`, `{"u":[[1],[1]]}`, `{"u":[{},{"a":1}]}`,
	`{"u":[1e400,1]}`, `{"u":[9007199254740993,9007199254740992]}`, `{"u":[true,true]}`, `{"us":["a","b","a"]}`, `{"us":["a","é","\u00e9"]}`, `{"us":["a","b"]}`,
	`{"sku":"ESP-100"}`, `{"sku":"ESP-100","region":"north","from":"2025-02-01"}`, `{"sku":"ESP-100","from":"2025-02-30"}`, `{"top":3}`, `{"top":13}`,
}

// corpus is every schema the tests know: the hand-written ones, every
// example's tool input schemas, the generator's goldens; and arguments
// from the schema goldens' valid, invalid and defaults cases.
func corpus(t testing.TB) (schemas, args []string) {
	schemas = append(schemas, handSchemas...)
	args = append(args, handArgs...)
	inputSchema := regexp.MustCompile("InputSchema:\\s*`([^`]*)`")
	var files []string
	for _, pat := range []string{"../../examples/*/mcpgen_gen.go", "../../generator/testdata/*.txtar", "../../generator/testdata/*/*.txtar"} {
		m, _ := filepath.Glob(pat)
		files = append(files, m...)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range inputSchema.FindAllSubmatch(b, -1) {
			schemas = append(schemas, string(m[1]))
		}
	}
	goldens, _ := filepath.Glob("../../generator/schema/testdata/*.txtar")
	for _, f := range goldens {
		ar, err := txtar.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range ar.Files {
			dir, _, _ := strings.Cut(file.Name, "/")
			switch dir {
			case "want":
				if strings.HasSuffix(file.Name, ".json") {
					schemas = append(schemas, string(file.Data))
				}
			case "valid", "invalid", "defaults":
				for _, line := range strings.Split(string(file.Data), "\n") {
					in, _, _ := strings.Cut(line, " => ")
					if strings.TrimSpace(in) != "" {
						args = append(args, in)
					}
				}
			}
		}
	}
	if len(schemas) < 60 {
		t.Fatalf("found only %d schemas", len(schemas))
	}
	return schemas, args
}

// sameAnswer checks that Check and checkSlow agree on args.
func sameAnswer(t testing.TB, s *Schema, schema, args string) (fast bool) {
	t.Helper()
	got, gotErr := s.Check(json.RawMessage(args))
	want, wantErr := s.checkSlow(json.RawMessage(args))
	// The validator visits properties in map order: with two bad fields
	// either may be named, so a different name is asked for again; and
	// when the fast check declined, Check's answer is checkSlow's anyway.
	for i := 0; i < 200 && gotErr != nil && wantErr != nil && gotErr.Error() != wantErr.Error(); i++ {
		want, wantErr = s.checkSlow(json.RawMessage(args))
	}
	if gotErr != nil && wantErr != nil && gotErr.Error() != wantErr.Error() {
		if _, ok := s.checkFast(json.RawMessage(args)); !ok {
			wantErr = gotErr
		}
	}
	if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() || !bytes.Equal(got, want) {
		t.Fatalf("schema %s\nargs %q\n got %q, %v\nwant %q, %v", schema, args, got, gotErr, want, wantErr)
	}
	if s.fast != nil {
		_, fast = s.checkFast(json.RawMessage(args))
		if fast && wantErr != nil {
			t.Fatalf("schema %s\nargs %q: the fast check accepts what the validator refuses: %v", schema, args, wantErr)
		}
	}
	return fast
}

func TestFastCheckSameAnswers(t *testing.T) {
	schemas, args := corpus(t)
	compiled, fastSchemas, fastCalls, calls := 0, 0, 0, 0
	for _, schema := range schemas {
		s, err := Compile([]byte(schema))
		if err != nil {
			continue
		}
		compiled++
		if s.fast != nil {
			fastSchemas++
		}
		for _, a := range args {
			calls++
			if sameAnswer(t, s, schema, a) {
				fastCalls++
			}
		}
	}
	t.Logf("%d schemas compiled, %d with a fast check; %d of %d calls accepted by it", compiled, fastSchemas, fastCalls, calls)
	if fastCalls == 0 {
		t.Error("the fast check accepted nothing")
	}
}

// The schemas the generator writes for the examples and the load
// benchmark's find_orders have a fast check, and it accepts their calls.
func TestFastCheckCoversGeneratedSchemas(t *testing.T) {
	files, _ := filepath.Glob("../../examples/*/mcpgen_gen.go")
	inputSchema := regexp.MustCompile("InputSchema:\\s*`([^`]*)`")
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range inputSchema.FindAllSubmatch(b, -1) {
			s, err := Compile(m[1])
			if err != nil {
				t.Fatal(err)
			}
			n++
			if s.fast == nil {
				t.Errorf("%s: no fast check for %s", f, m[1])
			}
		}
	}
	if n == 0 {
		t.Fatal("no schemas found")
	}
	s, err := Compile([]byte(findOrdersSchema))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ in, want string }{
		{`{"customer":"C42"}`, `{"customer":"C42","limit":10}`},
		{`{"customer":"C42","status":"shipped","limit":5}`, `{"customer":"C42","status":"shipped","limit":5}`},
	} {
		got, ok := s.checkFast(json.RawMessage(tc.in))
		if !ok || string(got) != tc.want {
			t.Errorf("%s: got %s, %v; want %s", tc.in, got, ok, tc.want)
		}
	}
}

func FuzzCheck(f *testing.F) {
	schemas, args := corpus(f)
	var compiled []*Schema
	var sources []string
	for _, schema := range schemas {
		if s, err := Compile([]byte(schema)); err == nil && s.fast != nil {
			compiled = append(compiled, s)
			sources = append(sources, schema)
		}
	}
	for i, a := range args {
		f.Add(uint16(i), a)
	}
	f.Fuzz(func(t *testing.T, which uint16, args string) {
		i := int(which) % len(compiled)
		sameAnswer(t, compiled[i], sources[i], args)
	})
}

// Random arguments built from each schema's own property names and a pool
// of awkward values, so that many of them pass and the fast check's
// accepting side is exercised as much as its declining one.
func TestFastCheckRandomArguments(t *testing.T) {
	schemas, _ := corpus(t)
	values := []string{
		`null`, `true`, `false`, `0`, `-0`, `1`, `1.0`, `1.5`, `-1`, `10`, `50`, `51`, `1e1`, `1e400`, `-1e400`, `1e-400`, `12345678901234567`,
		`9007199254740993`, `0.25`, `0.3`, `1000`, `999.999`, `""`, `"a"`, `"x"`, `"C42"`, `"C-12"`, `"open"`, `"paid"`, `"shipped"`, `"b"`,
		`"2025-01-31"`, `"2025-02-30"`, `"2026-01-02T15:04:05Z"`, `"a@b.c"`, `"\u0043\u0034\u0032"`, `"\u00e9"`, "\"\xff\"", `"é"`, `"ESP-100"`,
		`"north"`, `"month"`, `"1"`, `"abc"`, `"abcd"`, `[]`, `[1]`, `[1,2]`, `["x"]`, `["a","a"]`, `[[1]]`, `{}`, `{"a":1}`, `{"from":1,"to":2}`,
		`{"key":"k","val":1}`, `{"name":"n"}`, `{"1":"one"}`, `{"street":"A"}`, `[null]`, `[{}]`,
	}
	rng := rand.New(rand.NewPCG(1, 2))
	calls, fast := 0, 0
	for _, schema := range schemas {
		s, err := Compile([]byte(schema))
		if err != nil || s.fast == nil {
			continue
		}
		var names []string
		collectNames(s.schema, &names, 0)
		for range 300 {
			var b strings.Builder
			b.WriteByte('{')
			for i := range rng.IntN(len(names) + 2) {
				if i > 0 {
					b.WriteByte(',')
				}
				if j := rng.IntN(len(names) + 1); j < len(names) {
					b.WriteString(strconv.Quote(names[j]))
				} else {
					b.WriteString(`"zz"`)
				}
				b.WriteByte(':')
				b.WriteString(values[rng.IntN(len(values))])
			}
			b.WriteByte('}')
			calls++
			if sameAnswer(t, s, schema, b.String()) {
				fast++
			}
		}
	}
	t.Logf("%d of %d random calls accepted by the fast check", fast, calls)
}

// collectNames gathers the property names a schema mentions anywhere.
func collectNames(s *jsonschema.Schema, names *[]string, depth int) {
	if s == nil || depth > 8 {
		return
	}
	for name, p := range s.Properties {
		*names = append(*names, name)
		collectNames(p, names, depth+1)
	}
	for _, d := range s.Defs {
		collectNames(d, names, depth+1)
	}
	collectNames(s.Items, names, depth+1)
	collectNames(s.AdditionalProperties, names, depth+1)
	for _, a := range s.AnyOf {
		collectNames(a, names, depth+1)
	}
}
