package parse

import (
	"fmt"
	"go/types"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/mcpgen/mcpgen/generator/directive"
	"github.com/mcpgen/mcpgen/generator/ir"
)

const mcpPath = "github.com/modelcontextprotocol/go-sdk/mcp"

// signature checks a tool, resource or prompt handler's parameters
// ([ctx,] [In]) and results ((Out, error), or error alone where classify
// accepts ResultNone) and fills h.sig and h.in.
func (p *parser) signature(h *handler, classify func(types.Type) (ir.ResultKind, bool)) bool {
	sig := h.fn.Type().(*types.Signature)
	name := h.decl.Name.Name
	bad := func(why string) bool {
		var hint string
		switch h.dir.Kind {
		case directive.KindTool:
			hint = fmt.Sprintf(hintToolShape, name, name)
		case directive.KindResource:
			hint = fmt.Sprintf(hintResourceShape, name)
		case directive.KindPrompt:
			hint = fmt.Sprintf(hintPromptShape, name)
		}
		p.diags.Errorf(h.pos, "bad-signature", hint, msgBadSignature, name, h.dir.Kind, why)
		return false
	}
	params := sig.Params()
	if sig.Variadic() {
		return bad("it is variadic")
	}
	i := 0
	if i < params.Len() && isContext(params.At(i).Type()) {
		h.sig.Context = true
		i++
	}
	if i < params.Len() {
		t := params.At(i).Type()
		ref, in, why := p.inputType(t)
		switch {
		case why == "anon":
			p.diags.Errorf(h.pos, "anonymous-input", fmt.Sprintf(hintAnonInput, name), msgAnonInput, name)
			return false
		case why == "unexported":
			n := types.Unalias(deref(t)).(*types.Named).Obj()
			p.diags.Errorf(h.pos, "unexported-type", fmt.Sprintf(hintUnexportedType, exported(n.Name())), msgUnexportedType, n.Pkg().Name(), n.Name())
			return false
		case why != "":
			return bad(why)
		}
		h.sig.Input, h.in = ref, in
		i++
	}
	if i < params.Len() {
		return bad(fmt.Sprintf("parameter %d (%s) is neither context.Context nor the input struct", i+1, p.typeString(params.At(i).Type())))
	}
	res := sig.Results()
	switch {
	case res.Len() == 1 && isError(res.At(0).Type()):
		h.sig.Error = true
		h.sig.Kind = ir.ResultNone
		if _, ok := classify(nil); !ok {
			return bad("it returns only an error; it must return a value and an error")
		}
		return true
	case res.Len() == 2 && isError(res.At(1).Type()):
		h.sig.Error = true
	case res.Len() == 0:
		return bad("it returns nothing; the last result must be error")
	default:
		return bad("the last result must be error")
	}
	out := res.At(0).Type()
	kind, ok := classify(out)
	if !ok {
		p.diags.Errorf(h.pos, "bad-result", p.resultHint(h.dir.Kind, name), msgBadResult, name, p.typeString(out), h.dir.Kind)
		return false
	}
	h.sig.Kind = kind
	h.sig.Result = p.typeRef(out)
	return true
}

func (p *parser) resultHint(kind directive.Kind, name string) string {
	switch kind {
	case directive.KindResource:
		return "return string (text), []byte (blob), a struct (JSON) or *mcp.ReadResourceResult"
	case directive.KindPrompt:
		return "return string (one user message), []*mcp.PromptMessage or *mcp.GetPromptResult"
	}
	return "return a struct (structured result), string (text), mcp.Content or []mcp.Content, or *mcp.CallToolResult"
}

// inputType checks the input parameter: a named struct type, or a pointer to
// one, that package main can name. why is "" when it is fine.
func (p *parser) inputType(t types.Type) (ref *ir.TypeRef, in types.Type, why string) {
	ptr := false
	if pt, ok := t.(*types.Pointer); ok {
		t, ptr = pt.Elem(), true
	}
	t = types.Unalias(t)
	named, ok := t.(*types.Named)
	if !ok {
		if _, isStruct := t.(*types.Struct); isStruct {
			return nil, nil, "anon"
		}
		return nil, nil, fmt.Sprintf("the input %s is not a struct", p.typeString(t))
	}
	if _, isStruct := named.Underlying().(*types.Struct); !isStruct {
		return nil, nil, fmt.Sprintf("the input %s is not a struct", p.typeString(t))
	}
	if named.TypeArgs().Len() > 0 {
		return nil, nil, fmt.Sprintf("the input %s is a generic type; declare a non-generic struct", p.typeString(t))
	}
	obj := named.Obj()
	if obj.Pkg() == nil {
		return nil, nil, fmt.Sprintf("the input %s is not a struct", p.typeString(t))
	}
	if obj.Pkg().Path() != p.root && !obj.Exported() {
		return nil, nil, "unexported"
	}
	if obj.Parent() != obj.Pkg().Scope() {
		return nil, nil, fmt.Sprintf("the input %s is declared inside a function; declare it at package level", obj.Name())
	}
	return &ir.TypeRef{PkgPath: obj.Pkg().Path(), Name: obj.Name(), Pointer: ptr}, named, ""
}

