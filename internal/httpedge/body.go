package httpedge

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
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

// ReadBody reads r's body, at most max bytes of it, and puts it back as a
// Body for the handlers after this one, which then take the bytes without
// reading them again; a body an earlier handler read is not read again.
// When the body is larger than max, or cannot be read, it answers the
// request (413 naming the limit, or 400) and reports false; nothing past
// the limit is read. Every handler that reads a body goes through here, so
// that none reads more than the limit and all refuse alike.
func ReadBody(w http.ResponseWriter, r *http.Request, max int64) ([]byte, bool) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, true
	}
	if b, ok := BodyBytes(r.Body); ok && int64(len(b)) <= max {
		return b, true
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
	r.Body.Close()
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			http.Error(w, fmt.Sprintf("request body exceeds %d bytes", mbe.Limit), http.StatusRequestEntityTooLarge)
		} else {
			http.Error(w, "failed to read body", http.StatusBadRequest)
		}
		return nil, false
	}
	r.Body, r.ContentLength = NewBody(body), int64(len(body))
	return body, true
}
