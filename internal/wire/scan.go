package wire

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
)

// Request is a JSON-RPC request's envelope: its id and params as raw
// JSON (from ScanRequest, subslices of the body it was read from).
type Request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"` // nil when absent
}

// CallParams are the parts of tools/call's params the fast path reads
// (ScanCallParams): the tool's name, and its arguments and _meta as raw
// JSON, subslices of the params (nil when absent).
type CallParams struct {
	Name      string
	Arguments json.RawMessage
	Meta      json.RawMessage
}

// ScanRequest reads body, a JSON-RPC request to one of methods, in one
// pass and without copying, into what encoding/json would decode it into
// (a struct of jsonrpc, id, method and params, the last two as
// json.RawMessage). It reports false for any body it does not read exactly
// as encoding/json would, which is then for encoding/json to decode: one
// that is not valid JSON, or valid only to encoding/json (invalid UTF-8,
// a name given twice); a member whose name matches a field's only as
// encoding/json matches them (another case, an escape); a jsonrpc or
// method that is not a plain string; a method not in methods; an id that
// is null. The JSON-RPC rules (the version, the id's type) are for the
// caller to check, as after encoding/json.
func ScanRequest(body []byte, methods ...string) (Request, bool) {
	var req Request
	s := getScanner(body)
	defer putScanner(s)
	ok := s.object(func(name []byte) bool {
		switch string(name) {
		case "jsonrpc":
			v, ok := s.plainString()
			if !ok || string(v) != "2.0" {
				// Anything else fails the version check: encoding/json's
				// decoding decides how.
				return false
			}
			req.JSONRPC = "2.0"
		case "id":
			v, ok := s.value()
			if !ok || string(v) == "null" {
				return false
			}
			req.ID = v
		case "method":
			v, ok := s.plainString()
			if !ok {
				return false
			}
			for _, m := range methods {
				if string(v) == m {
					req.Method = m // no copy: the caller's string
				}
			}
			if req.Method == "" {
				return false
			}
		case "params":
			v, ok := s.value()
			if !ok {
				return false
			}
			req.Params = v
		default:
			return s.skipUnknown(name, "jsonrpc", "id", "method", "params")
		}
		return true
	})
	return req, ok && s.end()
}

// ScanCallParams reads params, tools/call's, as ScanRequest reads a
// request: what encoding/json would decode into the go-sdk's
// mcp.CallToolParamsRaw, in one pass, or false for encoding/json to
// decode it. Beyond ScanRequest's cases, it reports false for params
// that carry inputResponses or requestState (a retried call), or a name
// or arguments that are null.
func ScanCallParams(params []byte) (CallParams, bool) {
	var p CallParams
	s := getScanner(params)
	defer putScanner(s)
	ok := s.object(func(name []byte) bool {
		switch string(name) {
		case "name":
			v, ok := s.plainString()
			if !ok {
				return false
			}
			p.Name = string(v)
		case "arguments":
			v, ok := s.value()
			if !ok || string(v) == "null" {
				return false
			}
			p.Arguments = v
		case "_meta":
			v, ok := s.value()
			if !ok {
				return false
			}
			p.Meta = v
		default:
			return s.skipUnknown(name, "name", "arguments", "_meta", "inputResponses", "requestState")
		}
		return true
	})
	return p, ok && s.end()
}

// ScanObject decodes raw, a JSON object, into the map[string]any
// encoding/json would decode it into (numbers as float64, arrays as
// []any), in one pass; or it reports false for encoding/json to decode
// it, as ScanRequest does. A request's _meta is read this way.
func ScanObject(raw []byte) (map[string]any, bool) {
	s := getScanner(raw)
	defer putScanner(s)
	v, ok := s.anyValue()
	m, _ := v.(map[string]any)
	return m, ok && m != nil && s.end()
}

