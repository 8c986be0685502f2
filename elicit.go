package mcpgen

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcpgen/mcpgen/connector"
	"github.com/mcpgen/mcpgen/internal/tagopt"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Action is how the user answered an elicitation.
type Action string

// The answers to an elicitation.
const (
	Accept  Action = "accept"  // the user submitted the form
	Decline Action = "decline" // the user said no
	Cancel  Action = "cancel"  // the user dismissed the form
)

// Elicit asks the user of the calling client to fill in a form
// (elicitation/create) whose fields are T's. T is a struct of flat fields:
// string, bool, integer and float kinds, and []string with an enum
// (multi-select). The JSON name comes from the json tag; a field is
// required unless it is a pointer, has omitempty/omitzero, or has a
// default. The mcpgen tag refines a field, options separated by commas:
//
//	title=Name, description=..., default=VALUE, format=email|uri|date|date-time,
//	min=N, max=N, minLength=N, maxLength=N,
//	enum=a|b|c  or, with display titles, enum=a:Alpha|b:Beta
//	enumNames=Alpha|Beta|Gamma  (beside enum=a|b|c: the legacy titled form,
//	                             for clients from before oneOf titles)
//
// For example:
//
//	type Booking struct {
//		Name   string   `json:"name" mcpgen:"title=Your name,minLength=1"`
//		Seats  int      `json:"seats" mcpgen:"default=2,min=1,max=8"`
//		Class  string   `json:"class" mcpgen:"enum=eco:Economy|biz:Business"`
//		Extras []string `json:"extras,omitempty" mcpgen:"enum=wifi|meal"`
//	}
//	b, action, err := mcpgen.Elicit[Booking](ctx, "Book the flight?")
//
// The value is filled only when action is Accept. The schema is built once
// per type. The client must support elicitation (form mode). Under MCP
// 2026-07-28 the question ends the tool call and the handler runs again
// with the answer: return when Elicit returns ErrInputRequired.
func Elicit[T any](ctx context.Context, message string) (T, Action, error) {
	var zero T
	c := connector.CallFrom(ctx)
	if c == nil {
		return zero, "", ErrNoRequest
	}
	sr := elicitSchema(reflect.TypeFor[T]())
	if sr.err != nil {
		return zero, "", sr.err
	}
	raw, err := c.Ask(ctx, &mcp.ElicitParams{Mode: "form", Message: message, RequestedSchema: sr.schema})
	if err != nil {
		return zero, "", err
	}
	var res mcp.ElicitResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return zero, "", fmt.Errorf("mcpgen.Elicit: reading the client's answer: %v", err)
	}
	action := Action(res.Action)
	if action != Accept || res.Content == nil {
		return zero, action, nil
	}
	var content any = res.Content
	if err := sr.resolved.ApplyDefaults(&content); err != nil {
		return zero, action, err
	}
	if err := sr.resolved.Validate(&content); err != nil {
		return zero, action, fmt.Errorf("mcpgen.Elicit: the answer does not match the form: %v", err)
	}
	b, err := json.Marshal(content)
	if err != nil {
		return zero, action, err
	}
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		return zero, action, fmt.Errorf("mcpgen.Elicit: the answer does not fit %s: %v", reflect.TypeFor[T](), err)
	}
	return v, action, nil
}

var elicitSchemas sync.Map // reflect.Type → schemaResult

type schemaResult struct {
	schema   json.RawMessage
	resolved *jsonschema.Resolved
	err      error
}

func elicitSchema(t reflect.Type) *schemaResult {
	if r, ok := elicitSchemas.Load(t); ok {
		return r.(*schemaResult)
	}
	r := &schemaResult{}
	r.schema, r.err = buildElicitSchema(t)
	if r.err == nil {
		var s jsonschema.Schema
		if r.err = json.Unmarshal(r.schema, &s); r.err == nil {
			r.resolved, r.err = s.Resolve(nil)
		}
	}
	elicitSchemas.Store(t, r)
	return r
}

func buildElicitSchema(t reflect.Type) (json.RawMessage, error) {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("mcpgen.Elicit: %s is not a struct; elicitation asks for a struct of flat fields", t)
	}
	props := map[string]any{}
	required := []string{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" && opts == "" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		optional := strings.Contains(","+opts+",", ",omitempty,") || strings.Contains(","+opts+",", ",omitzero,")
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
			optional = true
		}
		prop, hasDefault, err := elicitProperty(t, f, ft)
		if err != nil {
			return nil, err
		}
		props[name] = prop
		if !optional && !hasDefault {
			required = append(required, name)
		}
	}
	return json.Marshal(map[string]any{"type": "object", "properties": props, "required": required})
}

