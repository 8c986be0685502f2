package httpedge

import (
	"bytes"
	"io"
)

// Body is a request body already read into memory. Handlers in front of
// the MCP endpoint (the fast path, auth) that read a body hand it on as
// one, so the endpoint takes the bytes instead of copying them again.
type Body struct {
	*bytes.Reader
	b []byte
}

// NewBody returns b as a request body.
func NewBody(b []byte) *Body { return &Body{bytes.NewReader(b), b} }

// Close does nothing: the bytes are in memory.
func (*Body) Close() error { return nil }

// BodyBytes returns the bytes of rc when it is a Body nothing has been
// read from yet.
func BodyBytes(rc io.ReadCloser) ([]byte, bool) {
	if b, ok := rc.(*Body); ok && b.Len() == len(b.b) {
		return b.b, true
	}
	return nil, false
}
