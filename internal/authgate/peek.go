package authgate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// scopedCall is what decides the scopes of one JSON-RPC message.
type scopedCall struct{ method, name, uri string }

// ambiguousError is a body the gate refuses to judge; code is the
// JSON-RPC error code of the answer.
type ambiguousError struct {
	code   int64
	reason string
}

func (e *ambiguousError) Error() string { return e.reason }

func ambiguous(code int64, format string, args ...any) error {
	return &ambiguousError{code: code, reason: fmt.Sprintf(format, args...)}
}

// ScopedCalls reads the messages of a POST body (one JSON-RPC message or
// a batch), refusing what parsers could read differently (see peekScopes).
func ScopedCalls(body []byte) ([]scopedCall, error) {
	b := bytes.TrimLeft(body, " \t\r\n")
	if len(b) > 0 && b[0] == '[' {
		var msgs []json.RawMessage
		if err := json.Unmarshal(b, &msgs); err != nil {
			return nil, ambiguous(jsonrpc.CodeParseError, "the body is not one JSON value (invalid JSON, or data after it): %v", err)
		}
		calls := make([]scopedCall, 0, len(msgs))
		for i, m := range msgs {
			c, err := scopedMessage(m)
			if err != nil {
				return nil, ambiguous(err.(*ambiguousError).code, "message %d of the batch: %v", i+1, err)
			}
			calls = append(calls, c)
		}
		return calls, nil
	}
	c, err := scopedMessage(b) // json.Unmarshal refuses data after the value

	if err != nil {
		return nil, err
	}
	return []scopedCall{c}, nil
}

// scopedMessage reads the method, and the name or URI a tools/call,
// resources/read or prompts/get dispatches on, of one message.
func scopedMessage(raw json.RawMessage) (scopedCall, error) {
	var c scopedCall
	m, err := exactMembers(raw, "message", "jsonrpc", "id", "method", "params")
	if err != nil {
		return c, err
	}
	if err := stringMember(m, "method", &c.method); err != nil {
		return c, err
	}
	switch c.method {
	case "tools/call", "prompts/get", "resources/read", "resources/subscribe", "completion/complete":
	default:
		return c, nil
	}
	p, ok := m["params"]
	if !ok || string(p) == "null" {
		return c, nil
	}
	if c.method == "completion/complete" {
		return completionRef(c, p)
	}
	pm, err := exactMembers(p, "params", "name", "uri")
	if err != nil {
		return c, err
	}
	if err := stringMember(pm, "name", &c.name); err != nil {
		return c, err
	}
	return c, stringMember(pm, "uri", &c.uri)
}

// completionRef reads what a completion/complete completes, from its
// params.ref: a prompt's name (ref/prompt) or a resource template's URI
// (ref/resource), as the go-sdk dispatches it.
func completionRef(c scopedCall, params json.RawMessage) (scopedCall, error) {
	pm, err := exactMembers(params, "params", "ref")
	if err != nil {
		return c, err
	}
	ref, ok := pm["ref"]
	if !ok || string(ref) == "null" {
		return c, nil
	}
	rm, err := exactMembers(ref, "ref", "type", "name", "uri")
	if err != nil {
		return c, err
	}
	var typ, name, uri string
	for _, err := range []error{stringMember(rm, "type", &typ), stringMember(rm, "name", &name), stringMember(rm, "uri", &uri)} {
		if err != nil {
			return c, err
		}
	}
	switch typ {
	case "ref/prompt":
		c.name = name
	case "ref/resource":
		c.uri = uri
	}
	return c, nil
}

// maxMembers bounds the members of a message or params object the gate
// accepts (a JSON-RPC message has five at most; MCP params a handful).
const maxMembers = 64

// exactMembers returns the members of the JSON object raw (what names
// it in errors) by name. It refuses a value that is not an object, two
// members whose names are equal ignoring case (encoding/json matches
// struct fields that way and keeps the last; the go-sdk matches exactly),
// a member whose name equals one of known ignoring case but not exactly,
// and more than maxMembers members.
func exactMembers(raw json.RawMessage, what string, known ...string) (map[string]json.RawMessage, error) {
	b := bytes.TrimLeft(raw, " \t\r\n")
	if len(b) == 0 || b[0] != '{' {
		return nil, ambiguous(jsonrpc.CodeInvalidRequest, "the %s is not a JSON object", what)
	}
	// The names first: that scan stops early on an object of many members,
	// and what it finds in a body that is not JSON does not matter, since
	// such a body is refused next.
	names, err := memberNames(b)
	if err != nil {
		return nil, ambiguous(jsonrpc.CodeParseError, "the %s: %v", what, err)
	}
	if len(names) > maxMembers {
		return nil, ambiguous(jsonrpc.CodeInvalidRequest, "the %s has more than %d members", what, maxMembers)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, ambiguous(jsonrpc.CodeParseError, "the %s: %v", what, err)
	}
	folded := make(map[string]string, len(names)) // foldCase(name) -> name
	for _, name := range names {
		f := foldCase(name)
		if n, dup := folded[f]; dup {
			return nil, ambiguous(jsonrpc.CodeInvalidRequest, "the %s has members %q and %q; send each member once, named exactly", what, n, name)
		}
		folded[f] = name
		for _, k := range known {
			if name != k && f == foldCase(k) {
				return nil, ambiguous(jsonrpc.CodeInvalidRequest, "the %s has a member %q; the protocol's is %q", what, name, k)
			}
		}
	}
	return m, nil
}

// memberNames lists the member names of obj, a JSON object, in order
// and with repeats, reading no further once it has found more than
// maxMembers. What it returns for a value that is not valid JSON is
// meaningless (but it returns).
func memberNames(obj []byte) ([]string, error) {
	var names []string
	depth := 0
	key := false // the next string at depth 1 is a member name
	for i := 0; i < len(obj); i++ {
		switch c := obj[i]; c {
		case '{', '[':
			depth++
			key = c == '{' && depth == 1
		case '}', ']':
			depth--
		case ',':
			key = depth == 1
		case '"':
			j := i + 1
			for ; j < len(obj) && obj[j] != '"'; j++ {
				if obj[j] == '\\' {
					j++
				}
			}
			if j >= len(obj) {
				return nil, errors.New("unterminated string")
			}
			if key {
				var name string
				if err := json.Unmarshal(obj[i:j+1], &name); err != nil {
					return nil, err
				}
				if names = append(names, name); len(names) > maxMembers {
					return names, nil
				}
				key = false
			}
			i = j
		}
	}
	return names, nil
}

// foldCase maps s to one representative of the strings
// strings.EqualFold finds equal to it: each rune becomes the least of its
// case-folding orbit (so "K", "k" and the Kelvin sign all become "K",
// and "ſ" becomes "S").
func foldCase(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		b.WriteRune(least)
	}
	return b.String()
}

// stringMember sets *dst to the string member name of m, if m has it;
// any other JSON value there is refused.
func stringMember(m map[string]json.RawMessage, name string, dst *string) error {
	v, ok := m[name]
	if !ok {
		return nil
	}
	if len(v) == 0 || v[0] != '"' || json.Unmarshal(v, dst) != nil {
		return ambiguous(jsonrpc.CodeInvalidRequest, "%q is not a string", name)
	}
	return nil
}
