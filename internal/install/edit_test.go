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

// TestEditRefusesDuplicateKeys: a file with its servers object (or the
// server) twice. Clients read the last one; an edit of the first would be
// written where no client reads it, so the file is refused at the second
// key's line and column.
func TestEditRefusesDuplicateKeys(t *testing.T) {
	mcp := Servers{Path: []string{"mcpServers"}}
	vs := Servers{Path: []string{"servers"}, JSONC: true}
	nested := Servers{Path: []string{"mcp", "servers"}}
	for _, tc := range []struct {
		name, doc string
		s         Servers
		want      string
	}{
		{"servers object twice", "{\n  \"mcpServers\": {},\n  \"x\": 1,\n  \"mcpServers\": {\"b\": {}}\n}\n", mcp,
			`4:3: "mcpServers" appears twice in the top-level object (first at 2:3)`},
		{"server twice", "{\"mcpServers\": {\n  \"acme\": {},\n  \"acme\": {\"command\": \"x\"}\n}}", mcp,
			`3:3: "acme" appears twice in the object /mcpServers (first at 2:3)`},
		{"JSONC", "// mine\n{\n  \"servers\": {}, // one\n  \"servers\": {},\n}\n", vs,
			`4:3: "servers" appears twice in the top-level object (first at 3:3)`},
		{"deeper on the path", "{\"mcp\": {\"servers\": {}, \"servers\": {}}}", nested,
			`1:25: "servers" appears twice in the object /mcp (first at 1:10)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := tc.s.Edit([]byte(tc.doc), "acme", acme)
			var de *DuplicateError
			if !errors.As(err, &de) || !strings.HasPrefix(err.Error(), tc.want) || !strings.Contains(err.Error(), "merge the two") {
				t.Errorf("Edit: %v\nwant a *DuplicateError starting %q and naming the fix", err, tc.want)
			}
			if _, _, err := tc.s.Remove([]byte(tc.doc), "acme"); !errors.As(err, &de) {
				t.Errorf("Remove: %v, want a *DuplicateError", err)
			}
		})
	}
	// Duplicates elsewhere are the file's own business.
	doc := "{\"other\": {\"a\": 1, \"a\": 2}, \"mcpServers\": {\"b\": {}, \"b\": {}}}"
	if _, changed, err := mcp.Edit([]byte(doc), "acme", acme); err != nil || !changed {
		t.Errorf("duplicates off the path: changed %v, %v", changed, err)
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
		"{\"mcpServers\": {}, \"mcpServers\": {\"acme\": 1}}",
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
			// What a client reads (the last of duplicate keys, as
			// encoding/json and JavaScript's JSON.parse keep) is the entry.
			var read any = after
			for _, k := range s.Path {
				read = read.(map[string]any)[k]
			}
			b, _ := json.Marshal(acme)
			var want any
			json.Unmarshal(b, &want)
			if read, _ := read.(map[string]any); !jsonEqual(read[name], want) {
				t.Fatalf("a client reads %v as the entry, want %s:\n%s", read[name], b, got)
			}
			e, err := s.Entry(got, name)
			if err != nil || e == nil {
				t.Fatalf("entry missing after Edit: %v\n%s", err, got)
			}
			var ev any
			json.Unmarshal(e, &ev)
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
