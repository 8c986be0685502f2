package argcheck

import (
	"encoding/json"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// The fast check decides whether arguments are valid by scanning their
// bytes once against a tree of checks compiled from the schema, without
// decoding them into a map. It covers the subset of JSON Schema the
// generator emits for tool inputs; a schema using anything else has no
// fast check. It only ever accepts: any doubt (a keyword it would have to
// weigh against another, a number it cannot place, a string with escapes
// where the decoded text matters and decoding fails, a duplicate key where
// counts matter) sends the call to the validator, which then decides and
// words the error. So arguments the fast check accepts are arguments the
// validator accepts, with the same defaults added; refusals and their
// messages stay the validator's.

// fastMaxDepth bounds the scan's recursion (nested values, references and
// anyOf branches together); deeper arguments go to the validator.
const fastMaxDepth = 48

// The JSON types a fast node allows, as bits.
const (
	tNull uint8 = 1 << iota
	tBoolean
	tObject
	tArray
	tNumber
	tInteger
	tString
)

var typeBits = map[string]uint8{
	"null": tNull, "boolean": tBoolean, "object": tObject, "array": tArray,
	"number": tNumber, "integer": tInteger, "string": tString,
}

// The number keywords a fast node has, as bits.
const (
	nMinimum uint8 = 1 << iota
	nMaximum
	nExclMin
	nExclMax
	nMultipleOf
)

// addl is what a fast node says about members its properties do not name.
type addl uint8

const (
	addlAny addl = iota
	addlFalse
	addlSchema
)

// fastNode is one schema compiled for the fast check.
type fastNode struct {
	ref *fastNode
	own bool // has keywords of its own (else only ref and anyOf)

	types uint8 // allowed JSON types; 0 for any

	enum   []scalar
	hasEnm bool
	cnst   *scalar

	num                                      uint8 // number keywords present
	minimum, maximum, exclMin, exclMax, mult float64

	minLen, maxLen int // -1 when absent
	pattern        *regexp.Regexp
	format         *formatRule
	needStr        bool // the decoded string matters
	needNum        bool // the number's value matters

	items              *fastNode
	minItems, maxItems int  // -1 when absent
	unique             bool // uniqueItems, for arrays of strings, numbers, booleans and nulls

	props         []fastProp
	required      uint64 // bits of props
	addl          addl
	addlNode      *fastNode
	propNames     *fastNode
	minProps      int // -1 when absent
	maxProps      int
	countProps    bool
	objectChecked bool // props, required, addl or counts present

	anyOf    []*fastNode
	anyOfFit []fitTypes
}

type fastProp struct {
	name string
	node *fastNode
}

// scalar is an enum or const value: a string, number, boolean or null.
type scalar struct {
	kind uint8 // tString, tNumber, tBoolean or tNull
	str  string
	num  float64
	b    bool
}

// fitTypes is what formats.go's typeFits reads from an anyOf branch: the
// types of the schema at the end of its references, all when it has none.
type fitTypes struct {
	all   bool
	types []string
}

// topDefault is a default the fast check may add at the top level: the
// member as appendDefaults writes it, and whether the validator would
// accept the arguments with it.
type topDefault struct {
	prop   int    // index in the root's props
	member []byte // "name":value
	ok     bool   // the default passes its property's schema, formats included
}

// fastSchema is a schema's fast check.
type fastSchema struct {
	root     *fastNode
	defaults []topDefault // sorted by name, as appendDefaults adds them
}

type compiler struct {
	root    *jsonschema.Schema
	formats bool
	nodes   map[*jsonschema.Schema]*fastNode
	ok      bool
}

// compileFast compiles the fast check of sch, or returns nil when sch uses
// something the fast check does not handle exactly like the validator.
func compileFast(sch *jsonschema.Schema, formats, defaults bool) *fastSchema {
	if sch.Schema != "" && sch.Schema != "https://json-schema.org/draft/2020-12/schema" {
		return nil
	}
	if sch.Ref != "" || sch.AnyOf != nil {
		return nil
	}
	c := &compiler{root: sch, formats: formats, nodes: map[*jsonschema.Schema]*fastNode{}, ok: true}
	root := c.node(sch, true)
	if !c.ok {
		return nil
	}
	fs := &fastSchema{root: root}
	if !defaults {
		return fs
	}
	d := defaulter{root: sch}
	names := make([]string, 0, len(sch.Properties))
	for name := range sch.Properties {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		ps := d.resolve(sch.Properties[name])
		if ps == nil || len(ps.Default) == 0 {
			continue
		}
		var v any
		if json.Unmarshal(ps.Default, &v) != nil {
			continue
		}
		switch v.(type) {
		case map[string]any, []any:
			// The validator's defaults then rewrite the whole object;
			// leave such schemas to it.
			return nil
		}
		kb, err1 := json.Marshal(name)
		vb, err2 := json.Marshal(v)
		if err1 != nil || err2 != nil {
			return nil
		}
		idx := root.prop(name)
		if idx < 0 {
			return nil
		}
		sc := scanner{b: vb}
		ok := sc.check(root.props[idx].node) && sc.end()
		fs.defaults = append(fs.defaults, topDefault{prop: idx, member: append(append(kb, ':'), vb...), ok: ok})
	}
	return fs
}

// supported lists the fields of a schema the fast check reads or may
// ignore; a schema setting any other field has no fast check.
func supported(s *jsonschema.Schema, isRoot bool) bool {
	t := *s
	if isRoot {
		t.Schema, t.Defs = "", nil
	}
	t.Ref, t.Comment = "", ""
	t.Title, t.Description, t.Default, t.Deprecated, t.ReadOnly, t.WriteOnly, t.Examples = "", "", nil, false, false, false, nil
	t.Type, t.Types, t.Enum, t.Const = "", nil, nil, nil
	t.MultipleOf, t.Minimum, t.Maximum, t.ExclusiveMinimum, t.ExclusiveMaximum = nil, nil, nil, nil, nil
	t.MinLength, t.MaxLength, t.Pattern = nil, nil, ""
	t.Items, t.MinItems, t.MaxItems, t.UniqueItems = nil, nil, nil, false
	t.MinProperties, t.MaxProperties, t.Required, t.Properties, t.AdditionalProperties, t.PropertyNames = nil, nil, nil, nil, nil, nil
	t.AnyOf = nil
	t.ContentEncoding, t.ContentMediaType = "", ""
	t.Format = ""
	t.Extra, t.PropertyOrder = nil, nil
	return reflect.ValueOf(t).IsZero()
}

func (c *compiler) fail() *fastNode {
	c.ok = false
	return &fastNode{}
}

func (c *compiler) node(s *jsonschema.Schema, isRoot bool) *fastNode {
	if s == nil {
		return c.fail()
	}
	if n, ok := c.nodes[s]; ok {
		return n
	}
	n := &fastNode{minLen: -1, maxLen: -1, minItems: -1, maxItems: -1, minProps: -1, maxProps: -1}
	c.nodes[s] = n
	if !supported(s, isRoot) {
		return c.fail()
	}
	if s.Ref != "" {
		target := c.refTarget(s.Ref)
		if target == nil {
			return c.fail()
		}
		n.ref = c.node(target, target == c.root)
	}
	if s.Type != "" || s.Types != nil {
		types := s.Types
		if s.Type != "" {
			types = []string{s.Type}
		}
		if len(types) == 0 {
			return c.fail()
		}
		for _, t := range types {
			b, ok := typeBits[t]
			if !ok {
				return c.fail()
			}
			n.types |= b
		}
		n.own = true
	}
	if s.Enum != nil {
		n.hasEnm, n.own = true, true
		for _, e := range s.Enum {
			v, ok := toScalar(e)
			if !ok {
				return c.fail()
			}
			n.enum = append(n.enum, v)
		}
	}
	if s.Const != nil {
		v, ok := toScalar(*s.Const)
		if !ok || v.kind == tNull {
			return c.fail() // "const": null is not told apart from no const
		}
		n.cnst, n.own = &v, true
	}
	for _, k := range []struct {
		p   *float64
		bit uint8
		dst *float64
	}{
		{s.Minimum, nMinimum, &n.minimum}, {s.Maximum, nMaximum, &n.maximum},
		{s.ExclusiveMinimum, nExclMin, &n.exclMin}, {s.ExclusiveMaximum, nExclMax, &n.exclMax},
		{s.MultipleOf, nMultipleOf, &n.mult},
	} {
		if k.p != nil {
			n.num |= k.bit
			*k.dst = *k.p
		}
	}
	if n.num != 0 {
		n.own = true
	}
	if s.MinLength != nil {
		n.minLen, n.own = *s.MinLength, true
	}
	if s.MaxLength != nil {
		n.maxLen, n.own = *s.MaxLength, true
	}
	if s.Pattern != "" {
		re, err := regexp.Compile(s.Pattern)
		if err != nil {
			return c.fail()
		}
		n.pattern, n.own = re, true
	}
	if c.formats && s.Format != "" {
		if f, known := formats[s.Format]; known {
			n.format, n.own = &f, true
		}
	}
	if s.Items != nil {
		n.items, n.own = c.node(s.Items, false), true
	}
	if s.MinItems != nil {
		n.minItems, n.own = *s.MinItems, true
	}
	if s.MaxItems != nil {
		n.maxItems, n.own = *s.MaxItems, true
	}
	if s.UniqueItems {
		n.unique, n.own = true, true
	}
	if len(s.Properties) > 64 {
		return c.fail()
	}
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		n.props = append(n.props, fastProp{name: name, node: c.node(s.Properties[name], false)})
	}
	for _, r := range s.Required {
		i := n.prop(r)
		if i < 0 {
			return c.fail() // required but not a property: left to the validator
		}
		n.required |= 1 << i
	}
	if ap := s.AdditionalProperties; ap != nil {
		if ap.Not != nil && reflect.ValueOf(*ap.Not).IsZero() {
			n.addl = addlFalse // what the validator takes for "false"
		} else {
			n.addl, n.addlNode = addlSchema, c.node(ap, false)
		}
	}
	if s.PropertyNames != nil {
		pn := c.node(s.PropertyNames, false)
		if pn.ref != nil || pn.anyOf != nil {
			return c.fail()
		}
		n.propNames = pn
	}
	if s.MinProperties != nil {
		n.minProps, n.countProps = *s.MinProperties, true
	}
	if s.MaxProperties != nil {
		n.maxProps, n.countProps = *s.MaxProperties, true
	}
	if len(n.props) > 0 || n.required != 0 || n.addl != addlAny || n.propNames != nil || n.countProps {
		n.objectChecked, n.own = true, true
	}
	if s.AnyOf != nil {
		if len(s.AnyOf) == 0 {
			return c.fail()
		}
		for _, b := range s.AnyOf {
			n.anyOf = append(n.anyOf, c.node(b, false))
			n.anyOfFit = append(n.anyOfFit, c.fit(b))
		}
	}
	n.needStr = n.hasEnm || n.cnst != nil || n.minLen >= 0 || n.maxLen >= 0 || n.pattern != nil || n.format != nil
	n.needNum = n.hasEnm || n.cnst != nil || n.num != 0 || (n.types&tInteger != 0 && n.types&tNumber == 0)
	if !n.own && n.ref == nil && n.anyOf == nil {
		n.own = true // an empty schema: any value, still scanned
	}
	return n
}

