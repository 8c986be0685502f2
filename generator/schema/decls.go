package schema

import (
	"encoding/json"
	"go/constant"
	"go/token"
	"go/types"
	"reflect"

	"github.com/mcpgen/mcpgen/generator/diag"
	"github.com/mcpgen/mcpgen/generator/ir"
)

// Decls lists the declarations of the module's own code that the schema of
// t is built from — every struct field reachable from t and every constant
// of an enum type a field has that carries a doc — in the order they are reached, each once.
// Fields and constants of packages loaded without syntax (dependencies) are
// left out: their authors, not the user, chose their names and docs.
func (b *Builder) Decls(t types.Type, output bool) []ir.Decl {
	w := &declWalk{b: b, output: output, seen: map[string]bool{}}
	w.walk(t)
	return w.out
}

type declWalk struct {
	b      *Builder
	output bool
	seen   map[string]bool // named types walked
	out    []ir.Decl
}

func (w *declWalk) at(p token.Pos) diag.Pos { return diag.At(w.b.fset, p) }

func (w *declWalk) walk(t types.Type) {
	bd := &build{b: w.b}
	t = types.Unalias(t)
	if bd.special(t) != nil {
		return
	}
	switch t := t.(type) {
	case *types.Named:
		k := typeKey(t)
		if w.seen[k] || bd.marshalsJSON(t) || bd.marshalsText(t) {
			return
		}
		w.seen[k] = true
		if st, ok := t.Underlying().(*types.Struct); ok {
			w.fields(st, t.Obj().Name())
			return
		}
		if b, ok := t.Underlying().(*types.Basic); ok && b.Info()&(types.IsString|types.IsInteger) != 0 {
			w.consts(t)
		}
		w.walk(t.Underlying())
	case *types.Pointer:
		w.walk(t.Elem())
	case *types.Slice:
		w.walk(t.Elem())
	case *types.Array:
		w.walk(t.Elem())
	case *types.Map:
		w.walk(t.Elem())
	case *types.Struct:
		w.fields(t, "struct")
	}
}

func (w *declWalk) fields(st *types.Struct, owner string) {
	for _, f := range jsonFields(st) {
		src, ok := w.b.ix.fields[f.v.Pos()]
		if !ok {
			continue
		}
		ft := types.Unalias(f.v.Type())
		if p, isPtr := ft.(*types.Pointer); isPtr {
			ft = types.Unalias(p.Elem())
		}
		d := ir.Decl{
			Kind:     "field",
			Output:   w.output,
			Owner:    declaringStruct(st, f.index, owner),
			GoName:   f.v.Name(),
			JSONName: f.name,
			Tagged:   f.tagged,
			JSONTag:  reflect.StructTag(f.tag).Get("json"),
			Type:     types.TypeString(f.v.Type(), types.RelativeTo(f.v.Pkg())),
			Doc:      src.doc,
			DocPos:   w.at(src.docPos),
			Pos:      w.at(f.v.Pos()),
		}
		if named, isNamed := ft.(*types.Named); isNamed {
			d.TypeName = named.Obj().Name()
			if d.Doc == "" {
				obj := named.Origin().Obj()
				d.Doc = w.b.ix.types[obj.Pos()]
				if d.Doc != "" {
					d.DocPos = w.at(w.b.ix.docs[obj.Pos()])
					d.TypeDoc = true
				}
			}
		}
		opts, _ := parseTag(reflect.StructTag(f.tag).Get("mcpgen"))
		hasDefault := false
		for _, o := range opts {
			hasDefault = hasDefault || o.Key == "default"
		}
		d.Required = !isPointer(f.v.Type()) && !f.omitEmpty && !f.omitZero && !hasDefault
		w.out = append(w.out, d)
		w.walk(f.v.Type())
	}
}

func (w *declWalk) consts(t *types.Named) {
	obj := t.Origin().Obj()
	for _, c := range w.b.enumConsts(obj) {
		var v string
		switch c.val.Kind() {
		case constant.String:
			b, _ := json.Marshal(constant.StringVal(c.val))
			v = string(b)
		case constant.Int:
			v = c.val.ExactString()
		default:
			continue
		}
		pos := w.b.constPos(obj, c.name)
		if !pos.IsValid() {
			continue
		}
		d := ir.Decl{Kind: "const", Output: w.output, Owner: obj.Name(), GoName: c.name, JSONName: v, Doc: c.doc, Pos: w.at(pos)}
		if c.doc != "" {
			d.DocPos = w.at(w.b.ix.docs[pos])
		}
		w.out = append(w.out, d)
	}
}

// constPos is where the documented constant called name of tn's package is
// declared, or NoPos (undocumented constants say nothing to the model).
func (b *Builder) constPos(tn *types.TypeName, name string) token.Pos {
	if tn.Pkg() == nil {
		return token.NoPos
	}
	c := tn.Pkg().Scope().Lookup(name)
	if c == nil {
		return token.NoPos
	}
	if _, ok := b.ix.consts[c.Pos()]; !ok {
		return token.NoPos
	}
	return c.Pos()
}

// declaringStruct names the struct that declares the field at index of st
// (called owner): an embedded struct's name for a promoted field.
func declaringStruct(st *types.Struct, index []int, owner string) string {
	for _, i := range index[:len(index)-1] {
		t := types.Unalias(st.Field(i).Type())
		if p, ok := t.(*types.Pointer); ok {
			t = types.Unalias(p.Elem())
		}
		if n, ok := t.(*types.Named); ok {
			owner = n.Obj().Name()
		}
		next, ok := t.Underlying().(*types.Struct)
		if !ok {
			break
		}
		st = next
	}
	return owner
}