// typeRef describes t for the IR.
func (p *parser) typeRef(t types.Type) *ir.TypeRef {
	ptr := false
	base := t
	if pt, ok := t.(*types.Pointer); ok {
		base, ptr = pt.Elem(), true
	}
	if n, ok := types.Unalias(base).(*types.Named); ok && n.Obj().Pkg() != nil && n.TypeArgs().Len() == 0 {
		return &ir.TypeRef{PkgPath: n.Obj().Pkg().Path(), Name: n.Obj().Name(), Pointer: ptr}
	}
	return &ir.TypeRef{Expr: p.typeString(t)}
}

// typeString spells t with package names, as a user reads it.
func (p *parser) typeString(t types.Type) string {
	return types.TypeString(t, func(pkg *types.Package) string { return pkg.Name() })
}

// toolResult classifies a tool's result type.
func (p *parser) toolResult(t types.Type) (ir.ResultKind, bool) {
	switch {
	case t == nil:
		return ir.ResultNone, true
	case isString(t):
		return ir.ResultText, true
	case p.isMCP(t, "CallToolResult", true):
		return ir.ResultCallResult, true
	case p.isContent(t):
		return ir.ResultContent, true
	case isStruct(t):
		return ir.ResultStruct, true
	}
	if s, ok := t.Underlying().(*types.Slice); ok && p.isContent(s.Elem()) {
		return ir.ResultContent, true
	}
	return "", false
}

// resourceResult classifies a resource's result type.
func (p *parser) resourceResult(t types.Type) (ir.ResultKind, bool) {
	switch {
	case t == nil:
		return "", false
	case isString(t):
		return ir.ResultText, true
	case types.Identical(t, types.NewSlice(types.Typ[types.Byte])):
		return ir.ResultBytes, true
	case p.isMCP(t, "ReadResourceResult", true):
		return ir.ResultCallResult, true
	case p.isMCP(t, "ResourceContents", true):
		return ir.ResultContent, true
	case isStruct(t):
		return ir.ResultStruct, true
	}
	if s, ok := t.(*types.Slice); ok && p.isMCP(s.Elem(), "ResourceContents", true) {
		return ir.ResultContent, true
	}
	return "", false
}

// promptResult classifies a prompt's result type.
func (p *parser) promptResult(t types.Type) (ir.ResultKind, bool) {
	switch {
	case t == nil:
		return "", false
	case isString(t):
		return ir.ResultText, true
	case p.isMCP(t, "GetPromptResult", true):
		return ir.ResultCallResult, true
	case p.isMCP(t, "PromptMessage", true):
		return ir.ResultMessages, true
	}
	if s, ok := t.Underlying().(*types.Slice); ok && p.isMCP(s.Elem(), "PromptMessage", true) {
		return ir.ResultMessages, true
	}
	return "", false
}

// isMCP reports whether t is mcp.NAME (or *mcp.NAME when ptr).
func (p *parser) isMCP(t types.Type, name string, ptr bool) bool {
	if ptr {
		pt, ok := t.(*types.Pointer)
		if !ok {
			return false
		}
		t = pt.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == mcpPath && n.Obj().Name() == name
}

// isContent reports whether t implements mcp.Content.
func (p *parser) isContent(t types.Type) bool {
	if p.mcpPkg == nil {
		return false
	}
	obj := p.mcpPkg.Scope().Lookup("Content")
	if obj == nil {
		return false
	}
	iface, ok := obj.Type().Underlying().(*types.Interface)
	return ok && types.Implements(t, iface)
}

func isContext(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "context" && n.Obj().Name() == "Context"
}

func isError(t types.Type) bool { return types.Identical(t, types.Universe.Lookup("error").Type()) }

func isString(t types.Type) bool { return types.Identical(t, types.Typ[types.String]) }

// isStruct reports whether t is a struct type or a pointer to one.
func isStruct(t types.Type) bool {
	_, ok := deref(t).Underlying().(*types.Struct)
	return ok
}

func deref(t types.Type) types.Type {
	if pt, ok := t.(*types.Pointer); ok {
		return pt.Elem()
	}
	return t
}

// findPackage finds the package with import path pkgPath among pkgs and
// their imports.
func findPackage(pkgs []*packages.Package, pkgPath string) *types.Package {
	var found *types.Package
	seen := map[*packages.Package]bool{}
	var visit func(*packages.Package)
	visit = func(pkg *packages.Package) {
		if found != nil || seen[pkg] {
			return
		}
		seen[pkg] = true
		if pkg.PkgPath == pkgPath && pkg.Types != nil {
			found = pkg.Types
			return
		}
		for _, imp := range pkg.Imports {
			visit(imp)
		}
	}
	for _, pkg := range pkgs {
		visit(pkg)
	}
	if found == nil {
		// Export data carries the packages a package's types mention even
		// when the module does not import them directly.
		for _, pkg := range pkgs {
			if pkg.Types == nil {
				continue
			}
			for _, imp := range pkg.Types.Imports() {
				if imp.Path() == pkgPath {
					return imp
				}
			}
		}
	}
	return found
}

// basicKind returns the basic kind name (string, int, int64, bool, float64,
// ...) of a field type a template variable can bind to, or "".
func basicKind(t types.Type) string {
	b, ok := t.Underlying().(*types.Basic)
	if !ok {
		return ""
	}
	switch b.Kind() {
	case types.String, types.Bool,
		types.Int, types.Int8, types.Int16, types.Int32, types.Int64,
		types.Uint, types.Uint8, types.Uint16, types.Uint32, types.Uint64,
		types.Float32, types.Float64:
		return b.Name()
	}
	return ""
}

func fieldNames(names []string) string {
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, ", ")
}
