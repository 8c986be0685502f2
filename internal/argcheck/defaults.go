package argcheck

import (
	"bytes"
	"encoding/json"
	"slices"
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

// appendDefaults adds to the JSON object orig the members of defaulted
// (orig with the schema's defaults applied, no nested objects or arrays)
// that the client did not send: the common case, without decoding orig
// again.
func appendDefaults(orig json.RawMessage, defaulted map[string]any, sent []string) (json.RawMessage, error) {
	if len(defaulted) == len(sent) {
		if len(orig) == 0 || bytes.Equal(orig, []byte("null")) {
			return json.RawMessage("{}"), nil
		}
		return orig, nil
	}
	added := make([]string, 0, len(defaulted)-len(sent))
	for k := range defaulted {
		if !slices.Contains(sent, k) {
			added = append(added, k)
		}
	}
	slices.Sort(added)
	out := make([]byte, 0, len(orig)+16*len(added))
	if len(orig) == 0 || bytes.Equal(orig, []byte("null")) {
		out = append(out, '{')
	} else {
		out = append(out, orig[:len(orig)-1]...) // without its closing brace
	}
	for i, k := range added {
		if i > 0 || len(sent) > 0 {
			out = append(out, ',')
		}
		kb, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		vb, err := json.Marshal(defaulted[k])
		if err != nil {
			return nil, err
		}
		out = append(append(append(out, kb...), ':'), vb...)
	}
	return append(out, '}'), nil
}

// withDefaults returns the JSON object orig with the members that
// defaulted (the same object after the schema's defaults were applied)
// has and orig lacks, at any depth of nested objects.
func withDefaults(orig json.RawMessage, defaulted any) (json.RawMessage, error) {
	if da, ok := defaulted.([]any); ok {
		return withDefaultsArray(orig, da)
	}
	dm, ok := defaulted.(map[string]any)
	if !ok {
		return orig, nil
	}
	var om map[string]json.RawMessage
	if len(orig) > 0 && !bytes.Equal(orig, []byte("null")) {
		if err := json.Unmarshal(orig, &om); err != nil {
			return orig, nil // not an object: validation has already said so
		}
	}
	if len(om) == len(dm) && !hasObject(dm) {
		return orig, nil // nothing was added
	}
	out := make(map[string]json.RawMessage, len(dm))
	for k, v := range dm {
		if raw, ok := om[k]; ok {
			merged, err := withDefaults(raw, v)
			if err != nil {
				return nil, err
			}
			out[k] = merged
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		out[k] = b
	}
	return json.Marshal(out)
}

// withDefaultsArray merges element by element, for defaults inside the
// objects of an array.
func withDefaultsArray(orig json.RawMessage, da []any) (json.RawMessage, error) {
	var oa []json.RawMessage
	if err := json.Unmarshal(orig, &oa); err != nil || len(oa) != len(da) {
		return orig, nil
	}
	changed := false
	for i := range oa {
		merged, err := withDefaults(oa[i], da[i])
		if err != nil {
			return nil, err
		}
		if !bytes.Equal(merged, oa[i]) {
			oa[i], changed = merged, true
		}
	}
	if !changed {
		return orig, nil
	}
	return json.Marshal(oa)
}

func hasObject(m map[string]any) bool {
	for _, v := range m {
		switch v.(type) {
		case map[string]any, []any:
			return true
		}
	}
	return false
}