// anyValue decodes the next value as encoding/json decodes it into an
// any.
func (s *scanner) anyValue() (any, bool) {
	tok, err := s.dec.ReadToken()
	if err != nil {
		return nil, false
	}
	switch tok.Kind() {
	case '{':
		m := map[string]any{}
		for s.dec.PeekKind() == '"' {
			tok, err := s.dec.ReadToken()
			if err != nil {
				return nil, false
			}
			name := tok.String() // before the next read voids tok
			v, ok := s.anyValue()
			if !ok {
				return nil, false
			}
			m[name] = v
		}
		end, err := s.dec.ReadToken()
		return m, err == nil && end.Kind() == '}'
	case '[':
		a := []any{}
		for k := s.dec.PeekKind(); k != ']' && k != 0; k = s.dec.PeekKind() {
			v, ok := s.anyValue()
			if !ok {
				return nil, false
			}
			a = append(a, v)
		}
		end, err := s.dec.ReadToken()
		return a, err == nil && end.Kind() == ']'
	case '"':
		return tok.String(), true
	case '0':
		// encoding/json refuses a number beyond float64's range, which
		// Float clamps to the largest: such a number (or the largest
		// itself) is left to encoding/json.
		f := tok.Float()
		return f, math.Abs(f) < math.MaxFloat64
	case 't':
		return true, true
	case 'f':
		return false, true
	case 'n':
		return nil, true
	}
	return nil, false
}

// scanner reads one JSON value of an input it holds, handing out raw
// values as subslices of that input.
type scanner struct {
	in   []byte
	buf  bytes.Buffer // in, read by dec without a copy
	dec  *jsontext.Decoder
	name [64]byte // room to unescape a member's name
}

var scanners = sync.Pool{New: func() any {
	s := &scanner{}
	s.dec = jsontext.NewDecoder(&s.buf)
	return s
}}

func getScanner(in []byte) *scanner {
	s := scanners.Get().(*scanner)
	s.in = in
	s.buf = *bytes.NewBuffer(in)
	s.dec.Reset(&s.buf)
	return s
}

func putScanner(s *scanner) {
	s.in = nil
	s.buf = bytes.Buffer{}
	s.dec.Reset(&s.buf)
	scanners.Put(s)
}

// object reads an object, calling member for each member's name (its
// unescaped bytes, valid until the next name) with the decoder before the
// member's value, which member must read. It stops at the first false.
func (s *scanner) object(member func(name []byte) bool) bool {
	if tok, err := s.dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return false
	}
	for s.dec.PeekKind() == '"' {
		raw, err := s.dec.ReadValue()
		if err != nil {
			return false
		}
		name := raw[1 : len(raw)-1]
		if bytes.IndexByte(name, '\\') >= 0 {
			if name, err = jsontext.AppendUnquote(s.name[:0], raw); err != nil {
				return false
			}
		}
		if !member(name) {
			return false
		}
	}
	tok, err := s.dec.ReadToken()
	return err == nil && tok.Kind() == '}'
}

// value reads the next value and returns it as a subslice of the input.
func (s *scanner) value() (json.RawMessage, bool) {
	v, err := s.dec.ReadValue()
	if err != nil {
		return nil, false
	}
	end := int(s.dec.InputOffset())
	return s.in[end-len(v) : end : end], true
}

// plainString reads the next value, which must be a string without
// escapes, and returns what it holds, a subslice of the input.
func (s *scanner) plainString() ([]byte, bool) {
	v, ok := s.value()
	if !ok || len(v) < 2 || v[0] != '"' || bytes.IndexByte(v, '\\') >= 0 {
		return nil, false
	}
	return v[1 : len(v)-1], true
}

// skipUnknown skips the value of a member named name that is none of
// fields, which encoding/json ignores; it reports false when name
// matches one of fields as encoding/json matches names (case-folded),
// since encoding/json would then decode it into that field.
func (s *scanner) skipUnknown(name []byte, fields ...string) bool {
	for _, f := range fields {
		if strings.EqualFold(string(name), f) {
			return false
		}
	}
	return s.dec.SkipValue() == nil
}

// end reports whether nothing but whitespace follows the value read.
func (s *scanner) end() bool {
	_, err := s.dec.ReadValue()
	return err == io.EOF
}
