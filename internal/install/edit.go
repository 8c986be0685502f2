package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/tailscale/hujson"
)

// Servers says where a configuration file keeps its MCP servers: the object
// at Path (object keys from the root, such as ["mcpServers"]) maps a server's
// name to its entry.
type Servers struct {
	// Path is the chain of object keys from the document's root to the
	// servers object. Missing objects along it are created.
	Path []string
	// JSONC admits comments and trailing commas (VS Code's files). Without
	// it the file must be strict JSON, as the programs that read it expect.
	JSONC bool
}

// SyntaxError is a configuration file that does not parse. Line and Column
// are 1-based.
type SyntaxError struct {
	Line, Column int
	Msg          string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%d:%d: %s", e.Line, e.Column, e.Msg)
}

// ShapeError is a configuration file that parses but holds something other
// than an object where the servers object (or one on its path) belongs.
type ShapeError struct {
	Pointer string // JSON pointer of the offending value, e.g. "/mcpServers"
	Kind    string // what is there instead: "array", "string", ...
}

func (e *ShapeError) Error() string {
	where := e.Pointer
	if where == "" {
		where = "the top level"
	}
	return fmt.Sprintf("%s holds a JSON %s where an object of servers belongs", where, e.Kind)
}

// DuplicateError is a key that appears twice in one object on the way to a
// server's entry (the servers object's key, or the server's name). Readers
// disagree on which one counts (JavaScript's JSON.parse, which the clients
// use, keeps the last; an edit of the first would be ignored), so the file
// is refused rather than guessed at. Line and Column (1-based) are those of
// the second key.
type DuplicateError struct {
	Key, Pointer           string // Pointer is the object's JSON pointer ("" for the top level)
	Line, Column           int
	FirstLine, FirstColumn int
}

func (e *DuplicateError) Error() string {
	where := "the top-level object"
	if e.Pointer != "" {
		where = "the object " + e.Pointer
	}
	return fmt.Sprintf("%d:%d: %q appears twice in %s (first at %d:%d), and clients read only the last one; merge the two into one and run again", e.Line, e.Column, e.Key, where, e.FirstLine, e.FirstColumn)
}

// Edit returns old with the server name set to entry, a value encoded with
// encoding/json. Everything else in the document stays byte for byte as it
// was: other servers, unknown keys, key order, comments and formatting. The
// entry is written indented like its neighbours. changed is false, and new
// is old, when the entry is already there with the same JSON value (however
// it is formatted). An empty old is an empty document.
func (s Servers) Edit(old []byte, name string, entry any) (new []byte, changed bool, err error) {
	if name == "" || !utf8.ValidString(name) {
		return nil, false, fmt.Errorf("server name %q: want a non-empty UTF-8 name", name)
	}
	want, err := json.Marshal(entry)
	if err != nil {
		return nil, false, fmt.Errorf("encoding the entry of %q: %w", name, err)
	}
	root, err := s.parse(old)
	if err != nil {
		return nil, false, err
	}
	unit := indentUnit(&root)
	obj, pointer, indent, err := s.servers(&root, old, unit, true)
	if err != nil {
		return nil, false, err
	}
	i, err := findOne(obj, name, pointer, old)
	if err != nil {
		return nil, false, err
	}
	if i >= 0 {
		same, err := sameJSON(obj.Members[i].Value, want)
		if err != nil {
			return nil, false, err
		}
		if same {
			return old, false, nil
		}
		v, err := indented(want, indent, unit)
		if err != nil {
			return nil, false, err
		}
		obj.Members[i].Value.Value = v
	} else {
		v, err := indented(want, indent, unit)
		if err != nil {
			return nil, false, err
		}
		insert(obj, name, v, indent, unit)
	}
	return pack(&root, old), true, nil
}

// Remove returns old without the server name. changed is false, and new is
// old, when there is no such server (or no servers object at all).
func (s Servers) Remove(old []byte, name string) (new []byte, changed bool, err error) {
	root, err := s.parse(old)
	if err != nil {
		return nil, false, err
	}
	obj, pointer, _, err := s.servers(&root, old, indentUnit(&root), false)
	if err != nil || obj == nil {
		return old, false, err
	}
	i, err := findOne(obj, name, pointer, old)
	if err != nil || i < 0 {
		return old, false, err
	}
	removed := obj.Members[i]
	obj.Members = append(obj.Members[:i], obj.Members[i+1:]...)
	if head, _ := lineHead(removed.Name.BeforeExtra); head != nil && i > 0 {
		// A comment ending the previous member's line stays on that line.
		if i < len(obj.Members) {
			obj.Members[i].Name.BeforeExtra = append(head, obj.Members[i].Name.BeforeExtra...)
		} else {
			obj.AfterExtra = append(head, obj.AfterExtra...)
		}
	}
	switch n := len(obj.Members); {
	case n == 0:
		// Keep comments before the closing brace, drop a now-empty line.
		if isSpace(obj.AfterExtra) {
			obj.AfterExtra = nil
		}
	case i == n:
		// The last member went: keep the trailing-comma style it had.
		obj.Members[n-1].Value.AfterExtra = removed.Value.AfterExtra
	}
	return pack(&root, old), true, nil
}

