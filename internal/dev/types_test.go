package dev_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testenv"
)

// TestBackgroundTypeCheck: with a tsconfig.json, mcpgen dev type-checks the
// views after every good rebuild, prints the errors at file:line:col, shows
// them to the inspector (its build status), and says when they are fixed.
func TestBackgroundTypeCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a connector and runs tsc")
	}
	testenv.NodeModules(t, "typescript", "@types/react")
	t.Setenv("MCPGEN_NODE", testenv.Node(t))
	dir := copyDir(t, filepath.Join("testdata", "plain"))
	if err := os.WriteFile(filepath.Join(dir, "tsconfig.json"), []byte(`{"compilerOptions":{"target":"ES2020",
		"lib":["ES2020","DOM"],"module":"ESNext","moduleResolution":"Bundler","jsx":"react-jsx","strict":true,
		"noEmit":true,"skipLibCheck":true},"include":["ui"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	edit(t, dir, "ui/card.tsx", `return <div className="card">card v1</div>;`, `const n: number = "one";
  return <div className="card">card v1 {n}</div>;`)

	ds := startDev(t, dir, nil)
	const want = "ui/card.tsx:2:9: Type 'string' is not assignable to type 'number'. (TS2322)"
	waitOutput(t, ds, want)
	st := status(t, ds)
	if st.OK || !strings.Contains(st.text(), want) {
		t.Errorf("inspector status %+v; want the type error", st)
	}

	edit(t, dir, "ui/card.tsx", `const n: number = "one";`, `const n: number = 1;`)
	waitOutput(t, ds, "type errors fixed")
	deadline := time.Now().Add(30 * time.Second)
	for st = status(t, ds); !st.OK && time.Now().Before(deadline); st = status(t, ds) {
		time.Sleep(100 * time.Millisecond)
	}
	if !st.OK || strings.Contains(st.text(), "TS2322") {
		t.Errorf("inspector status after the fix %+v", st)
	}
}

func waitOutput(t *testing.T, ds *devServer, want string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !strings.Contains(ds.out.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("mcpgen dev never printed %q:\n%s", want, ds.out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

type buildStatus struct {
	OK          bool `json:"ok"`
	Diagnostics []struct {
		Text string `json:"text"`
	} `json:"diagnostics"`
}

func (s buildStatus) text() string {
	var parts []string
	for _, d := range s.Diagnostics {
		parts = append(parts, d.Text)
	}
	return strings.Join(parts, "\n")
}

func status(t *testing.T, ds *devServer) buildStatus {
	t.Helper()
	res, err := http.Get(strings.TrimSuffix(ds.url, "/mcp") + "/_mcpgen/status")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var st buildStatus
	if err := json.NewDecoder(res.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	return st
}
