package schema

import (
	"encoding/json"
	"fmt"
	"go/constant"
	"go/token"
	"go/types"
	"sort"
	"strings"

	"github.com/mcpgen/mcpgen/generator/diag"
)

// build is the state of one Object or Output call.
type build struct {
	b      *Builder
	diags  diag.List
	output bool

	rootKey  string
	uses     map[string]int    // named struct → references reachable from the root
	defNames map[string]string // named struct → its $defs name
	defTypes map[string]*types.Named
	defs     map[string]*node
	stack    map[string]bool // named types being built (recursion guard)
	checks   []check

	// named: every named struct, and every named type with enum constants,
	// goes to $defs (the schema for TypeScript declarations, see Types).
	named bool
}

// fctx is the field a schema is being built for, for messages and tags.
type fctx struct {
	name     string // Owner.Field
	pos      token.Pos
	src      fieldSrc
	typeSet  bool // the tag declares type=, so untyped values are intended
	quoted   bool
	typeName string
}

// check is a tag value validated against the finished schema.
type check struct {
	what string // "default" or "example"
	n    *node
	val  json.RawMessage
	pos  token.Pos
	fc   *fctx
}

func (bd *build) errorf(pos token.Pos, hint, code, format string, args ...any) {
	bd.diags.Errorf(diag.At(bd.b.fset, pos), code, hint, format, args...)
}

func (bd *build) warnf(pos token.Pos, hint, code, format string, args ...any) {
	bd.diags.Warnf(diag.At(bd.b.fset, pos), code, hint, format, args...)
}

func (bd *build) qualify(t types.Type) string {
	return types.TypeString(t, func(p *types.Package) string { return p.Name() })
}

func (bd *build) root(t types.Type, at token.Pos) *node {
	t = types.Unalias(t)
	if p, ok := t.(*types.Pointer); ok {
		t = types.Unalias(p.Elem())
	}
	st, ok := t.Underlying().(*types.Struct)
	if !ok {
		bd.errorf(at, hintNotStruct, "schema-not-struct", msgNotStruct, bd.qualify(t))
		return nil
	}
	if bd.special(t) != nil || bd.marshalsJSON(t) || bd.marshalsText(t) {
		bd.errorf(at, hintNotStruct, "schema-not-struct", msgRootEncodes, bd.qualify(t))
		return nil
	}
	owner := "struct"
	named, _ := t.(*types.Named)
	if named != nil {
		bd.rootKey = typeKey(named)
		owner = named.Obj().Name()
	}
	bd.countStruct(st, map[string]bool{})
	bd.nameDefs()
	n := bd.structNode(st, owner)
	n.schema = true
	if named != nil {
		n.desc = bd.b.typeDoc(named)
		bd.stack[bd.rootKey] = true
	}
	if len(bd.defNames) > 0 {
		keys := make([]string, 0, len(bd.defNames))
		for k := range bd.defNames {
			if bd.defs[k] != nil {
				keys = append(keys, k)
			}
		}
		sort.Slice(keys, func(i, j int) bool { return bd.defNames[keys[i]] < bd.defNames[keys[j]] })
		for _, k := range keys {
			n.defs = append(n.defs, def{name: bd.defNames[k], n: bd.defs[k]})
		}
	}
	bd.checkHeaders(n)
	bd.runChecks(n)
	return n
}

// count records how often each named struct is referenced, so that structs
// used once are inlined and the others (and recursive ones) go to $defs.
func (bd *build) count(t types.Type, inNamed map[string]bool) {
	t = types.Unalias(t)
	switch t := t.(type) {
	case *types.Named:
		if bd.special(t) != nil || bd.marshalsJSON(t) || bd.marshalsText(t) {
			return
		}
		k := typeKey(t)
		if st, ok := t.Underlying().(*types.Struct); ok {
			bd.uses[k]++
			if bd.uses[k] == 1 && k != bd.rootKey {
				bd.defTypes = mapSet(bd.defTypes, k, t)
				bd.countStruct(st, inNamed)
			}
			return
		}
		if inNamed[k] {
			return
		}
		inNamed[k] = true
		bd.count(t.Underlying(), inNamed)
		delete(inNamed, k)
	case *types.Pointer:
		bd.count(t.Elem(), inNamed)
	case *types.Slice:
		bd.count(t.Elem(), inNamed)
	case *types.Array:
		bd.count(t.Elem(), inNamed)
	case *types.Map:
		bd.count(t.Elem(), inNamed)
	case *types.Struct:
		bd.countStruct(t, inNamed)
	}
}

