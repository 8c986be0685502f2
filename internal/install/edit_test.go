package install

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/tailscale/hujson"
)

var acme = stdioEntry{Type: "stdio", Command: "/bin/acme", Args: []string{"--stdio"}}

func TestEdit(t *testing.T) {
	mcp := Servers{Path: []string{"mcpServers"}}
	vs := Servers{Path: []string{"servers"}, JSONC: true}
	for _, tc := range []struct {
		name    string
		s       Servers
		old     string
		want    string
		changed bool
	}{
		{
			name: "empty file",
			s:    mcp, old: "",
			want:    "{\n  \"mcpServers\": {\n    \"acme\": {\n      \"type\": \"stdio\",\n      \"command\": \"/bin/acme\",\n      \"args\": [\n        \"--stdio\"\n      ]\n    }\n  }\n}\n",
			changed: true,
		},
		{
			name: "empty object, no final newline",
			s:    mcp, old: "{}",
			want:    "{\n  \"mcpServers\": {\n    \"acme\": {\n      \"type\": \"stdio\",\n      \"command\": \"/bin/acme\",\n      \"args\": [\n        \"--stdio\"\n      ]\n    }\n  }\n}",
			changed: true,
		},
		{
			name:    "other keys and servers kept in order",
			s:       mcp,
			old:     "{\n  \"zeta\": 1,\n  \"mcpServers\": {\n    \"other\": {\"command\": \"x\"}\n  },\n  \"alpha\": [1, 2]\n}\n",
			want:    "{\n  \"zeta\": 1,\n  \"mcpServers\": {\n    \"other\": {\"command\": \"x\"},\n    \"acme\": {\n      \"type\": \"stdio\",\n      \"command\": \"/bin/acme\",\n      \"args\": [\n        \"--stdio\"\n      ]\n    }\n  },\n  \"alpha\": [1, 2]\n}\n",
			changed: true,
		},
		{
			name:    "tabs",
			s:       mcp,
			old:     "{\n\t\"mcpServers\": {}\n}\n",
			want:    "{\n\t\"mcpServers\": {\n\t\t\"acme\": {\n\t\t\t\"type\": \"stdio\",\n\t\t\t\"command\": \"/bin/acme\",\n\t\t\t\"args\": [\n\t\t\t\t\"--stdio\"\n\t\t\t]\n\t\t}\n\t}\n}\n",
			changed: true,
		},
		{
			name: "same entry formatted differently is no change",
			s:    mcp,
			old:  "{\"mcpServers\": {\"acme\": {\"args\": [\"--stdio\"], \"command\": \"/bin/acme\", \"type\": \"stdio\"}}}",
			want: "{\"mcpServers\": {\"acme\": {\"args\": [\"--stdio\"], \"command\": \"/bin/acme\", \"type\": \"stdio\"}}}",
		},
		{
			name:    "a different entry is replaced in place",
			s:       mcp,
			old:     "{\n  \"mcpServers\": {\n    \"acme\": {\"command\": \"/old\"},\n    \"b\": {}\n  }\n}\n",
			want:    "{\n  \"mcpServers\": {\n    \"acme\": {\n      \"type\": \"stdio\",\n      \"command\": \"/bin/acme\",\n      \"args\": [\n        \"--stdio\"\n      ]\n    },\n    \"b\": {}\n  }\n}\n",
			changed: true,
		},
		{
			name:    "JSONC comments and trailing commas kept",
			s:       vs,
			old:     "// my servers\n{\n  \"servers\": {\n    // the old one\n    \"old\": {\"url\": \"http://x\"}, // trailing\n  },\n  /* inputs */ \"inputs\": [],\n}\n",
			want:    "// my servers\n{\n  \"servers\": {\n    // the old one\n    \"old\": {\"url\": \"http://x\"}, // trailing\n    \"acme\": {\n      \"type\": \"stdio\",\n      \"command\": \"/bin/acme\",\n      \"args\": [\n        \"--stdio\"\n      ]\n    },\n  },\n  /* inputs */ \"inputs\": [],\n}\n",
			changed: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, changed, err := tc.s.Edit([]byte(tc.old), "acme", acme)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want || changed != tc.changed {
				t.Errorf("Edit = changed %v\n%s\nwant changed %v\n%s", changed, got, tc.changed, tc.want)
			}
			again, changed, err := tc.s.Edit(got, "acme", acme)
			if err != nil || changed || string(again) != string(got) {
				t.Errorf("second Edit: changed %v, err %v, bytes differ %v", changed, err, string(again) != string(got))
			}
			back, removed, err := tc.s.Remove(got, "acme")
			if err != nil || !removed {
				t.Fatalf("Remove: removed %v, err %v", removed, err)
			}
			if e, _ := tc.s.Entry(back, "acme"); e != nil {
				t.Errorf("after Remove the entry is still there:\n%s", back)
			}
			if strings.Contains(tc.old, `"`+tc.s.Path[0]+`"`) && !strings.Contains(tc.old, "acme") && string(back) != tc.old {
				// The servers object was there: removing what was added
				// restores the file byte for byte.
				t.Errorf("Remove after Edit =\n%s\nwant the original\n%s", back, tc.old)
			}
		})
	}
}

