package connector

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/internal/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func errorResult(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}

// result turns a handler's value into a tool result by the tool's kind.
func (t *tool) result(v any) (*mcp.CallToolResult, error) {
	switch t.def.Result {
	case ResultNone:
		return &mcp.CallToolResult{Content: []mcp.Content{}}, nil
	case ResultStruct:
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		if bytes.Equal(b, []byte("null")) {
			b = []byte("{}")
		}
		return &mcp.CallToolResult{
			StructuredContent: json.RawMessage(b),
			Content:           []mcp.Content{&mcp.TextContent{Text: string(b)}},
		}, nil
	}
	return anyResult(v)
}

// anyResult converts by the value's dynamic type, so a result kind the
// generator chose and the value's type cannot disagree fatally.
func anyResult(v any) (*mcp.CallToolResult, error) {
	switch x := v.(type) {
	case nil:
		return &mcp.CallToolResult{Content: []mcp.Content{}}, nil
	case *mcp.CallToolResult:
		if x == nil {
			return &mcp.CallToolResult{Content: []mcp.Content{}}, nil
		}
		return x, nil
	case string:
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: x}}}, nil
	case mcp.Content:
		return &mcp.CallToolResult{Content: []mcp.Content{x}}, nil
	case []mcp.Content:
		return &mcp.CallToolResult{Content: nonNil(x)}, nil
	case Contents:
		return &mcp.CallToolResult{Content: nonNil(x)}, nil
	}
	if cs, ok := contentSlice(v); ok {
		return &mcp.CallToolResult{Content: cs}, nil
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.String { // a named string type
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: rv.String()}}}, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}
	if len(b) > 0 && b[0] == '{' {
		res.StructuredContent = json.RawMessage(b)
	}
	return res, nil
}

// Contents is a tool result made of several content blocks (text, image,
// audio, embedded resources, resource links).
type Contents []mcp.Content

var contentType = reflect.TypeFor[mcp.Content]()

// contentSlice converts a user's named slice of content to []mcp.Content.
func contentSlice(v any) ([]mcp.Content, bool) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice || !rv.Type().Elem().Implements(contentType) {
		return nil, false
	}
	cs := make([]mcp.Content, 0, rv.Len())
	for i := range rv.Len() {
		if c, ok := rv.Index(i).Interface().(mcp.Content); ok && c != nil {
			cs = append(cs, c)
		}
	}
	return cs, true
}

func nonNil(cs []mcp.Content) []mcp.Content {
	if cs == nil {
		return []mcp.Content{}
	}
	return slices.DeleteFunc(slices.Clone(cs), func(c mcp.Content) bool { return c == nil })
}

// truncate cuts the text content of res to max characters in all, ending
// it with a notice that says how much was shown. Structured content is
// left whole: it feeds views, not the model.
func truncate(res *mcp.CallToolResult, max int) {
	if max <= 0 {
		return
	}
	totalBytes := 0
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			totalBytes += len(tc.Text)
		}
	}
	if totalBytes <= max { // characters never outnumber bytes
		return
	}
	total := 0
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			total += runeCount(tc.Text)
		}
	}
	if total <= max {
		return
	}
	// The notice counts against the cap: the text sent, notice included,
	// is at most max characters, the size the tool advertises.
	const format = "\n\n… truncated: showing the first %d of %d characters"
	keep := max - runeCount(fmt.Sprintf(format, max, total))
	if keep < 0 {
		keep = 0
	}
	notice := fmt.Sprintf(format, keep, total)
	if runeCount(notice) > max {
		notice = firstRunes(notice, max)
	}
	left := keep
	out := res.Content[:0:0]
	var last *mcp.TextContent
	for _, c := range res.Content {
		tc, ok := c.(*mcp.TextContent)
		if !ok {
			out = append(out, c)
			continue
		}
		if left == 0 {
			continue
		}
		n := runeCount(tc.Text)
		cp := *tc
		if n > left {
			cp.Text = firstRunes(tc.Text, left)
			n = left
		}
		left -= n
		last = &cp
		out = append(out, last)
	}
	if last != nil {
		last.Text += notice
	} else {
		out = append(out, &mcp.TextContent{Text: notice})
	}
	res.Content = out
}

func runeCount(s string) int {
	n := 0
	for range s {
		n++
	}
	return n
}

func firstRunes(s string, n int) string {
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}

// Decode unmarshals validated tool arguments into the handler's input
// value; empty or null arguments leave v at its zero value. Generated code
// calls it.
func Decode(args json.RawMessage, v any) error {
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return nil
	}
	err := json.Unmarshal(trimmed, v)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && strings.HasPrefix(te.Value, "number") {
		// 50.0 and 5e1 are integers to JSON Schema, but not to
		// encoding/json: write them as integers and try again.
		if norm, changed := wire.IntegralNumbers(trimmed); changed {
			err = json.Unmarshal(norm, v)
		}
	}
	if err != nil {
		return fmt.Errorf("invalid arguments: %s", decodeError(err))
	}
	return nil
}