func mapSet(m map[string]*types.Named, k string, t *types.Named) map[string]*types.Named {
	if m == nil {
		m = map[string]*types.Named{}
	}
	m[k] = t
	return m
}

func (bd *build) countStruct(st *types.Struct, inNamed map[string]bool) {
	for _, f := range jsonFields(st) {
		bd.count(f.v.Type(), inNamed)
	}
}

// nameDefs names the $defs entries: the type name (with type arguments for
// generic instances); on a clash, the package name is prefixed; if that still
// clashes, the import path is.
func (bd *build) nameDefs() {
	var keys []string
	for k, n := range bd.uses {
		if (n >= 2 || bd.named) && k != bd.rootKey {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	level := func(t *types.Named, l int) string {
		name := defBase(t)
		pkg := t.Obj().Pkg()
		switch {
		case l == 0 || pkg == nil:
			return name
		case l == 1:
			return pkg.Name() + "." + name
		}
		return sanitize(pkg.Path()) + "." + name
	}
	for l := 0; l < 3 && len(keys) > 0; l++ {
		groups := map[string][]string{}
		for _, k := range keys {
			name := level(bd.defTypes[k], l)
			groups[name] = append(groups[name], k)
		}
		var rest []string
		for name, ks := range groups {
			if len(ks) == 1 || l == 2 {
				for i, k := range ks {
					n := name
					if i > 0 {
						n = fmt.Sprintf("%s-%d", name, i+1)
					}
					bd.defNames[k] = n
				}
				continue
			}
			rest = append(rest, ks...)
		}
		sort.Strings(rest)
		keys = rest
	}
}

func defBase(t *types.Named) string {
	name := t.Obj().Name()
	if args := t.TypeArgs(); args != nil {
		for i := range args.Len() {
			a := types.Unalias(args.At(i))
			for {
				p, ok := a.(*types.Pointer)
				if !ok {
					break
				}
				a = types.Unalias(p.Elem())
			}
			if n, ok := a.(*types.Named); ok {
				name += "-" + defBase(n)
			} else {
				name += "-" + sanitize(types.TypeString(a, func(p *types.Package) string { return p.Name() }))
			}
		}
	}
	return name
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-', r == '.':
			return r
		}
		return '_'
	}, s)
}

// special maps the standard library types encoding/json treats specially.
func (bd *build) special(t types.Type) *node {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() == nil {
		return nil
	}
	switch n.Obj().Pkg().Path() + "." + n.Obj().Name() {
	case "time.Time":
		return &node{types: []string{"string"}, format: "date-time", gt: t}
	case "time.Duration":
		// encoding/json writes a Duration as its integer nanoseconds.
		return &node{types: []string{"integer"}, notes: "Duration in nanoseconds.", gt: t}
	case "encoding/json.RawMessage":
		return &node{gt: t} // any JSON value, by design
	case "encoding/json.Number":
		return &node{types: []string{"number"}, gt: t}
	}
	return nil
}

func (bd *build) implements(t types.Type, iface *types.Interface) bool {
	if _, isIface := t.Underlying().(*types.Interface); isIface {
		return false
	}
	return types.Implements(t, iface) || types.Implements(types.NewPointer(t), iface)
}

func (bd *build) marshalsJSON(t types.Type) bool { return bd.implements(t, bd.b.jsonMarshaler) }
func (bd *build) marshalsText(t types.Type) bool { return bd.implements(t, bd.b.textMarshaler) }

// typeNode builds the schema of a Go type; fc is the field it belongs to.
func (bd *build) typeNode(t types.Type, fc *fctx) *node {
	n := bd.typeNode0(t, fc)
	if n.gt == nil {
		n.gt = t
	}
	return n
}

func (bd *build) unsupported(fc *fctx, t types.Type, why string) *node {
	bd.errorf(fc.pos, hintUnsupported, "schema-unsupported-type", msgUnsupported, fc.name, bd.qualify(t), why)
	return &node{}
}

