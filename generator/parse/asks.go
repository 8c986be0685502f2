package parse

// This file decides, per tool, whether its handler can send the client a
// request during a call (sampling, elicitation, roots): the runtime answers
// calls of a tool that never asks on its fast path in every session. The
// analysis is conservative: a tool asks unless every call it can reach is
// proved harmless.

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/types/typeutil"
)

// rootPath is the import path of the package whose helpers handlers call.
const rootPath = "github.com/mcpgen/mcpgen"

// askers are the functions (types.Func.FullName) that send the client a
// request, or hand out what can: the session or the runtime's call.
var askers = map[string]bool{
	rootPath + ".Sample":                     true,
	rootPath + ".SampleMessage":              true,
	rootPath + ".Elicit":                     true,
	rootPath + ".Session":                    true, // the go-sdk session asks (CreateMessage, Elicit, ListRoots)
	rootPath + "/connector.CallFrom":         true,
	"(*" + rootPath + "/connector.Call).Ask": true,
	"(*github.com/modelcontextprotocol/go-sdk/mcp.ServerSession).CreateMessage":          true,
	"(*github.com/modelcontextprotocol/go-sdk/mcp.ServerSession).CreateMessageWithTools": true,
	"(*github.com/modelcontextprotocol/go-sdk/mcp.ServerSession).Elicit":                 true,
	"(*github.com/modelcontextprotocol/go-sdk/mcp.ServerSession).ListRoots":              true,
}

// asks is what the analysis knows of a loaded program.
type asks struct {
	decls map[*types.Func]body // functions and methods with syntax
	// methods are the methods with syntax by name: the bodies an interface
	// method call may run.
	methods map[string][]*types.Func
	// lits are the function literals with syntax: the bodies a call
	// through a func value may run.
	lits []body
	// importsRoot tells, by import path, whether a package imports
	// rootPath (directly or not).
	importsRoot map[string]bool
	// foreign is set when a package without syntax (other than rootPath)
	// imports rootPath: its values may ask behind any dynamic call.
	foreign bool
}

type body struct {
	node ast.Node
	info *types.Info
}

func newAsks(pkgs []*packages.Package) *asks {
	a := &asks{decls: map[*types.Func]body{}, methods: map[string][]*types.Func{}, importsRoot: map[string]bool{}}
	state := map[*packages.Package]int{} // 1: visiting, 2: done
	var visit func(p *packages.Package) bool
	visit = func(p *packages.Package) bool {
		switch state[p] {
		case 1:
			return false // an import cycle; its other edges decide
		case 2:
			return a.importsRoot[p.PkgPath]
		}
		state[p] = 1
		r := false
		for path, q := range p.Imports {
			if path == rootPath || visit(q) {
				r = true
			}
		}
		state[p] = 2
		a.importsRoot[p.PkgPath] = r
		if r && len(p.Syntax) == 0 && p.PkgPath != rootPath {
			a.foreign = true
		}
		return r
	}
	for _, p := range pkgs {
		visit(p)
		if p.TypesInfo == nil {
			continue
		}
		for _, f := range p.Syntax {
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				fn, ok := p.TypesInfo.Defs[fd.Name].(*types.Func)
				if !ok {
					continue
				}
				a.decls[fn] = body{fd.Body, p.TypesInfo}
				if fd.Recv != nil {
					a.methods[fn.Name()] = append(a.methods[fn.Name()], fn)
				}
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if fl, ok := n.(*ast.FuncLit); ok {
					a.lits = append(a.lits, body{fl, p.TypesInfo})
				}
				return true
			})
		}
	}
	return a
}

// neverAsks reports whether fn, and everything it can call, never sends the
// client a request.
func (a *asks) neverAsks(fn *types.Func) bool {
	return a.why(fn) == ""
}