// refTarget resolves a local reference the way the validator does, for
// the plain forms the generator writes: "#" and "#/$defs/NAME".
func (c *compiler) refTarget(ref string) *jsonschema.Schema {
	if ref == "#" {
		return c.root
	}
	name, ok := strings.CutPrefix(ref, "#/$defs/")
	if !ok || strings.ContainsAny(name, "~%/") {
		return nil
	}
	return c.root.Defs[name]
}

// fit computes what typeFits reads from b.
func (c *compiler) fit(b *jsonschema.Schema) fitTypes {
	s := b
	for i := 0; s != nil && s.Ref != "" && i < 8; i++ {
		s = refTarget(c.root, s.Ref)
	}
	if s == nil {
		return fitTypes{all: true}
	}
	types := slices.Clone(s.Types)
	if s.Type != "" {
		types = append(types, s.Type)
	}
	if len(types) == 0 {
		return fitTypes{all: true}
	}
	return fitTypes{types: types}
}

func (n *fastNode) prop(name string) int {
	for i := range n.props {
		if n.props[i].name == name {
			return i
		}
	}
	return -1
}

func toScalar(v any) (scalar, bool) {
	switch v := v.(type) {
	case nil:
		return scalar{kind: tNull}, true
	case bool:
		return scalar{kind: tBoolean, b: v}, true
	case string:
		return scalar{kind: tString, str: v}, true
	case float64:
		return scalar{kind: tNumber, num: v}, true
	}
	return scalar{}, false
}
