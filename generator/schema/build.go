package schema

import (
	"encoding/json"
	"fmt"
	"go/constant"
	"go/token"
	"go/types"
	"math"
	"reflect"
	"regexp"
	"regexp/syntax"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
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
		if n >= 2 && k != bd.rootKey {
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
		return &node{types: []string{"array"}, items: bd.typeNode(t.Elem(), fc)}
	case *types.Array:
		l := int(t.Len())
		return &node{types: []string{"array"}, items: bd.typeNode(t.Elem(), fc), minItems: &l, maxItems: &l}
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
		n.addProps = bd.typeNode(t.Elem(), fc)
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

// options parses the mcpgen tag of a field and reports syntax errors,
// unknown constraints and duplicates.
func (bd *build) options(f jfield, fc *fctx) []option {
	tag, ok := reflect.StructTag(f.tag).Lookup("mcpgen")
	if !ok {
		return nil
	}
	opts, errs := parseTag(tag)
	for _, e := range errs {
		pos := bd.tagPos(fc, e.Off)
		switch e.Kind {
		case "empty":
			bd.errorf(pos, hintEmptyOption, "schema-tag-syntax", msgEmptyOption, fc.name)
		case "unterminated":
			bd.errorf(pos, hintUnterminated, "schema-tag-syntax", msgUnterminated, fc.name)
		case "afterQuote":
			bd.errorf(pos, hintAfterQuote, "schema-tag-syntax", msgAfterQuote, e.Text, fc.name)
		}
	}
	names := constraintNames()
	seen := map[string]bool{}
	var out []option
	for i, o := range opts {
		if _, ok := constraints[o.Key]; !ok {
			hint := fmt.Sprintf(hintOptions, strings.Join(names, ", "))
			if i > 0 {
				prev := opts[i-1]
				if c := constraints[prev.Key]; prev.HasValue && !prev.Quoted && (c.value == valText || c.value == valTyped || c.value == valTypedList) {
					hint = fmt.Sprintf(hintQuoteValue, o.Key, prev.Key, prev.Key)
				}
			}
			bd.errorf(bd.tagPos(fc, o.Off), hint, "schema-unknown-constraint", msgUnknownOption, o.Key, fc.name, didYouMean(o.Key, constraintKeys()))
			continue
		}
		canon := o.Key
		if c, ok := canonical[canon]; ok {
			canon = c
		}
		if seen[canon] {
			bd.errorf(bd.tagPos(fc, o.Off), hintDuplicate, "schema-duplicate-constraint", msgDuplicate, o.Key, fc.name)
			continue
		}
		seen[canon] = true
		o.Key = canon
		out = append(out, o)
	}
	// type= first: the other constraints depend on the JSON type it sets.
	slices.SortStableFunc(out, func(a, b option) int {
		switch {
		case a.Key == "type" && b.Key != "type":
			return -1
		case b.Key == "type" && a.Key != "type":
			return 1
		}
		return 0
	})
	return out
}

// tagPos is the source position of byte off of the field's mcpgen tag value.
// It is exact for raw-string tags without backslashes, and the start of the
// tag otherwise.
func (bd *build) tagPos(fc *fctx, off int) token.Pos {
	lit := fc.src.tagLit
	if lit == "" || !fc.src.tagPos.IsValid() {
		return fc.pos
	}
	if lit[0] != '`' {
		return fc.src.tagPos
	}
	i := 0
	for {
		j := strings.Index(lit[i:], `mcpgen:"`)
		if j < 0 {
			return fc.src.tagPos
		}
		i += j
		if i == 1 || lit[i-1] == ' ' || lit[i-1] == '\t' {
			break
		}
		i++
	}
	start := i + len(`mcpgen:"`)
	end := start
	for end < len(lit) && lit[end] != '"' {
		if lit[end] == '\\' {
			return fc.src.tagPos + token.Pos(i)
		}
		end++
	}
	if off > end-start {
		off = end - start
	}
	return fc.src.tagPos + token.Pos(start+off)
}

// jsonKind names the JSON type of a schema for messages.
func jsonKind(n *node) string {
	switch {
	case n.ref != "":
		return "object"
	case len(n.types) == 0:
		return "any value"
	}
	return strings.Join(n.types, " or ")
}

func fits(n *node, a applies) bool {
	t := n.jsonType()
	switch a {
	case toAny:
		return true
	case toNumber:
		return t == "integer" || t == "number"
	case toString:
		return t == "string"
	case toArray:
		return t == "array"
	case toObject:
		return t == "object"
	case toScalar:
		return t == "string" || t == "integer" || t == "number" || t == "boolean"
	case toUntyped:
		return n.untyped()
	}
	return false
}

// target finds the schema a constraint applies to: the field's own, or, when
// it does not fit an array or map, that of its elements.
func target(n *node, a applies) *node {
	for n != nil {
		if fits(n, a) {
			return n
		}
		switch n.jsonType() {
		case "array":
			n = n.items
		case "object":
			n = n.addProps
		default:
			return nil
		}
	}
	return nil
}

// apply applies the constraints of a field's tag to its schema and reports
// whether it has a default.
func (bd *build) apply(fn *node, opts []option, fc *fctx) (hasDefault bool) {
	type bound struct {
		key, text string
		v         float64
	}
	bounds := map[*node]map[string]bound{}
	for _, o := range opts {
		c := constraints[o.Key]
		pos := bd.tagPos(fc, o.Off)
		vpos := bd.tagPos(fc, o.ValOff)
		if !o.HasValue || o.Value == "" {
			if c.value != valFlag && !(o.HasValue && (c.value == valTyped || c.value == valTypedList)) {
				bd.errorf(pos, fmt.Sprintf(hintMissingValue, o.Key), "schema-missing-value", msgMissingValue, o.Key, fc.name)
				continue
			}
		}
		flag := true
		if c.value == valFlag && o.HasValue {
			switch o.Value {
			case "true":
			case "false":
				flag = false
			default:
				bd.errorf(vpos, fmt.Sprintf(hintFlagValue, o.Key, o.Key), "schema-bad-value", msgFlagValue, o.Key, fc.name, o.Value)
				continue
			}
		}
		t := target(fn, c.applies)
		if t == nil && o.Key == "type" {
			bd.errorf(pos, fmt.Sprintf(hintTypeNotAny, o.Value), "schema-not-applicable", msgTypeNotAny,
				o.Value, fc.name, bd.qualify(fn.gtOr()), jsonKind(fn))
			continue
		}
		if t == nil {
			bd.errorf(pos, fmt.Sprintf(hintNotApplicable, o.Key, c.applies), "schema-not-applicable", msgNotApplicable,
				o.Key, fc.name, bd.qualify(fn.gtOr()), jsonKind(fn))
			continue
		}
		switch o.Key {
		case "min", "max", "exclusiveMin", "exclusiveMax", "multipleOf":
			text, v, ok := jsonNumber(o.Value)
			if !ok {
				bd.errorf(vpos, fmt.Sprintf(hintBadNumber, o.Key, o.Key), "schema-bad-value", msgBadNumber, o.Key, o.Value, fc.name)
				continue
			}
			if o.Key == "multipleOf" {
				if v <= 0 {
					bd.errorf(vpos, fmt.Sprintf(hintBadNumber, o.Key, o.Key), "schema-bad-value", msgBadMultipleOf, o.Value, fc.name)
					continue
				}
				t.multipleOf = text
				continue
			}
			if v < 0 && unsigned(t.gt) && (o.Key == "max" || o.Key == "exclusiveMax") {
				bd.errorf(vpos, hintNegativeUint, "schema-bad-value", msgNegativeUint, o.Key, text, fc.name)
				continue
			}
			if bounds[t] == nil {
				bounds[t] = map[string]bound{}
			}
			bounds[t][o.Key] = bound{o.Key, text, v}
			switch o.Key {
			case "min":
				if v < 0 && unsigned(t.gt) {
					bd.errorf(vpos, hintNegativeUint, "schema-bad-value", msgNegativeUint, o.Key, text, fc.name)
					continue
				}
				t.minimum = text
			case "max":
				t.maximum = text
			case "exclusiveMin":
				t.exclMin = text
				if unsigned(t.gt) && t.minimum == "0" && v >= 0 {
					t.minimum = ""
				}
			case "exclusiveMax":
				t.exclMax = text
			}
		case "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties":
			v, err := strconv.Atoi(o.Value)
			if err != nil || v < 0 {
				bd.errorf(vpos, fmt.Sprintf(hintBadCount, o.Key), "schema-bad-value", msgBadCount, o.Key, o.Value, fc.name)
				continue
			}
			if bounds[t] == nil {
				bounds[t] = map[string]bound{}
			}
			bounds[t][o.Key] = bound{o.Key, o.Value, float64(v)}
			switch o.Key {
			case "minLength":
				t.minLength = &v
			case "maxLength":
				t.maxLength = &v
			case "minItems":
				t.minItems = &v
			case "maxItems":
				t.maxItems = &v
			case "minProperties":
				t.minProps = &v
			case "maxProperties":
				t.maxProps = &v
			}
		case "pattern":
			if bd.checkPattern(o.Value, vpos, fc) {
				t.pattern = o.Value
			}
		case "format":
			if !slices.Contains(formats, o.Value) {
				bd.errorf(vpos, fmt.Sprintf(hintFormats, strings.Join(formats, ", ")), "schema-unknown-format",
					msgUnknownFormat, o.Value, fc.name, didYouMean(o.Value, formats))
				continue
			}
			t.format = o.Value
		case "uniqueItems":
			t.uniqueItems = flag
		case "deprecated":
			t.deprecated = flag
		case "readOnly":
			t.readOnly = flag
		case "writeOnly":
			t.writeOnly = flag
		case "title":
			t.title = o.Value
		case "description":
			t.desc = o.Value
		case "type":
			if !slices.Contains(jsonTypes, o.Value) {
				bd.errorf(vpos, hintTypes, "schema-bad-value", msgBadType, o.Value, fc.name, didYouMean(o.Value, jsonTypes))
				continue
			}
			t.types = []string{o.Value}
		case "enum", "examples":
			var vals []json.RawMessage
			ok := true
			for _, s := range strings.Split(o.Value, "|") {
				v, err := typedValue(t, s)
				if err != "" {
					bd.errorf(vpos, err, "schema-bad-value", msgBadValue, o.Key+" value", s, fc.name, jsonKind(t))
					ok = false
					continue
				}
				vals = append(vals, v)
			}
			if !ok {
				continue
			}
			if o.Key == "enum" {
				t.enum = vals
				t.notes = ""
			} else {
				t.examples = append(t.examples, vals...)
				for _, v := range vals {
					bd.checks = append(bd.checks, check{what: "example", n: t, val: v, pos: vpos, fc: fc})
				}
			}
		case "const", "default", "example":
			v, err := typedValue(t, o.Value)
			if err != "" {
				bd.errorf(vpos, err, "schema-bad-value", msgBadValue, o.Key, o.Value, fc.name, jsonKind(t))
				continue
			}
			switch o.Key {
			case "const":
				t.cnst = v
			case "default":
				t.dflt = v
				hasDefault = true
				bd.checks = append(bd.checks, check{what: "default", n: t, val: v, pos: vpos, fc: fc})
			case "example":
				t.examples = append(t.examples, v)
				bd.checks = append(bd.checks, check{what: "example", n: t, val: v, pos: vpos, fc: fc})
			}
		}
	}
	for _, bs := range bounds {
		for _, pair := range [][2]string{{"min", "max"}, {"exclusiveMin", "exclusiveMax"}, {"min", "exclusiveMax"}, {"exclusiveMin", "max"},
			{"minLength", "maxLength"}, {"minItems", "maxItems"}, {"minProperties", "maxProperties"}} {
			lo, ok1 := bs[pair[0]]
			hi, ok2 := bs[pair[1]]
			if ok1 && ok2 && lo.v > hi.v {
				bd.errorf(fc.src.tagPos, hintRange, "schema-bad-range", msgRange, lo.key, lo.text, fc.name, hi.key, hi.text)
			}
		}
	}
	return hasDefault
}

func (n *node) gtOr() types.Type {
	if n.gt != nil {
		return n.gt
	}
	return types.Typ[types.Invalid]
}

func unsigned(t types.Type) bool {
	if t == nil {
		return false
	}
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsUnsigned != 0
}

var jsonNumberRE = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// jsonNumber parses a number in a tag and returns its JSON text.
func jsonNumber(s string) (string, float64, bool) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return "", 0, false
	}
	if jsonNumberRE.MatchString(s) {
		return s, v, true
	}
	return strconv.FormatFloat(v, 'g', -1, 64), v, true
}