func elicitProperty(owner reflect.Type, f reflect.StructField, ft reflect.Type) (map[string]any, bool, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("mcpgen.Elicit: field %s.%s: %s", owner, f.Name, fmt.Sprintf(format, args...))
	}
	p := map[string]any{}
	kind := ""
	switch ft.Kind() {
	case reflect.String:
		kind = "string"
	case reflect.Bool:
		kind = "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		kind = "integer"
	case reflect.Float32, reflect.Float64:
		kind = "number"
	case reflect.Slice:
		if ft.Elem().Kind() == reflect.String {
			kind = "array"
			break
		}
		fallthrough
	default:
		return nil, false, bad("type %s cannot be asked for; use string, bool, a number, or []string with enum=...", ft)
	}
	p["type"] = kind
	hasDefault := false
	var enum []string
	var titles, names []string
	titled := false
	opts, errs := tagopt.Parse(f.Tag.Get("mcpgen"))
	for _, e := range errs {
		switch e.Kind {
		case "empty":
			return nil, false, bad("empty option in the mcpgen tag; remove the extra comma (options are name or name=value, separated by commas)")
		case "unterminated":
			return nil, false, bad("unterminated quoted value in the mcpgen tag; close the quote: name='value' (write '' for a quote inside the value)")
		default:
			return nil, false, bad("unexpected %q after a quoted value in the mcpgen tag; separate options with commas: name='value',other=...", e.Text)
		}
	}
	for _, opt := range opts {
		key, val := opt.Key, opt.Value
		switch key {
		case "title", "description":
			p[key] = val
		case "format":
			if kind != "string" || !slices.Contains([]string{"email", "uri", "date", "date-time"}, val) {
				return nil, false, bad("format=%s: elicitation allows format on string fields only, one of email, uri, date, date-time", val)
			}
			p[key] = val
		case "min", "max":
			n, err := strconv.ParseFloat(val, 64)
			if err != nil || (kind != "integer" && kind != "number") {
				return nil, false, bad("%s=%s needs a number field and a number", key, val)
			}
			p[map[string]string{"min": "minimum", "max": "maximum"}[key]] = n
		case "minLength", "maxLength":
			n, err := strconv.Atoi(val)
			if err != nil || kind != "string" {
				return nil, false, bad("%s=%s needs a string field and an integer", key, val)
			}
			p[key] = n
		case "enum":
			for _, e := range strings.Split(val, "|") {
				v, title, ok := strings.Cut(e, ":")
				enum = append(enum, v)
				titles = append(titles, title)
				titled = titled || ok
			}
		case "enumNames":
			names = strings.Split(val, "|")
		case "default":
			hasDefault = true
			switch kind {
			case "string":
				p["default"] = val
			case "boolean":
				b, err := strconv.ParseBool(val)
				if err != nil {
					return nil, false, bad("default=%s is not a bool", val)
				}
				p["default"] = b
			case "integer":
				n, err := strconv.ParseInt(val, 10, 64)
				if err != nil {
					return nil, false, bad("default=%s is not an integer", val)
				}
				p["default"] = n
			case "number":
				n, err := strconv.ParseFloat(val, 64)
				if err != nil {
					return nil, false, bad("default=%s is not a number", val)
				}
				p["default"] = n
			case "array":
				p["default"] = strings.Split(val, "|")
			}
		default:
			return nil, false, bad("unknown mcpgen tag option %q; valid: title, description, default, format, min, max, minLength, maxLength, enum, enumNames", key)
		}
	}
	if kind == "array" && len(enum) == 0 {
		return nil, false, bad("a []string field needs enum=a|b|c (elicitation offers multi-select only)")
	}
	if names != nil {
		// The legacy form of a titled single-select list: enum plus
		// enumNames, for clients from before oneOf titles (SEP-1330).
		switch {
		case kind != "string":
			return nil, false, bad("enumNames needs a string field; for a titled multi-select write enum=a:Alpha|b:Beta")
		case len(enum) == 0 || titled:
			return nil, false, bad("enumNames needs enum=a|b|c with plain values beside it (or write titles as enum=a:Alpha|b:Beta instead)")
		case len(names) != len(enum):
			return nil, false, bad("enumNames has %d names for %d enum values; give one name per value", len(names), len(enum))
		}
		p["enum"] = enum
		p["enumNames"] = names
		return p, hasDefault, nil
	}
	if len(enum) > 0 {
		if kind != "string" && kind != "array" {
			return nil, false, bad("enum needs a string or []string field")
		}
		var entries []any
		if titled {
			for i, v := range enum {
				title := titles[i]
				if title == "" {
					title = v
				}
				entries = append(entries, map[string]any{"const": v, "title": title})
			}
		}
		switch {
		case kind == "string" && titled:
			p["oneOf"] = entries
		case kind == "string":
			p["enum"] = enum
		case titled:
			p["items"] = map[string]any{"anyOf": entries}
		default:
			p["items"] = map[string]any{"type": "string", "enum": enum}
		}
	}
	return p, hasDefault, nil
}
