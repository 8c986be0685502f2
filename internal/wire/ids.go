package wire

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
)

// The go-sdk decodes a numeric JSON-RPC id into a float64 and sends it back
// as an integer, so an id beyond 2^53, with a fraction (1.5 comes back as
// 1, and collides with 1) or an exponent comes back changed, and the client
// cannot match the response. mcpgen hands such an id to the SDK as a string that carries
// the original literal, and writes the literal back into the response.

// bigIDPrefix starts the string that stands for a numeric id; the random
// part keeps it from matching anything else in a response.
var bigIDPrefix = func() string {
	b := make([]byte, 6)
	rand.Read(b)
	return "mcpgen-id-" + hex.EncodeToString(b) + ":"
}()

// ExactID reports whether a numeric id literal comes back from the go-sdk
// as sent: an integer of at most 15 digits, written without a fraction or
// an exponent (1.5 would come back as 1, 1.0 and 1e0 as 1) and other than
// -0.
func ExactID(lit []byte) bool {
	digits := bytes.TrimPrefix(lit, []byte("-"))
	if len(digits) == 0 || len(digits) > 15 || string(lit) == "-0" {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// WithStringID returns msg (one JSON-RPC message) with a numeric id, or
// the requestId of a notifications/cancelled, that a float64 would change
// replaced by a string carrying it; changed reports whether it did.
func WithStringID(msg []byte) (out []byte, changed bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(msg, &m) != nil {
		return msg, false
	}
	if id, ok := m["id"]; ok && IsNumber(id) && !ExactID(id) {
		m["id"] = QuoteID(id)
		changed = true
	}
	if string(m["method"]) == `"notifications/cancelled"` {
		var p map[string]json.RawMessage
		if json.Unmarshal(m["params"], &p) == nil {
			if id, ok := p["requestId"]; ok && IsNumber(id) && !ExactID(id) {
				p["requestId"] = QuoteID(id)
				m["params"], _ = json.Marshal(p)
				changed = true
			}
		}
	}
	if !changed {
		return msg, false
	}
	out, err := json.Marshal(m)
	if err != nil {
		return msg, false
	}
	return out, true
}

func IsNumber(raw json.RawMessage) bool {
	return len(raw) > 0 && (raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9'))
}

func QuoteID(lit json.RawMessage) json.RawMessage {
	return json.RawMessage(`"` + bigIDPrefix + string(lit) + `"`)
}

// MayHaveBigID is a cheap first test: only messages with a number of
// more than 15 digits, a digit followed by a fraction or an exponent, or
// a -0 somewhere are parsed by WithStringID.
func MayHaveBigID(msg []byte) bool {
	run := 0
	for i, c := range msg {
		switch {
		case c >= '0' && c <= '9':
			if run++; run > 15 {
				return true
			}
		case run > 0 && (c == '.' || c == 'e' || c == 'E'):
			return true
		case run == 1 && msg[i-1] == '0' && i >= 2 && msg[i-2] == '-':
			return true
		default:
			run = 0
		}
	}
	return false
}

// RestoreIDs writes numeric ids back in p, one message (a line, an SSE
// event, a JSON body) about to be written.
func RestoreIDs(p []byte) []byte {
	key := []byte(`"` + bigIDPrefix)
	// The id opens a response; a cancellation names it in its params.
	head := p[:min(len(p), 512)]
	if !bytes.Contains(head, key) {
		return p
	}
	var out []byte
	for {
		i := bytes.Index(p, key)
		if i < 0 {
			return append(out, p...)
		}
		j := bytes.IndexByte(p[i+len(key):], '"')
		if j < 0 {
			return append(out, p...)
		}
		out = append(out, p[:i]...)
		out = append(out, p[i+len(key):i+len(key)+j]...)
		p = p[i+len(key)+j+1:]
	}
}

// IDWriter restores numeric ids in what the SDK writes for a request
// whose id was replaced.
type IDWriter struct {
	http.ResponseWriter
}

func (w IDWriter) WriteHeader(code int) {
	w.Header().Del("Content-Length")
	w.ResponseWriter.WriteHeader(code)
}

func (w IDWriter) Write(p []byte) (int, error) {
	if _, err := w.ResponseWriter.Write(RestoreIDs(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (w IDWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w IDWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