// Entry returns the JSON value of the server name, or nil when there is none.
func (s Servers) Entry(doc []byte, name string) (json.RawMessage, error) {
	root, err := s.parse(doc)
	if err != nil {
		return nil, err
	}
	obj, pointer, _, err := s.servers(&root, doc, "", false)
	if err != nil || obj == nil {
		return nil, err
	}
	i, err := findOne(obj, name, pointer, doc)
	if err != nil || i < 0 {
		return nil, err
	}
	v := obj.Members[i].Value.Clone()
	v.Minimize()
	return json.RawMessage(v.Pack()), nil
}

func (s Servers) parse(doc []byte) (hujson.Value, error) {
	if len(bytes.TrimSpace(doc)) == 0 {
		v, err := hujson.Parse([]byte("{}"))
		return v, err
	}
	if !s.JSONC {
		var any any
		if err := json.Unmarshal(doc, &any); err != nil {
			var se *json.SyntaxError
			if errors.As(err, &se) {
				// Offset counts the offending byte.
				off := max(0, int(se.Offset)-1)
				if strings.Contains(se.Error(), "end of JSON input") {
					off = len(doc)
				}
				line, col := lineColumn(doc, off)
				return hujson.Value{}, &SyntaxError{Line: line, Column: col, Msg: se.Error() + " (this file must be plain JSON: no comments or trailing commas)"}
			}
			return hujson.Value{}, &SyntaxError{Line: 1, Column: 1, Msg: err.Error()}
		}
	}
	v, err := hujson.Parse(doc)
	if err != nil {
		var line, col int
		msg := err.Error()
		if n, _ := fmt.Sscanf(msg, "hujson: line %d, column %d:", &line, &col); n == 2 {
			if _, rest, ok := strings.Cut(msg, ": "); ok {
				if _, rest, ok = strings.Cut(rest, ": "); ok {
					msg = rest
				}
			}
		} else {
			line, col = 1, 1
		}
		return hujson.Value{}, &SyntaxError{Line: line, Column: col, Msg: msg}
	}
	return v, nil
}

// servers walks Path from root (parsed from doc) and returns the servers
// object, its JSON pointer and the indentation of its members. With
// create, missing objects are added; without, a missing one yields nil.
func (s Servers) servers(root *hujson.Value, doc []byte, unit string, create bool) (obj *hujson.Object, pointer, indent string, err error) {
	cur := root
	for depth := 0; ; depth++ {
		o, ok := cur.Value.(*hujson.Object)
		if !ok {
			return nil, "", "", &ShapeError{Pointer: pointer, Kind: kindName(cur.Value)}
		}
		indent = memberIndent(o, indent, unit)
		if depth == len(s.Path) {
			return o, pointer, indent, nil
		}
		key := s.Path[depth]
		i, err := findOne(o, key, pointer, doc)
		if err != nil {
			return nil, "", "", err
		}
		pointer += "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(key)
		if i < 0 {
			if !create {
				return nil, "", "", nil
			}
			empty, _ := hujson.Parse([]byte("{}"))
			insert(o, key, empty.Value, indent, unit)
			i = len(o.Members) - 1
		}
		cur = &o.Members[i].Value
	}
}

// findOne is find refusing a name obj (at pointer in doc) has twice.
func findOne(obj *hujson.Object, name, pointer string, doc []byte) (int, error) {
	i := find(obj, name)
	if i < 0 {
		return i, nil
	}
	for _, m := range obj.Members[i+1:] {
		if lit, ok := m.Name.Value.(hujson.Literal); ok && lit.String() == name {
			e := &DuplicateError{Key: name, Pointer: pointer}
			e.Line, e.Column = lineColumn(doc, m.Name.StartOffset)
			e.FirstLine, e.FirstColumn = lineColumn(doc, obj.Members[i].Name.StartOffset)
			return -1, e
		}
	}
	return i, nil
}

