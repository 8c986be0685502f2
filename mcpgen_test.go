package mcpgen

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestContentWire(t *testing.T) {
	link := Link("file:///r.pdf", "r.pdf")
	link.MIMEType = "application/pdf"
	for _, tc := range []struct {
		c    mcp.Content
		want string
	}{
		{Text("hi"), `{"type":"text","text":"hi"}`},
		{Image([]byte{1, 2}, "image/png"), `{"type":"image","mimeType":"image/png","data":"AQI="}`},
		{Audio([]byte{3}, "audio/wav"), `{"type":"audio","mimeType":"audio/wav","data":"Aw=="}`},
		{EmbeddedText("test://a", "text/plain", "x"), `{"type":"resource","resource":{"uri":"test://a","mimeType":"text/plain","text":"x"}}`},
		{EmbeddedBlob("test://b", "application/octet-stream", []byte{4}), `{"type":"resource","resource":{"uri":"test://b","mimeType":"application/octet-stream","blob":"BA=="}}`},
		{link, `{"type":"resource_link","mimeType":"application/pdf","uri":"file:///r.pdf","name":"r.pdf"}`},
	} {
		b, err := json.Marshal(tc.c)
		if err != nil {
			t.Fatal(err)
		}
		var got, want any
		json.Unmarshal(b, &got)
		json.Unmarshal([]byte(tc.want), &want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%T: %s\nwant %s", tc.c, b, tc.want)
		}
	}
	m := AssistantText("ok")
	if m.Role != "assistant" || m.Content.(*mcp.TextContent).Text != "ok" || UserText("q").Role != "user" {
		t.Errorf("prompt messages: %+v", m)
	}
}

func TestOutsideHandler(t *testing.T) {
	ctx := context.Background()
	Log(ctx, LevelInfo, "nobody listens") // must not panic
	if err := Progress(ctx, 1, 2, ""); err != nil {
		t.Errorf("Progress outside a handler: %v", err)
	}
	if Session(ctx) != nil {
		t.Error("Session outside a handler")
	}
	if _, err := Sample(ctx, "q", 0); !errors.Is(err, ErrNoRequest) {
		t.Errorf("Sample: %v", err)
	}
	if _, _, err := Elicit[struct{ A string }](ctx, "q"); !errors.Is(err, ErrNoRequest) {
		t.Errorf("Elicit: %v", err)
	}
	if err := ResourceUpdated(ctx, "test://x"); !errors.Is(err, ErrNoRequest) {
		t.Errorf("ResourceUpdated: %v", err)
	}
}

func TestElicitSchemaErrors(t *testing.T) {
	type nested struct{ X struct{ Y int } }
	type ints struct {
		N []int `json:"n"`
	}
	type noEnum struct {
		Tags []string `json:"tags"`
	}
	type badDefault struct {
		N int `json:"n" mcpgen:"default=ten"`
	}
	type typo struct {
		S string `json:"s" mcpgen:"defualt=x"`
	}
	for _, tc := range []struct {
		t    reflect.Type
		want string
	}{
		{reflect.TypeFor[int](), "is not a struct"},
		{reflect.TypeFor[nested](), "field mcpgen.nested.X: type struct { Y int } cannot be asked for"},
		{reflect.TypeFor[ints](), "type []int cannot be asked for"},
		{reflect.TypeFor[noEnum](), "needs enum=a|b|c"},
		{reflect.TypeFor[badDefault](), "default=ten is not an integer"},
		{reflect.TypeFor[typo](), `unknown mcpgen tag option "defualt"`},
		{reflect.TypeFor[struct {
			S string `mcpgen:"format=ipv4"`
		}](), "format=ipv4: elicitation allows format on string fields only"},
		{reflect.TypeFor[struct {
			S string `mcpgen:"enum=a|b,enumNames=A"`
		}](), "enumNames has 1 names for 2 enum values"},
		{reflect.TypeFor[struct {
			S []string `mcpgen:"enum=a|b,enumNames=A|B"`
		}](), "enumNames needs a string field"},
	} {
		_, err := buildElicitSchema(tc.t)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.t, err, tc.want)
		}
	}
	// Each form of choice: plain, titled (oneOf), legacy titled (enumNames),
	// multi-select plain and titled.
	type choices struct {
		Plain  string   `json:"plain" mcpgen:"enum=a|b"`
		Titled string   `json:"titled" mcpgen:"enum=a:Alpha|b:Beta"`
		Legacy string   `json:"legacy" mcpgen:"enum=a|b,enumNames=Alpha|Beta"`
		Multi  []string `json:"multi" mcpgen:"enum=a|b"`
		MultiT []string `json:"multiT" mcpgen:"enum=a:Alpha|b:Beta"`
	}
	got, err := buildElicitSchema(reflect.TypeFor[choices]())
	if err != nil {
		t.Fatal(err)
	}
	var sch struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	json.Unmarshal(got, &sch)
	for name, want := range map[string]string{
		"plain":  `{"enum":["a","b"],"type":"string"}`,
		"titled": `{"oneOf":[{"const":"a","title":"Alpha"},{"const":"b","title":"Beta"}],"type":"string"}`,
		"legacy": `{"enum":["a","b"],"enumNames":["Alpha","Beta"],"type":"string"}`,
		"multi":  `{"items":{"enum":["a","b"],"type":"string"},"type":"array"}`,
		"multiT": `{"items":{"anyOf":[{"const":"a","title":"Alpha"},{"const":"b","title":"Beta"}]},"type":"array"}`,
	} {
		if string(sch.Properties[name]) != want {
			t.Errorf("%s: %s\nwant %s", name, sch.Properties[name], want)
		}
	}

	// The tag grammar is the generator's: a quoted value holds commas.
	type quoted struct {
		R string `json:"r" mcpgen:"title='Range, short',description='it''s'"`
	}
	got, err = buildElicitSchema(reflect.TypeFor[quoted]())
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(got, &sch)
	if want := `{"description":"it's","title":"Range, short","type":"string"}`; string(sch.Properties["r"]) != want {
		t.Errorf("quoted title: %s\nwant %s", sch.Properties["r"], want)
	}
	for tag, want := range map[string]string{
		`mcpgen:"title=x,"`:   "empty option in the mcpgen tag",
		`mcpgen:"title='x"`:   "unterminated quoted value",
		`mcpgen:"title='x'y"`: `unexpected "y" after a quoted value`,
	} {
		typ := reflect.StructOf([]reflect.StructField{{Name: "S", Type: reflect.TypeFor[string](), Tag: reflect.StructTag(`json:"s" ` + tag)}})
		if _, err := buildElicitSchema(typ); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", tag, err, want)
		}
	}

	// Schemas are built once per type.
	type ok struct {
		A string `json:"a"`
	}
	if elicitSchema(reflect.TypeFor[ok]()) != elicitSchema(reflect.TypeFor[ok]()) {
		t.Error("schema not cached")
	}
}