func (bd *build) typeNode0(t types.Type, fc *fctx) *node {
	t = types.Unalias(t)
	if n := bd.special(t); n != nil {
		return n
	}
	switch t := t.(type) {
	case *types.Named:
		if bd.marshalsJSON(t) {
			if !fc.typeSet {
				bd.warnf(fc.pos, hintMarshaler, "schema-marshaler", msgMarshaler, fc.name, bd.qualify(t))
			}
			return &node{desc: bd.b.typeDoc(t)}
		}
		if bd.marshalsText(t) {
			return &node{types: []string{"string"}, desc: bd.b.typeDoc(t)}
		}
		if st, ok := t.Underlying().(*types.Struct); ok {
			return bd.structRef(t, st)
		}
		k := typeKey(t)
		if bd.stack[k] {
			bd.errorf(fc.pos, hintRecursiveType, "schema-recursive-type", msgRecursiveType, fc.name, bd.qualify(t))
			return &node{}
		}
		bd.stack[k] = true
		n := bd.typeNode(t.Underlying(), fc)
		delete(bd.stack, k)
		n.gt = t
		if n.desc == "" {
			n.desc = bd.b.typeDoc(t)
		}
		if b, ok := t.Underlying().(*types.Basic); ok && b.Info()&(types.IsString|types.IsInteger) != 0 {
			bd.enum(n, t)
			if bd.named && len(n.enum) > 0 {
				return bd.enumRef(t, n)
			}
		}
		return n
	case *types.Pointer:
		return bd.typeNode(t.Elem(), fc)
	case *types.Basic:
		return bd.basic(t, fc)
	case *types.Slice:
		if b, ok := types.Unalias(t.Elem()).(*types.Basic); ok && b.Kind() == types.Uint8 {
			return &node{types: []string{"string"}, contentEnc: "base64"}
		}
		if b, ok := t.Elem().Underlying().(*types.Basic); ok && b.Kind() == types.Uint8 &&
			!bd.marshalsJSON(t.Elem()) && !bd.marshalsText(t.Elem()) {
			return &node{types: []string{"string"}, contentEnc: "base64"}
		}
		return &node{types: []string{"array"}, items: bd.elemNode(t.Elem(), fc)}
	case *types.Array:
		l := int(t.Len())
		return &node{types: []string{"array"}, items: bd.elemNode(t.Elem(), fc), minItems: &l, maxItems: &l}
	case *types.Map:
		n := &node{types: []string{"object"}}
		key := types.Unalias(t.Key())
		switch kb, _ := key.Underlying().(*types.Basic); {
		case kb != nil && kb.Info()&types.IsString != 0:
		case bd.marshalsText(key):
		case kb != nil && kb.Info()&types.IsInteger != 0:
			pat := "^-?[0-9]+$"
			if kb.Info()&types.IsUnsigned != 0 {
				pat = "^[0-9]+$"
			}
			n.propNames = &node{pattern: pat}
		default:
			bd.errorf(fc.pos, hintBadMapKey, "schema-map-key", msgBadMapKey, fc.name, bd.qualify(t))
		}
		n.addProps = bd.elemNode(t.Elem(), fc)
		return n
	case *types.Struct:
		return bd.structNode(t, fc.typeName)
	case *types.Interface:
		if t.NumMethods() == 0 || bd.output {
			return &node{} // any JSON value, by design
		}
		return bd.unsupported(fc, t, "is an interface with methods that JSON cannot decode into")
	case *types.Chan:
		return bd.unsupported(fc, t, "is a channel, which JSON cannot encode")
	case *types.Signature:
		return bd.unsupported(fc, t, "is a function, which JSON cannot encode")
	case *types.TypeParam:
		bd.errorf(fc.pos, hintTypeParam, "schema-type-param", msgTypeParam, fc.name, bd.qualify(t))
		return &node{}
	}
	return bd.unsupported(fc, t, "has no JSON form")
}

// elemNode is the schema of a slice, array or map element. In an output
// schema a nil pointer, slice or map element is written as null, so it
// accepts null too.
func (bd *build) elemNode(t types.Type, fc *fctx) *node {
	n := bd.typeNode(t, fc)
	if bd.output && nilable(t) {
		nullable(n)
	}
	return n
}

func (bd *build) basic(t *types.Basic, fc *fctx) *node {
	info := t.Info()
	switch {
	case info&types.IsBoolean != 0:
		return &node{types: []string{"boolean"}}
	case info&types.IsInteger != 0:
		n := &node{types: []string{"integer"}}
		if info&types.IsUnsigned != 0 {
			n.minimum = "0"
		}
		return n
	case info&types.IsFloat != 0:
		return &node{types: []string{"number"}}
	case info&types.IsString != 0:
		return &node{types: []string{"string"}}
	case info&types.IsComplex != 0:
		return bd.unsupported(fc, t, "is a complex number, which JSON cannot encode")
	}
	return bd.unsupported(fc, t, "has no JSON form")
}

