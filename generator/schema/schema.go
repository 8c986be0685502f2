// Package schema turns Go types, with their doc comments and struct tags,
// into JSON Schema 2020-12 documents: the input and output schemas of tools.
// Schemas are computed when code is generated and embedded as constants, so
// the output is deterministic (keywords in a fixed order, properties in field
// order) and compact.
package schema

import (
	"encoding/json"
	"fmt"
	"go/token"
	"go/types"
	"reflect"

	"github.com/mcpgen/mcpgen/generator/diag"
	"golang.org/x/tools/go/packages"
)

// Builder computes schemas for the types of a set of loaded packages. One
// Builder serves a whole generation run; diagnostics about the same field
// are reported once even when several tools share the type.
type Builder struct {
	fset     *token.FileSet
	ix       *index
	enums    map[*types.TypeName][]enumConst
	reported map[string]bool

	jsonMarshaler *types.Interface
	textMarshaler *types.Interface
}

// Field is one JSON-visible field of a struct.
type Field struct {
	Name        string // JSON name
	GoName      string // Go field name
	Description string // from the field's doc or line comment
	Required    bool   // not a pointer, no omitempty/omitzero, no default
	Type        types.Type
	Pos         token.Pos
}

// NewBuilder indexes the loaded packages (their syntax for doc comments,
// their scopes for enum constants). Packages imported by pkgs are indexed
// too when they were loaded with syntax.
func NewBuilder(fset *token.FileSet, pkgs []*packages.Package) *Builder {
	return &Builder{
		fset:          fset,
		ix:            newIndex(pkgs),
		enums:         map[*types.TypeName][]enumConst{},
		reported:      map[string]bool{},
		jsonMarshaler: marshalerIface("MarshalJSON"),
		textMarshaler: marshalerIface("MarshalText"),
	}
}

// marshalerIface builds interface{ NAME() ([]byte, error) }.
func marshalerIface(name string) *types.Interface {
	results := types.NewTuple(
		types.NewVar(token.NoPos, nil, "", types.NewSlice(types.Typ[types.Byte])),
		types.NewVar(token.NoPos, nil, "", types.Universe.Lookup("error").Type()),
	)
	sig := types.NewSignatureType(nil, nil, nil, nil, results, false)
	fn := types.NewFunc(token.NoPos, nil, name, sig)
	iface := types.NewInterfaceType([]*types.Func{fn}, nil)
	iface.Complete()
	return iface
}

// Object returns the JSON Schema 2020-12 of a struct type used as a tool's
// input (root "type":"object", "$schema", "$defs" for named structs that
// recur, "additionalProperties":false). Problems are added to diags at the
// user's source position (at, for a t that is not a struct); ok is false
// when any error was added.
func (b *Builder) Object(t types.Type, at token.Pos, diags *diag.List) (json.RawMessage, bool) {
	return b.object(t, at, diags, false)
}

// Output is Object for a tool's result type: the same rules, except that a
// field encoding/json may write as null (a pointer, slice, map or []byte
// without omitempty/omitzero), and such an element of a slice, array or map,
// also accepts null, so the structured content of a result always matches
// its outputSchema.
func (b *Builder) Output(t types.Type, at token.Pos, diags *diag.List) (json.RawMessage, bool) {
	return b.object(t, at, diags, true)
}

// Types is the schema of Object (or, with output, of Output) for declaring
// the type in TypeScript rather than for validating values: every named
// struct and every named type with enum constants is a "$defs" entry named
// after the Go type (qualified by its package on a clash), so that a struct
// shared by several fields or tools becomes one named interface. Nothing is
// reported: Object and Output report the same problems. It returns nil when
// the type has no schema.
func (b *Builder) Types(t types.Type, output bool) json.RawMessage {
	bd := newBuild(b, output)
	bd.named = true
	n := bd.root(t, token.NoPos)
	if n == nil || bd.diags.HasErrors() {
		return nil
	}
	return json.RawMessage(n.marshal())
}

func newBuild(b *Builder, output bool) *build {
	return &build{b: b, output: output, uses: map[string]int{}, defNames: map[string]string{},
		defs: map[string]*node{}, stack: map[string]bool{}}
}

func (b *Builder) object(t types.Type, at token.Pos, diags *diag.List, output bool) (json.RawMessage, bool) {
	bd := newBuild(b, output)
	n := bd.root(t, at)
	local := bd.diags
	local.Sort()
	for _, d := range local {
		k := d.Pos.String() + "\x00" + d.Message
		if !b.reported[k] {
			b.reported[k] = true
			diags.Add(d)
		}
	}
	if n == nil || local.HasErrors() {
		return nil, false
	}
	return json.RawMessage(n.marshal()), true
}

// Fields lists a struct's JSON-visible fields (embedded ones flattened), for
// prompt arguments and URI template variables. t may be a pointer to a
// struct; other types have no fields.
func (b *Builder) Fields(t types.Type) []Field {
	st := structOf(t)
	if st == nil {
		return nil
	}
	var out []Field
	for _, f := range jsonFields(st) {
		src := b.ix.fields[f.v.Pos()]
		opts, _ := parseTag(reflect.StructTag(f.tag).Get("mcpgen"))
		hasDefault := false
		for _, o := range opts {
			if o.Key == "default" {
				hasDefault = true
			}
		}
		desc := src.doc
		if desc == "" {
			desc = b.typeDoc(f.v.Type())
		}
		out = append(out, Field{
			Name:        f.name,
			GoName:      f.v.Name(),
			Description: desc,
			Required:    !isPointer(f.v.Type()) && !f.omitEmpty && !f.omitZero && !hasDefault,
			Type:        f.v.Type(),
			Pos:         f.v.Pos(),
		})
	}
	return out
}

// structOf returns the struct type of t or *t, or nil.
func structOf(t types.Type) *types.Struct {
	t = types.Unalias(t)
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	st, _ := t.Underlying().(*types.Struct)
	return st
}

func isPointer(t types.Type) bool {
	_, ok := types.Unalias(t).(*types.Pointer)
	return ok
}

// typeDoc is the doc comment of a named type (or a pointer to one).
func (b *Builder) typeDoc(t types.Type) string {
	t = types.Unalias(t)
	if p, ok := t.(*types.Pointer); ok {
		t = types.Unalias(p.Elem())
	}
	if n, ok := t.(*types.Named); ok {
		return b.ix.types[n.Origin().Obj().Pos()]
	}
	return ""
}

// typeKey identifies a named type within one Builder.
func typeKey(n *types.Named) string {
	return fmt.Sprintf("%s@%d", types.TypeString(n, nil), n.Obj().Pos())
}