// find returns the index of the first member called name, or -1.
func find(obj *hujson.Object, name string) int {
	for i, m := range obj.Members {
		if lit, ok := m.Name.Value.(hujson.Literal); ok && lit.String() == name {
			return i
		}
	}
	return -1
}

// insert appends the member name: v to obj, each on its own line at indent.
func insert(obj *hujson.Object, name string, v hujson.ValueTrimmed, indent, unit string) {
	m := hujson.ObjectMember{
		Name:  hujson.Value{BeforeExtra: hujson.Extra("\n" + indent), Value: hujson.String(name)},
		Value: hujson.Value{BeforeExtra: hujson.Extra(" "), Value: v},
	}
	if n := len(obj.Members); n > 0 && obj.Members[n-1].Value.AfterExtra != nil {
		// The object ends with a trailing comma (JSONC): so does it still.
		m.Value.AfterExtra = hujson.Extra{}
	}
	if head, rest := lineHead(obj.AfterExtra); head != nil && len(obj.Members) > 0 {
		// A comment ending the last member's line stays on that line.
		m.Name.BeforeExtra = append(head, m.Name.BeforeExtra...)
		obj.AfterExtra = rest
	}
	if len(obj.Members) == 0 && isSpace(obj.AfterExtra) {
		// "{}" or "{ }": the closing brace goes on its own line.
		obj.AfterExtra = hujson.Extra("\n" + strings.TrimSuffix(indent, unit))
	}
	obj.Members = append(obj.Members, m)
}

// memberIndent is the indentation of obj's members: that of its first
// member on a line of its own, else one unit more than the enclosing
// object's members.
func memberIndent(obj *hujson.Object, parent, unit string) string {
	for _, m := range obj.Members {
		if i := bytes.LastIndexByte(m.Name.BeforeExtra, '\n'); i >= 0 {
			if ws := m.Name.BeforeExtra[i+1:]; isSpace(ws) {
				return string(ws)
			}
		}
	}
	return parent + unit
}

// indentUnit guesses one level of indentation from the document's top
// level, two spaces when it has none.
func indentUnit(root *hujson.Value) string {
	if obj, ok := root.Value.(*hujson.Object); ok {
		if ws := memberIndent(obj, "", ""); ws != "" {
			return ws
		}
	}
	return "  "
}

// indented parses compact JSON re-indented for members at indent.
func indented(compact []byte, indent, unit string) (hujson.ValueTrimmed, error) {
	var buf bytes.Buffer
	if err := json.Indent(&buf, compact, indent, unit); err != nil {
		return nil, err
	}
	v, err := hujson.Parse(buf.Bytes())
	if err != nil {
		return nil, err
	}
	return v.Value, nil
}

// sameJSON reports whether v holds the same JSON value as want.
func sameJSON(v hujson.Value, want []byte) (bool, error) {
	v = v.Clone()
	v.Standardize()
	var a, b any
	if err := json.Unmarshal(v.Pack(), &a); err != nil {
		return false, err
	}
	if err := json.Unmarshal(want, &b); err != nil {
		return false, err
	}
	return reflect.DeepEqual(a, b), nil
}

// pack renders root, ending with a newline when the old document did (or
// was empty).
func pack(root *hujson.Value, old []byte) []byte {
	out := root.Pack()
	if (len(bytes.TrimSpace(old)) == 0 || bytes.HasSuffix(old, []byte("\n"))) && !bytes.HasSuffix(out, []byte("\n")) {
		out = append(out, '\n')
	}
	return out
}

// lineHead splits extra before its first newline when that part holds a
// comment (which belongs to the line before); head is nil otherwise.
func lineHead(extra hujson.Extra) (head, rest hujson.Extra) {
	i := bytes.IndexByte(extra, '\n')
	if i < 0 || isSpace(extra[:i]) {
		return nil, extra
	}
	return append(hujson.Extra(nil), extra[:i]...), extra[i:]
}

func isSpace(b []byte) bool { return len(bytes.TrimSpace(b)) == 0 }

func kindName(v hujson.ValueTrimmed) string {
	switch v.Kind() {
	case '[':
		return "array"
	case '"':
		return "string"
	case '0':
		return "number"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "value"
}

func lineColumn(b []byte, n int) (line, column int) {
	if n > len(b) {
		n = len(b)
	}
	line = 1 + bytes.Count(b[:n], []byte("\n"))
	column = 1 + n - (bytes.LastIndexByte(b[:n], '\n') + 1)
	return line, column
}