// enum adds the constants declared for a named string or integer type.
func (bd *build) enum(n *node, t *types.Named) {
	cs := bd.b.enumConsts(t.Origin().Obj())
	if len(cs) == 0 {
		return
	}
	seen := map[string]bool{}
	var notes []string
	documented := false
	for _, c := range cs {
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
		if seen[v] {
			continue
		}
		seen[v] = true
		n.enum = append(n.enum, json.RawMessage(v))
		line := "- " + v
		if c.doc != "" {
			documented = true
			line += ": " + strings.ReplaceAll(c.doc, "\n\n", " ")
		}
		notes = append(notes, line)
	}
	if documented {
		n.notes = "Values:\n" + strings.Join(notes, "\n")
	}
}

// structRef is the schema of a named struct where it is used: a $ref when it
// recurs or is used more than once, the struct itself otherwise.
func (bd *build) structRef(t *types.Named, st *types.Struct) *node {
	k := typeKey(t)
	if k == bd.rootKey {
		return &node{ref: "#"}
	}
	if name, ok := bd.defNames[k]; ok {
		if bd.defs[k] == nil && !bd.stack[k] {
			bd.stack[k] = true
			d := bd.structNode(st, t.Obj().Name())
			d.desc = bd.b.typeDoc(t)
			bd.defs[k] = d
			delete(bd.stack, k)
		}
		return &node{ref: "#/$defs/" + pointerEscape(name)}
	}
	if bd.stack[k] {
		// Counting mirrors building, so this does not happen; stay finite anyway.
		return &node{}
	}
	bd.stack[k] = true
	n := bd.structNode(st, t.Obj().Name())
	delete(bd.stack, k)
	n.desc = bd.b.typeDoc(t)
	return n
}

// enumRef puts the schema n of a named enum type into $defs (in the named
// mode only) and returns a reference to it. The $defs name is the type's
// name, qualified by its package, then its import path, when taken.
func (bd *build) enumRef(t *types.Named, n *node) *node {
	k := typeKey(t)
	name, ok := bd.defNames[k]
	if !ok {
		taken := map[string]bool{}
		for _, v := range bd.defNames {
			taken[v] = true
		}
		name = defBase(t)
		if pkg := t.Obj().Pkg(); pkg != nil {
			for _, alt := range []string{pkg.Name() + "." + name, sanitize(pkg.Path()) + "." + name} {
				if !taken[name] {
					break
				}
				name = alt
			}
		}
		for i := 2; taken[name]; i++ {
			name = fmt.Sprintf("%s-%d", defBase(t), i)
		}
		bd.defNames[k] = name
		bd.defs[k] = n
	}
	return &node{ref: "#/$defs/" + pointerEscape(name), gt: t}
}

func pointerEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// structNode builds an object schema with one property per JSON field.
func (bd *build) structNode(st *types.Struct, owner string) *node {
	n := &node{types: []string{"object"}, props: []prop{}, closed: true}
	for _, f := range jsonFields(st) {
		fc := &fctx{
			name:     owner + "." + f.v.Name(),
			pos:      f.v.Pos(),
			src:      bd.b.ix.fields[f.v.Pos()],
			quoted:   f.quoted,
			typeName: owner,
		}
		opts := bd.options(f, fc)
		for _, o := range opts {
			if o.Key == "type" {
				fc.typeSet = true
			}
		}
		var fn *node
		if f.quoted {
			// ,string: encoding/json writes the value inside a JSON string.
			fn = &node{types: []string{"string"}, gt: types.Typ[types.String]}
		} else {
			fn = bd.typeNode(f.v.Type(), fc)
		}
		if fc.src.doc != "" {
			fn.desc = fc.src.doc
		}
		hasDefault := bd.apply(fn, opts, fc)
		if bd.output && !f.omitEmpty && !f.omitZero && nilable(f.v.Type()) {
			nullable(fn)
		}
		n.props = append(n.props, prop{name: f.name, n: fn})
		if !isPointer(f.v.Type()) && !f.omitEmpty && !f.omitZero && !hasDefault {
			n.required = append(n.required, f.name)
		}
	}
	return n
}

// nilable reports whether encoding/json may write a value of t as null.
func nilable(t types.Type) bool {
	switch types.Unalias(t).Underlying().(type) {
	case *types.Pointer, *types.Slice, *types.Map, *types.Interface:
		return true
	}
	return false
}

// nullable lets n also accept null.
func nullable(n *node) {
	switch {
	case n.ref != "":
		n.anyOf = []*node{{ref: n.ref}, {types: []string{"null"}}}
		n.ref = ""
	case len(n.types) > 0:
		n.types = append(n.types, "null")
		if n.enum != nil {
			n.enum = append(n.enum, json.RawMessage("null"))
		}
	}
}
