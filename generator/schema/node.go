package schema

import (
	"bytes"
	"encoding/json"
	"go/token"
	"go/types"
	"strconv"
)

// node is one JSON Schema in the making. Its keywords are written in a fixed
// order (see write), so the same Go types always give the same bytes.
type node struct {
	schema bool // write "$schema"
	ref    string

	title       string
	desc        string
	notes       string // enum value notes, appended to desc
	types       []string
	format      string
	header      string    // "x-mcp-header" (SEP-2243)
	headerAt    token.Pos // where header= was written
	headerOf    string    // the field header= was written on
	contentEnc  string
	enum        []json.RawMessage
	cnst        json.RawMessage
	minimum     string // JSON number text; "" when absent
	exclMin     string
	maximum     string
	exclMax     string
	multipleOf  string
	minLength   *int
	maxLength   *int
	pattern     string
	items       *node
	minItems    *int
	maxItems    *int
	uniqueItems bool
	props       []prop
	required    []string
	closed      bool  // "additionalProperties": false
	addProps    *node // "additionalProperties": schema
	propNames   *node
	minProps    *int
	maxProps    *int
	anyOf       []*node
	dflt        json.RawMessage
	examples    []json.RawMessage
	deprecated  bool
	readOnly    bool
	writeOnly   bool
	defs        []def

	gt types.Type // the Go type the schema was built from (not written)
}

type prop struct {
	name string
	n    *node
}

type def struct {
	name string
	n    *node
}

// jsonType is the node's single JSON type, "" for none or several.
func (n *node) jsonType() string {
	if len(n.types) == 1 {
		return n.types[0]
	}
	return ""
}

func (n *node) untyped() bool { return n.ref == "" && len(n.types) == 0 && n.anyOf == nil }

// marshal writes the node as compact JSON.
func (n *node) marshal() []byte {
	var w writer
	w.node(n)
	return w.Bytes()
}

type writer struct {
	bytes.Buffer
	first bool
}

func (w *writer) key(k string) {
	if !w.first {
		w.WriteByte(',')
	}
	w.first = false
	w.str(k)
	w.WriteByte(':')
}

func (w *writer) str(s string) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	w.Write(bytes.TrimRight(b.Bytes(), "\n"))
}

func (w *writer) strField(k, v string) {
	if v != "" {
		w.key(k)
		w.str(v)
	}
}

func (w *writer) rawField(k, v string) {
	if v != "" {
		w.key(k)
		w.WriteString(v)
	}
}

func (w *writer) intField(k string, v *int) {
	if v != nil {
		w.key(k)
		w.WriteString(strconv.Itoa(*v))
	}
}

func (w *writer) boolField(k string, v bool) {
	if v {
		w.key(k)
		w.WriteString("true")
	}
}

func (w *writer) rawList(k string, vs []json.RawMessage) {
	if vs == nil {
		return
	}
	w.key(k)
	w.WriteByte('[')
	for i, v := range vs {
		if i > 0 {
			w.WriteByte(',')
		}
		w.Write(v)
	}
	w.WriteByte(']')
}

func (w *writer) node(n *node) {
	w.WriteByte('{')
	w.first = true
	if n.schema {
		w.strField("$schema", draft202012)
	}
	w.strField("$ref", n.ref)
	w.strField("title", n.title)
	desc := n.desc
	if n.notes != "" {
		if desc != "" {
			desc += "\n\n"
		}
		desc += n.notes
	}
	w.strField("description", desc)
	switch len(n.types) {
	case 0:
	case 1:
		w.strField("type", n.types[0])
	default:
		w.key("type")
		w.WriteByte('[')
		for i, t := range n.types {
			if i > 0 {
				w.WriteByte(',')
			}
			w.str(t)
		}
		w.WriteByte(']')
	}
	w.strField("format", n.format)
	w.strField("contentEncoding", n.contentEnc)
	w.rawList("enum", n.enum)
	if n.cnst != nil {
		w.key("const")
		w.Write(n.cnst)
	}
	w.rawField("minimum", n.minimum)
	w.rawField("exclusiveMinimum", n.exclMin)
	w.rawField("maximum", n.maximum)
	w.rawField("exclusiveMaximum", n.exclMax)
	w.rawField("multipleOf", n.multipleOf)
	w.intField("minLength", n.minLength)
	w.intField("maxLength", n.maxLength)
	w.strField("pattern", n.pattern)
	if n.items != nil {
		w.key("items")
		w.node(n.items)
	}
	w.intField("minItems", n.minItems)
	w.intField("maxItems", n.maxItems)
	w.boolField("uniqueItems", n.uniqueItems)
	if n.props != nil {
		w.key("properties")
		w.WriteByte('{')
		w.first = true
		for _, p := range n.props {
			w.key(p.name)
			w.node(p.n)
		}
		w.WriteByte('}')
		w.first = false
	}
	if n.required != nil {
		w.key("required")
		w.WriteByte('[')
		for i, r := range n.required {
			if i > 0 {
				w.WriteByte(',')
			}
			w.str(r)
		}
		w.WriteByte(']')
	}
	if n.closed {
		w.key("additionalProperties")
		w.WriteString("false")
	} else if n.addProps != nil {
		w.key("additionalProperties")
		w.node(n.addProps)
	}
	if n.propNames != nil {
		w.key("propertyNames")
		w.node(n.propNames)
	}
	w.intField("minProperties", n.minProps)
	w.intField("maxProperties", n.maxProps)
	if n.anyOf != nil {
		w.key("anyOf")
		w.WriteByte('[')
		for i, s := range n.anyOf {
			if i > 0 {
				w.WriteByte(',')
			}
			w.node(s)
		}
		w.WriteByte(']')
	}
	if n.dflt != nil {
		w.key("default")
		w.Write(n.dflt)
	}
	w.rawList("examples", n.examples)
	w.boolField("deprecated", n.deprecated)
	w.boolField("readOnly", n.readOnly)
	w.boolField("writeOnly", n.writeOnly)
	w.strField("x-mcp-header", n.header)
	if n.defs != nil {
		w.key("$defs")
		w.WriteByte('{')
		w.first = true
		for _, d := range n.defs {
			w.key(d.name)
			w.node(d.n)
		}
		w.WriteByte('}')
	}
	w.WriteByte('}')
	w.first = false
}

const draft202012 = "https://json-schema.org/draft/2020-12/schema"
