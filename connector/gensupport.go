package connector

import (
	"fmt"
	"strconv"
	"unsafe"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The functions in this file are called by generated code (mcpgen_gen.go) to
// bind resource template variables and prompt arguments, which arrive as
// strings, to the fields of a handler's input struct.

// BindString sets *dst to s.
func BindString[T ~string](dst *T, name, s string) error {
	*dst = T(s)
	return nil
}

// BindInt parses s as a base-10 integer that fits *dst.
func BindInt[T ~int | ~int8 | ~int16 | ~int32 | ~int64](dst *T, name, s string) error {
	n, err := strconv.ParseInt(s, 10, int(unsafe.Sizeof(*dst))*8)
	if err != nil {
		return bindError(name, s, "an integer", err)
	}
	*dst = T(n)
	return nil
}

// BindUint parses s as a base-10 unsigned integer that fits *dst.
func BindUint[T ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64](dst *T, name, s string) error {
	n, err := strconv.ParseUint(s, 10, int(unsafe.Sizeof(*dst))*8)
	if err != nil {
		return bindError(name, s, "a non-negative integer", err)
	}
	*dst = T(n)
	return nil
}

// BindFloat parses s as a floating-point number.
func BindFloat[T ~float32 | ~float64](dst *T, name, s string) error {
	f, err := strconv.ParseFloat(s, int(unsafe.Sizeof(*dst))*8)
	if err != nil {
		return bindError(name, s, "a number", err)
	}
	*dst = T(f)
	return nil
}

// BindBool parses s as true or false (also 1/0, t/f).
func BindBool[T ~bool](dst *T, name, s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return bindError(name, s, "true or false", err)
	}
	*dst = T(b)
	return nil
}

// BoolPtr returns a pointer to b, for optional flags in generated literals.
func BoolPtr(b bool) *bool { return &b }

// bindError is an invalid-params protocol error: the client sent a value
// the handler's field cannot hold.
func bindError(name, s, want string, err error) error {
	msg := fmt.Sprintf("%s=%q is not %s", name, s, want)
	if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
		msg = fmt.Sprintf("%s=%q is out of range", name, s)
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
}