// typedValue converts a tag value to JSON of the schema's type. The error is
// a hint saying how to write the value.
func typedValue(n *node, s string) (json.RawMessage, string) {
	if isNamed(n.gt, "time", "Duration") {
		if d, err := time.ParseDuration(s); err == nil {
			return json.RawMessage(strconv.FormatInt(int64(d), 10)), ""
		}
		if v, err := strconv.ParseInt(s, 10, 64); err == nil {
			return json.RawMessage(strconv.FormatInt(v, 10)), ""
		}
		return nil, "write a Go duration such as 30s or 1h30m"
	}
	if isNamed(n.gt, "time", "Time") {
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			return nil, "write an RFC 3339 time such as 2026-01-02T15:04:05Z"
		}
	}
	switch n.jsonType() {
	case "string":
		b, _ := json.Marshal(s)
		return b, ""
	case "integer":
		if unsigned(n.gt) {
			if v, err := strconv.ParseUint(s, 10, 64); err == nil {
				return json.RawMessage(strconv.FormatUint(v, 10)), ""
			}
			return nil, "write a whole number of 0 or more"
		}
		if v, err := strconv.ParseInt(s, 10, 64); err == nil {
			return json.RawMessage(strconv.FormatInt(v, 10)), ""
		}
		return nil, "write a whole number such as 10"
	case "number":
		if text, _, ok := jsonNumber(s); ok {
			return json.RawMessage(text), ""
		}
		return nil, "write a number such as 1.5"
	case "boolean":
		if s == "true" || s == "false" {
			return json.RawMessage(s), ""
		}
		return nil, "write true or false"
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return nil, `write a JSON value, quoted in the tag when it contains commas: default='["a","b"]'`
	}
	b, _ := json.Marshal(v)
	return b, ""
}

