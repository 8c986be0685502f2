package tstypes

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// node is a JSON object that keeps its keys in order, so properties are
// declared in the order the schema lists them (the Go field order).
type node struct {
	keys []string
	vals map[string]any // *node, []any, string, json.Number, bool, nil
}

func (n *node) get(k string) any {
	if n == nil {
		return nil
	}
	return n.vals[k]
}

func (n *node) lookup(k string) (any, bool) {
	if n == nil {
		return nil, false
	}
	v, ok := n.vals[k]
	return v, ok
}

func parse(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := value(dec)
	if err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("trailing data after the schema")
	}
	return v, nil
}

func value(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n := &node{vals: map[string]any{}}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := value(dec)
				if err != nil {
					return nil, err
				}
				if _, dup := n.vals[k]; !dup {
					n.keys = append(n.keys, k)
				}
				n.vals[k] = v
			}
			_, err := dec.Token() // '}'
			return n, err
		case '[':
			var list []any
			for dec.More() {
				v, err := value(dec)
				if err != nil {
					return nil, err
				}
				list = append(list, v)
			}
			if list == nil {
				list = []any{}
			}
			_, err := dec.Token() // ']'
			return list, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return t, nil
	}
}

// canonical renders a parsed value back to JSON (keys in order), to compare
// two definitions.
func canonical(v any) string {
	var b bytes.Buffer
	write(&b, v)
	return b.String()
}

func write(b *bytes.Buffer, v any) {
	switch v := v.(type) {
	case *node:
		b.WriteByte('{')
		for i, k := range v.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			q, _ := json.Marshal(k)
			b.Write(q)
			b.WriteByte(':')
			write(b, v.vals[k])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			write(b, e)
		}
		b.WriteByte(']')
	default:
		q, _ := json.Marshal(v)
		b.Write(q)
	}
}
