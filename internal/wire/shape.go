package wire

import (
	"bytes"
	"encoding/json"
)

// Shape is what decides how a JSON-RPC message is taken: a request
// (method and id), a notification (method, no id) or a response (id and a
// result or an error).
type Shape struct {
	ID     json.RawMessage `json:"id"`
	Method json.RawMessage `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// ShapeOf reads the shape of msg, one JSON object; ok is false for
// anything else (a batch, invalid JSON).
func ShapeOf(msg []byte) (m Shape, ok bool) {
	msg = bytes.TrimSpace(msg)
	if len(msg) == 0 || msg[0] != '{' || json.Unmarshal(msg, &m) != nil {
		return Shape{}, false
	}
	return m, true
}

// Malformed returns why the message is not a valid one in a way the
// go-sdk would not answer with a JSON-RPC error: a request whose id is null
// (the go-sdk takes it for a notification and answers nothing, or 400 in
// plain text), or a message with an id but neither a method nor a result
// nor an error (it takes that for a response and drops it). id is the id
// to answer with: the message's own when usable, else null. why is "" for
// any other message, valid or not (the go-sdk answers those).
func (m Shape) Malformed() (id json.RawMessage, why string) {
	id = json.RawMessage("null")
	if ValidID(m.ID) {
		id = m.ID
	}
	switch {
	case m.Method != nil && string(m.ID) == "null":
		return id, "a request's id must be a string or a number, not null (a notification has no id at all)"
	case m.ID != nil && m.Method == nil && m.Result == nil && m.Error == nil:
		return id, "a message with an id needs a method (a request), or a result or an error (a response)"
	}
	return nil, ""
}

// codeZero is how an error without a code goes out: the go-sdk refuses
// some requests (one before the session is initialized) where no
// middleware sees the error.
var codeZero = []byte(`"error":{"code":0,`)

// WithErrorCode returns p, one message about to be written, with an error
// code of 0 replaced: -32600 Invalid Request for a request the session was
// not ready for, -32603 Internal error for anything else.
func WithErrorCode(p []byte) []byte {
	i := bytes.Index(p, codeZero)
	if i < 0 {
		return p
	}
	code := `"error":{"code":-32603,`
	if bytes.Contains(p[i:], []byte("invalid during session initialization")) {
		code = `"error":{"code":-32600,`
	}
	out := make([]byte, 0, len(p)+8)
	out = append(out, p[:i]...)
	out = append(out, code...)
	return append(out, p[i+len(codeZero):]...)
}