func isNamed(t types.Type, pkg, name string) bool {
	if t == nil {
		return false
	}
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == pkg && n.Obj().Name() == name
}

// checkPattern reports whether p is a regular expression that both Go (the
// runtime's validator) and ECMA-262 (JSON Schema's dialect) read the same way.
func (bd *build) checkPattern(p string, pos token.Pos, fc *fctx) bool {
	if _, err := syntax.Parse(p, syntax.Perl); err != nil {
		msg := err.Error()
		if e, ok := err.(*syntax.Error); ok {
			msg = fmt.Sprintf("%s: %s", e.Code, e.Expr)
		}
		bd.errorf(pos, hintBadPattern, "schema-bad-pattern", msgBadPattern, p, fc.name, msg)
		return false
	}
	if what := goOnlyRegexp(p); what != "" {
		bd.errorf(pos, hintGoOnlyPattern, "schema-bad-pattern", msgGoOnlyPattern, p, fc.name, what)
		return false
	}
	return true
}

// goOnlyRegexp names a construct of p that Go's regexp has and ECMA-262 does
// not, or returns "".
func goOnlyRegexp(p string) string {
	inClass := false
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '\\' && i+1 < len(p):
			switch p[i+1] {
			case 'A', 'z':
				return `\` + string(p[i+1]) + " (text anchors)"
			case 'Q', 'E':
				return `\Q...\E (literal text)`
			case 'C':
				return `\C (any byte)`
			case 'p', 'P':
				return `\` + string(p[i+1]) + "{...} (Unicode classes need ECMA-262's u flag)"
			}
			i++
		case inClass:
			if c == ']' {
				inClass = false
			} else if c == '[' && i+1 < len(p) && p[i+1] == ':' {
				return "[[:class:]] (POSIX classes)"
			}
		case c == '[':
			inClass = true
			if i+1 < len(p) && p[i+1] == ']' {
				i++ // "[]...]": the first ] is literal in Go
			} else if i+2 < len(p) && p[i+1] == '^' && p[i+2] == ']' {
				i += 2
			}
		case c == '(' && i+1 < len(p) && p[i+1] == '?':
			if i+2 < len(p) {
				switch p[i+2] {
				case ':':
				case 'P':
					return "(?P<name>...) (write (?<name>...))"
				case '<':
				default:
					return "(?flags) (inline flags)"
				}
			}
		}
	}
	return ""
}

// runChecks validates defaults and examples against the field schemas they
// belong to, within the finished document (so $refs resolve).
func (bd *build) runChecks(root *node) {
	for _, c := range bd.checks {
		if c.n.ref == "#" {
			continue
		}
		v := *c.n
		v.dflt, v.examples = nil, nil
		v.schema = true
		v.defs = root.defs
		var s jsonschema.Schema
		if err := json.Unmarshal(v.marshal(), &s); err != nil {
			bd.errorf(c.pos, hintBadSchema, "schema-invalid", msgBadSchema, c.fc.name, err)
			continue
		}
		rs, err := s.Resolve(nil)
		if err != nil {
			bd.errorf(c.pos, hintBadSchema, "schema-invalid", msgBadSchema, c.fc.name, err)
			continue
		}
		var inst any
		if err := json.Unmarshal(c.val, &inst); err != nil {
			continue // typedValue produced it; cannot happen
		}
		if msg := violation(c.n, inst); msg != "" {
			bd.errorf(c.pos, hintBadDefault, "schema-bad-"+c.what, msgBadDefault, c.what+" "+string(c.val), c.fc.name, msg)
			continue
		}
		if err := rs.Validate(inst); err != nil {
			msg := err.Error()
			if i := strings.LastIndex(msg, ": "); i >= 0 && strings.HasPrefix(msg, "validating") {
				msg = msg[i+2:]
			}
			bd.errorf(c.pos, hintBadDefault, "schema-bad-"+c.what, msgBadDefault, c.what+" "+string(c.val), c.fc.name, msg)
		}
	}
}
