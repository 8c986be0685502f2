package connector

import (
	"encoding/json"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// applyDefaults fills the absent properties that declare a default into the
// objects the client did send, at any depth: through properties, $ref (local
// "#" and "#/$defs/NAME"), array items and additionalProperties. Unlike
// jsonschema-go's ApplyDefaults it never creates an object the client left
// out — an omitted optional struct stays omitted (a nil pointer in Go), so
// its required fields are not demanded — and it follows references, so
// defaults inside shared, recursive or repeated structs apply too.
func applyDefaults(root *jsonschema.Schema, inst any) {
	d := defaulter{root: root}
	d.apply(root, inst, 0)
}

type defaulter struct{ root *jsonschema.Schema }

// maxDepth bounds the walk: instances are finite, but a schema reference
// cycle over an empty instance must not loop.
const maxDepth = 64

func (d defaulter) resolve(s *jsonschema.Schema) *jsonschema.Schema {
	for i := 0; s != nil && s.Ref != "" && i < maxDepth; i++ {
		switch {
		case s.Ref == "#":
			s = d.root
		case strings.HasPrefix(s.Ref, "#/$defs/"):
			s = d.root.Defs[strings.TrimPrefix(s.Ref, "#/$defs/")]
		default:
			return s
		}
	}
	return s
}

func (d defaulter) apply(s *jsonschema.Schema, inst any, depth int) {
	s = d.resolve(s)
	if s == nil || depth > maxDepth {
		return
	}
	switch v := inst.(type) {
	case map[string]any:
		for name, ps := range s.Properties {
			ps = d.resolve(ps)
			if ps == nil {
				continue
			}
			if cur, ok := v[name]; ok {
				d.apply(ps, cur, depth+1)
				continue
			}
			if len(ps.Default) > 0 {
				var def any
				if json.Unmarshal(ps.Default, &def) == nil {
					v[name] = def
				}
			}
		}
		if s.AdditionalProperties != nil {
			for name, cur := range v {
				if _, declared := s.Properties[name]; !declared {
					d.apply(s.AdditionalProperties, cur, depth+1)
				}
			}
		}
	case []any:
		for i, cur := range v {
			if i < len(s.PrefixItems) {
				d.apply(s.PrefixItems[i], cur, depth+1)
			} else if s.Items != nil {
				d.apply(s.Items, cur, depth+1)
			}
		}
	}
}
