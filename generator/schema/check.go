package schema

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// violation explains, in the words of the tag, why a value (decoded from
// JSON) breaks a schema's own constraints; "" when it breaks none that this
// check knows. The jsonschema validator catches the rest.
func violation(n *node, v any) string {
	if n.ref != "" {
		return ""
	}
	if n.enum != nil {
		found := false
		var vals []string
		for _, e := range n.enum {
			vals = append(vals, string(e))
			if jsonEqual(e, v) {
				found = true
			}
		}
		if !found {
			return "it is not one of the allowed values " + strings.Join(vals, ", ")
		}
	}
	if n.cnst != nil && !jsonEqual(n.cnst, v) {
		return "it is not the const value " + string(n.cnst)
	}
	switch v := v.(type) {
	case float64:
		bound := func(text string) float64 { f, _ := strconv.ParseFloat(text, 64); return f }
		switch {
		case n.minimum != "" && v < bound(n.minimum):
			return "it is less than min=" + n.minimum
		case n.maximum != "" && v > bound(n.maximum):
			return "it is greater than max=" + n.maximum
		case n.exclMin != "" && v <= bound(n.exclMin):
			return "it is not greater than exclusiveMin=" + n.exclMin
		case n.exclMax != "" && v >= bound(n.exclMax):
			return "it is not less than exclusiveMax=" + n.exclMax
		}
	case string:
		l := utf8.RuneCountInString(v)
		switch {
		case n.minLength != nil && l < *n.minLength:
			return fmt.Sprintf("it is shorter than minLength=%d", *n.minLength)
		case n.maxLength != nil && l > *n.maxLength:
			return fmt.Sprintf("it is longer than maxLength=%d", *n.maxLength)
		}
		if n.pattern != "" {
			if re, err := regexp.Compile(n.pattern); err == nil && !re.MatchString(v) {
				return fmt.Sprintf("it does not match pattern %s", n.pattern)
			}
		}
	case []any:
		switch {
		case n.minItems != nil && len(v) < *n.minItems:
			return fmt.Sprintf("it has fewer items than minItems=%d", *n.minItems)
		case n.maxItems != nil && len(v) > *n.maxItems:
			return fmt.Sprintf("it has more items than maxItems=%d", *n.maxItems)
		}
		if n.items != nil {
			for i, item := range v {
				if msg := violation(n.items, item); msg != "" {
					return fmt.Sprintf("item %d: %s", i, msg)
				}
			}
		}
	}
	return ""
}

func jsonEqual(raw json.RawMessage, v any) bool {
	var w any
	if json.Unmarshal(raw, &w) != nil {
		return false
	}
	a, _ := json.Marshal(w)
	b, _ := json.Marshal(v)
	return string(a) == string(b)
}