func TestRemove(t *testing.T) {
	s := Servers{Path: []string{"mcpServers"}}
	for _, tc := range []struct{ name, old, want string }{
		{"first of two", "{\"mcpServers\": {\n  \"acme\": {},\n  \"b\": 1\n}}", "{\"mcpServers\": {\n  \"b\": 1\n}}"},
		{"last of two", "{\"mcpServers\": {\n  \"b\": 1,\n  \"acme\": {}\n}}", "{\"mcpServers\": {\n  \"b\": 1\n}}"},
		{"only one", "{\"mcpServers\": {\n  \"acme\": {}\n}}", "{\"mcpServers\": {}}"},
		{"absent", "{\"mcpServers\": {\"b\": 1}}", "{\"mcpServers\": {\"b\": 1}}"},
		{"no servers object", "{\"x\": 1}", "{\"x\": 1}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, changed, err := s.Remove([]byte(tc.old), "acme")
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want || changed != (tc.old != tc.want) {
				t.Errorf("Remove = %v %q, want %q", changed, got, tc.want)
			}
		})
	}
}

func TestEditErrors(t *testing.T) {
	mcp := Servers{Path: []string{"mcpServers"}}
	for _, tc := range []struct {
		name, old string
		s         Servers
		want      string
	}{
		{"truncated", "{\n  \"mcpServers\": {\n", mcp, "3:1:"},
		{"comment in strict JSON", "{\n  // no\n  \"a\": 1\n}", mcp, "2:3:"},
		{"JSONC syntax error", "{\n  \"servers\": {,}\n}", Servers{Path: []string{"servers"}, JSONC: true}, "2:15:"},
		{"servers is an array", "{\"mcpServers\": []}", mcp, "/mcpServers holds a JSON array"},
		{"top level is an array", "[]", mcp, "the top level holds a JSON array"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := tc.s.Edit([]byte(tc.old), "acme", acme)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) && !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to start with %q", err, tc.want)
			}
			var se *SyntaxError
			if strings.Contains(tc.want, ":") && !errors.As(err, &se) {
				t.Errorf("err %T is not a *SyntaxError", err)
			}
		})
	}
}

// FuzzEdit checks, for any document that parses, that Edit keeps the
// result parseable, sets the entry, leaves every other member as it was, is
// idempotent, and that Remove takes out only the entry.
func FuzzEdit(f *testing.F) {
	for _, seed := range []string{
		"", "{}", "{\"mcpServers\": {}}", "{\"mcpServers\": {\"a\": 1, \"acme\": 2}}",
		"// c\n{\"servers\": {\"x\": {},}, /* y */ \"z\": null,}\n",
		"{\n\t\"a\": {\"b\": [1, {\"c\": 2}]},\n\t\"servers\": {\n\t\t\"q\": 1\n\t}\n}",
	} {
		f.Add(seed, "acme")
	}
	f.Fuzz(func(t *testing.T, doc, name string) {
		for _, s := range []Servers{{Path: []string{"mcpServers"}}, {Path: []string{"servers"}, JSONC: true}} {
			got, _, err := s.Edit([]byte(doc), name, acme)
			if err != nil {
				return // a document that does not parse is refused, not mangled
			}
			std, err := hujson.Standardize(append([]byte(nil), got...))
			if err != nil {
				t.Fatalf("Edit produced a document that does not parse: %v\n%s", err, got)
			}
			if !s.JSONC && !json.Valid(got) {
				t.Fatalf("Edit of strict JSON produced invalid JSON:\n%s", got)
			}
			var after map[string]any
			if err := json.Unmarshal(std, &after); err != nil {
				t.Fatalf("result is not an object: %v\n%s", err, got)
			}
			e, err := s.Entry(got, name)
			if err != nil || e == nil {
				t.Fatalf("entry missing after Edit: %v\n%s", err, got)
			}
			var ev, want any
			json.Unmarshal(e, &ev)
			b, _ := json.Marshal(acme)
			json.Unmarshal(b, &want)
			if !jsonEqual(ev, want) {
				t.Fatalf("entry = %s, want %s", e, b)
			}
			again, changed, err := s.Edit(got, name, acme)
			if err != nil || changed || string(again) != string(got) {
				t.Fatalf("Edit is not idempotent: changed %v err %v", changed, err)
			}
			removed, changed, err := s.Remove(got, name)
			if err != nil || !changed {
				t.Fatalf("Remove: changed %v err %v", changed, err)
			}
			if e, _ := s.Entry(removed, name); e != nil {
				t.Fatalf("entry still there after Remove:\n%s", removed)
			}
		}
	})
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
