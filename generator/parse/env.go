package parse

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"sort"

	"golang.org/x/tools/go/packages"

	"github.com/mcpgen/mcpgen/generator/diag"
	"github.com/mcpgen/mcpgen/generator/ir"
)

// envFuncs are the functions that read one environment variable by name.
var envFuncs = map[string]bool{"os.Getenv": true, "os.LookupEnv": true, "syscall.Getenv": true}

// envReads finds every call in pkgs that reads an environment variable by
// a constant name, so lint can tell a declared setting the code never
// reads. A name computed at run time is not seen.
func envReads(at func(token.Pos) diag.Pos, pkgs []*packages.Package) []ir.EnvRead {
	var out []ir.EnvRead
	for _, pkg := range pkgs {
		if pkg.TypesInfo == nil {
			continue
		}
		for _, f := range pkg.Syntax {
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || len(call.Args) != 1 {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				fn, ok := pkg.TypesInfo.Uses[sel.Sel].(*types.Func)
				if !ok || fn.Pkg() == nil || !envFuncs[fn.Pkg().Path()+"."+fn.Name()] {
					return true
				}
				tv := pkg.TypesInfo.Types[call.Args[0]]
				if tv.Value == nil || tv.Value.Kind() != constant.String {
					return true
				}
				out = append(out, ir.EnvRead{Name: constant.StringVal(tv.Value), Pos: at(call.Args[0].Pos())})
				return true
			})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