// why says why fn may ask the client ("" when it never does).
func (a *asks) why(fn *types.Func) string {
	seenFn := map[*types.Func]bool{}
	seenLit := map[ast.Node]bool{}
	var work []body
	asked := false
	var why string
	var reach func(f *types.Func)
	reach = func(f *types.Func) {
		f = f.Origin()
		if seenFn[f] {
			return
		}
		seenFn[f] = true
		if askers[f.FullName()] {
			asked, why = true, "calls "+f.FullName()
			return
		}
		if b, ok := a.decls[f]; ok {
			work = append(work, b)
			return
		}
		sig, _ := f.Type().(*types.Signature)
		if sig != nil && sig.Recv() != nil && types.IsInterface(sig.Recv().Type()) {
			// An interface method, called or taken as a value: any method
			// of that name with syntax may run. (Whether a context can
			// reach it is judged where it is called.)
			for _, m := range a.methods[f.Name()] {
				reach(m)
			}
			return
		}
		if pkg := f.Pkg(); pkg != nil && pkg.Path() != rootPath && a.importsRoot[pkg.Path()] {
			// A body the analysis cannot see, that can reach rootPath.
			asked, why = true, "calls "+f.FullName()+", whose package imports "+rootPath
		}
	}
	reach(fn)
	for len(work) > 0 && !asked {
		b := work[len(work)-1]
		work = work[:len(work)-1]
		ast.Inspect(b.node, func(n ast.Node) bool {
			if asked {
				return false
			}
			switch n := n.(type) {
			case *ast.Ident:
				// Every function named is reached: called, or passed on
				// as a value that someone may call.
				if f, ok := b.info.Uses[n].(*types.Func); ok {
					reach(f)
				}
			case *ast.CallExpr:
				a.dynamic(n, b.info, reach, func(l body) {
					if !seenLit[l.node] {
						seenLit[l.node] = true
						work = append(work, l)
					}
				}, &why)
				asked = asked || why != ""
			}
			return true
		})
	}
	return why
}

// dynamic judges a call that is not static: through an interface method or
// a func value. It asks when a context.Context can flow into it, or when a
// package the analysis cannot see may supply the callee; otherwise every
// body with syntax that the call may run is reached.
func (a *asks) dynamic(call *ast.CallExpr, info *types.Info, reach func(*types.Func), lit func(body), why *string) {
	tv, ok := info.Types[call.Fun]
	if !ok || tv.IsType() || tv.IsBuiltin() {
		return // a conversion or a builtin
	}
	if typeutil.StaticCallee(info, call) != nil {
		return // static: reached through its name
	}
	sig, ok := tv.Type.Underlying().(*types.Signature)
	if !ok {
		*why = "calls a value of type " + tv.Type.String() // a type parameter, say: in doubt
		return
	}
	if a.foreign {
		*why = "makes a dynamic call, and a package without source imports " + rootPath
		return
	}
	if takesContext(sig) {
		*why = "makes a dynamic call of type " + sig.String() + ", which a context.Context can reach"
		return
	}
	// An interface method: reached through its name (every method of
	// that name with syntax).
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
		if s := info.Selections[sel]; s != nil && s.Kind() == types.MethodVal {
			return
		}
	}
	// A func value: any function literal, function or method with syntax
	// of that type may run (a function stored in a package-level variable,
	// say).
	for f, b := range a.decls {
		if types.Identical(f.Type(), sig) {
			lit(b)
		}
	}
	for _, l := range a.lits {
		if t, ok := l.info.Types[l.node.(ast.Expr)]; ok && types.Identical(t.Type, sig) {
			lit(l)
		}
	}
}

// takesContext reports whether a parameter of sig can hold a
// context.Context.
func takesContext(sig *types.Signature) bool {
	for i := 0; i < sig.Params().Len(); i++ {
		if mayHoldContext(sig.Params().At(i).Type()) {
			return true
		}
	}
	return false
}

// mayHoldContext reports whether a value of t can hold a context.Context:
// context.Context itself, an interface with only a Context's methods, a
// type parameter, a func, or a struct, pointer, slice, array, map or
// channel of one of them. (A Context passed as any is not counted: the
// bodies a dynamic call may run are walked anyway; a parameter that is a
// Context only makes the analysis stop earlier, in doubt.)
func mayHoldContext(t types.Type) bool {
	seen := map[types.Type]bool{}
	var holds func(t types.Type) bool
	holds = func(t types.Type) bool {
		if seen[t] {
			return false
		}
		seen[t] = true
		if _, ok := t.(*types.TypeParam); ok {
			return true
		}
		switch u := t.Underlying().(type) {
		case *types.Interface:
			return u.NumMethods() > 0 && implementsContext(u)
		case *types.Pointer:
			return holds(u.Elem())
		case *types.Slice:
			return holds(u.Elem())
		case *types.Array:
			return holds(u.Elem())
		case *types.Chan:
			return holds(u.Elem())
		case *types.Map:
			return holds(u.Key()) || holds(u.Elem())
		case *types.Struct:
			for i := 0; i < u.NumFields(); i++ {
				if holds(u.Field(i).Type()) {
					return true
				}
			}
		case *types.Signature:
			return true // a func value may have captured one
		}
		return false
	}
	return holds(t)
}

// implementsContext reports whether every method of iface is one of a
// context.Context's (so a Context fits in it).
func implementsContext(iface *types.Interface) bool {
	for i := 0; i < iface.NumMethods(); i++ {
		switch iface.Method(i).Name() {
		case "Deadline", "Done", "Err", "Value":
		default:
			return false
		}
	}
	return true
}
