package connector

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// decodeError explains a decoding error in JSON terms: which field, what
// JSON type it needs, what came. It never names Go types.
func decodeError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		where := "the arguments"
		if te.Field != "" {
			where = fmt.Sprintf("%q", te.Field)
		}
		got := te.Value
		if strings.HasPrefix(got, "number ") && isIntegerKind(te.Type) {
			return fmt.Sprintf("%s: must be an integer in range (got %s)", where, strings.TrimPrefix(got, "number "))
		}
		return fmt.Sprintf("%s: must be %s (got %s)", where, jsonKind(te.Type), got)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("not valid JSON at byte %d: %s", se.Offset, strings.TrimPrefix(se.Error(), "json: "))
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

func isIntegerKind(t reflect.Type) bool {
	if t == nil {
		return false
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return false
}

// jsonKind names the JSON type a Go type decodes from.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "another type"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool:
		return "a boolean"
	case reflect.String:
		return "a string"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return "a base64 string"
		}
		return "an array"
	}
	if isIntegerKind(t) {
		return "an integer"
	}
	return "another type"
}
