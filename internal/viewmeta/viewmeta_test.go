package viewmeta

import (
	"encoding/json"
	"testing"
)

func TestUI(t *testing.T) {
	no := false
	for _, c := range []struct {
		name string
		in   Meta
		want string
	}{
		{"nothing", Meta{Title: "only a title"}, "null"},
		{"csp", Meta{ConnectDomains: []string{"https://api.example.com"}, FrameDomains: []string{"https://f.example"}},
			`{"csp":{"connectDomains":["https://api.example.com"],"frameDomains":["https://f.example"]}}`},
		{"permissions", Meta{Permissions: []string{"camera", "clipboardWrite"}},
			`{"permissions":{"camera":{},"clipboardWrite":{}}}`},
		{"domain and border", Meta{Domain: "v.example.com", PrefersBorder: &no},
			`{"domain":"v.example.com","prefersBorder":false}`},
	} {
		got, err := json.Marshal(UI(c.in))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != c.want {
			t.Errorf("%s: UI = %s, want %s", c.name, got, c.want)
		}
	}
}

func TestLinkRelink(t *testing.T) {
	meta := map[string]any{}
	Link(meta, "ui://stats/v1", []string{"app"}, true)
	Relink(meta, func(uri string) string { return uri + "-new" })
	got, _ := json.Marshal(meta)
	want := `{"openai/outputTemplate":"ui://stats/v1-new","ui":{"resourceUri":"ui://stats/v1-new","visibility":["app"]},"ui/resourceUri":"ui://stats/v1-new"}`
	if string(got) != want {
		t.Errorf("linked and relinked _meta = %s, want %s", got, want)
	}
	meta = map[string]any{}
	Link(meta, "ui://stats/v1", nil, false)
	if _, ok := meta["openai/outputTemplate"]; ok {
		t.Error("openai/outputTemplate set without openAI")
	}
}
