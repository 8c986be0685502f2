// Package argcheck turns a tool's input schema and the arguments a client
// sent into the arguments its handler gets: valid against the schema (JSON
// Schema 2020-12, plus the formats a tag may give, which the validator
// treats as annotations only), with the schema's defaults filled in, and
// the client's JSON otherwise kept as sent (integers beyond 2^53 are not
// rounded); or into an error a model can act on, naming the field and the
// rule (`invalid arguments: "limit": must be <= 50`) rather than schema
// locations and keywords.
package argcheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// Schema is an input schema compiled for checking arguments. It is safe
// for concurrent use.
type Schema struct {
	resolved *jsonschema.Resolved
	schema   *jsonschema.Schema // the unresolved schema, walked for defaults and formats
	formats  bool               // the schema gives a format somewhere
	defaults bool               // the schema declares defaults
	fast     *fastSchema        // nil when the schema needs the validator for every call

	oneOnce sync.Once
	one     *jsonschema.Resolved // fieldByField's
}

// Compile compiles an input schema, given as JSON. Its error says why the
// schema itself is unusable (not JSON, a bad reference, a default that
// breaks its own schema); no arguments can be checked against it then.
// Compiling costs more than checking: a caller with many schemas compiles
// each when it is first needed.
func Compile(schema []byte) (*Schema, error) {
	var sch jsonschema.Schema
	if err := json.Unmarshal(schema, &sch); err != nil {
		return nil, err
	}
	resolved, err := sch.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		return nil, err
	}
	s := &Schema{
		resolved: resolved,
		schema:   &sch,
		formats:  hasFormat(schema),
		defaults: bytes.Contains(schema, []byte(`"default"`)),
	}
	s.fast = compileFast(&sch, s.formats, s.defaults)
	return s, nil
}

// Check checks args, a JSON object (empty or null stands for {}), against
// the schema and returns them with the schema's defaults applied: the
// client's bytes with the absent members that declare a default spliced
// in, "{}" for no arguments, args unchanged when nothing was added. The
// error starts "invalid arguments: " and names the first field that fails
// and its rule.
func (s *Schema) Check(args json.RawMessage) (json.RawMessage, error) {
	if s.fast != nil {
		if out, ok := s.checkFast(args); ok {
			return out, nil
		}
	}
	return s.checkSlow(args)
}

// checkSlow is Check through the validator: the arguments decoded into a
// map, the defaults applied to it, jsonschema-go's Validate, the formats,
// and the defaults spliced back into the client's bytes. It decides every
// call the fast check declines, and words every refusal.
func (s *Schema) checkSlow(args json.RawMessage) (json.RawMessage, error) {
	m := map[string]any{}
	if trimmed := bytes.TrimSpace(args); len(trimmed) > 0 && !bytes.Equal(trimmed, []byte("null")) {
		if err := json.Unmarshal(trimmed, &m); err != nil {
			return nil, fmt.Errorf("invalid arguments: must be a JSON object: %v", err)
		}
	}
	var inst any = m
	var sent []string // the members the client sent
	if s.defaults {
		sent = make([]string, 0, len(m))
		for k := range m {
			sent = append(sent, k)
		}
		applyDefaults(s.schema, inst)
	}
	if err := s.resolved.Validate(&inst); err != nil {
		return nil, fmt.Errorf("invalid arguments: %s", s.refusal(m, err))
	}
	if s.formats {
		if msg := checkFormats(s.schema, s.schema, inst, nil, 0); msg != "" {
			return nil, fmt.Errorf("invalid arguments: %s", msg)
		}
	}
	if s.defaults {
		// Splice the defaults into the client's JSON rather than marshal
		// the decoded map: float64 would round integers beyond 2^53.
		if !hasObject(m) {
			return appendDefaults(bytes.TrimSpace(args), m, sent)
		}
		return withDefaults(bytes.TrimSpace(args), inst)
	}
	if len(m) == 0 {
		return json.RawMessage("{}"), nil
	}
	return args, nil
}

// refusal words the validator's refusal err of the arguments m. The
// validator stops at the first property that fails, taking them in map
// order, so of two bad fields it named either from one call to the next;
// here, when the schema's object-level rules allow checking the fields one
// at a time, the first bad field by name is named, every time. A refusal
// no single field explains (a required field missing) is err's.
func (s *Schema) refusal(m map[string]any, err error) string {
	one := s.fieldByField()
	if one == nil || len(m) < 2 {
		return explainValidation(err)
	}
	for _, name := range slices.Sorted(maps.Keys(m)) {
		var single any = map[string]any{name: m[name]}
		if e := one.Validate(&single); e != nil {
			return explainValidation(e)
		}
	}
	return explainValidation(err)
}

// rootKeywords are the keywords a schema's root may have for its fields
// to be checked one at a time: none that relates one field to another or
// counts them.
var rootKeywords = map[string]bool{
	"type": true, "properties": true, "required": true, "additionalProperties": true,
	"$defs": true, "definitions": true, "$schema": true, "$id": true, "$comment": true,
	"title": true, "description": true, "examples": true,
}

// fieldByField is the schema with no required fields, resolved once, for
// refusal; nil when its root has a rule that spans fields.
func (s *Schema) fieldByField() *jsonschema.Resolved {
	s.oneOnce.Do(func() {
		b, err := json.Marshal(s.schema)
		if err != nil {
			return
		}
		var root map[string]json.RawMessage
		if json.Unmarshal(b, &root) != nil {
			return
		}
		for k := range root {
			if !rootKeywords[k] {
				return
			}
		}
		cp := *s.schema
		cp.Required = nil
		if r, err := cp.Resolve(nil); err == nil {
			s.one = r
		}
	})
	return s.one
}

// hasFormat reports whether a schema (as JSON) gives any format at all, so
// that schemas without one skip the walk.
func hasFormat(schema []byte) bool { return strings.Contains(string(schema), `"format"`) }
