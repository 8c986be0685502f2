package lint

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestRulesDocumented checks that every rule can be found and fixed from its
// finding: a unique code and name, a title, documentation that says how to
// fix it, and a run function.
func TestRulesDocumented(t *testing.T) {
	code := regexp.MustCompile(`^[A-Z]+[0-9]{3}$`)
	name := regexp.MustCompile(`^[a-z]+(-[a-z0-9]+)*$`)
	codes, names := map[string]bool{}, map[string]bool{}
	if len(Rules()) == 0 {
		t.Fatal("no rules")
	}
	for _, r := range Rules() {
		if !code.MatchString(r.Code) {
			t.Errorf("rule %q: code %q is not like ANN001", r.Name, r.Code)
		}
		if !name.MatchString(r.Name) {
			t.Errorf("rule %s: name %q is not kebab-case", r.Code, r.Name)
		}
		if codes[r.Code] || names[r.Name] {
			t.Errorf("rule %s %s: code or name used twice", r.Code, r.Name)
		}
		codes[r.Code], names[r.Name] = true, true
		if r.Title == "" {
			t.Errorf("rule %s has no title", r.Code)
		}
		if len(r.Doc) < 200 || !bytes.Contains([]byte(r.Doc), []byte("Fix:")) {
			t.Errorf("rule %s: its doc must say why hosts or reviewers care and, after \"Fix:\", how to fix it", r.Code)
		}
		if r.Run == nil {
			t.Errorf("rule %s has no run function", r.Code)
		}
		if Lookup(r.Code) != r || Lookup(r.Name) != r {
			t.Errorf("Lookup does not find rule %s", r.Code)
		}
	}
}

// TestDocsUpToDate fails when docs/lint.md is not what the rules generate.
func TestDocsUpToDate(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "lint.md")
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, Markdown()) {
		t.Errorf("docs/lint.md is stale; run: go generate ./generator/lint")
	}
}

func TestJSONNameFor(t *testing.T) {
	for _, tc := range []struct {
		in    string
		snake bool
		want  string
	}{
		{"DryRun", false, "dryRun"},
		{"ID", false, "id"},
		{"URLPath", false, "urlPath"},
		{"UserID", false, "userId"},
		{"Page2Size", false, "page2Size"},
		{"DryRun", true, "dry_run"},
		{"URLPath", true, "url_path"},
		{"Max_Items", false, "maxItems"},
	} {
		if got := jsonNameFor(tc.in, tc.snake); got != tc.want {
			t.Errorf("jsonNameFor(%q, %v) = %q, want %q", tc.in, tc.snake, got, tc.want)
		}
	}
}
