package ui

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mcpgen/mcpgen/internal/testenv"
)

// TestTypeCheck compiles the module's own sources with the real TypeScript
// compiler (strict), against React's declarations and the module's own
// declaration file, so the declarations and the code cannot drift apart.
func TestTypeCheck(t *testing.T) {
	node := testenv.Node(t)
	nm := testenv.NodeModules(t, "typescript", "@types/react", "@types/react-dom")
	dir := t.TempDir()
	files := map[string]string{
		"index.ts":       Source,
		"mount.ts":       Mount,
		"mcpgen-ui.d.ts": Declarations,
		"conformance.ts": conformance,
		"tsconfig.json": `{"compilerOptions":{"target":"ES2020","lib":["ES2020","DOM"],"module":"ESNext",
			"moduleResolution":"Bundler","strict":true,"noEmit":true,"skipLibCheck":true,"noUnusedLocals":true},
			"files":["index.ts","mount.ts","mcpgen-ui.d.ts","conformance.ts"]}`,
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(nm, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, filepath.Join(nm, "typescript", "bin", "tsc"), "-p", "tsconfig.json", "--pretty", "false")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tsc: %v\n%s", err, out)
	}
}

// conformance checks that the implementation (index.ts) provides what the
// declaration (declare module "mcpgen/ui") promises, with the same types.
const conformance = `import * as impl from "./index";
import * as decl from "mcpgen/ui";
const check: typeof decl = impl;
void check;
`
