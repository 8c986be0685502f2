package wire

import (
	"bytes"
	"encoding/json"
	"sync"
)

// IDOf returns the id of a message the SDK cannot decode, when it is a
// string or a number, so the error can name the request.
func IDOf(raw []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(raw, &m) != nil || len(m.ID) == 0 {
		return nil
	}
	switch m.ID[0] {
	case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return m.ID
	}
	return nil
}

// Inflight counts the lines of requests the SDK has not answered yet.
type Inflight struct {
	mu      sync.Mutex
	n       int
	waiters []chan struct{}
}

func (c *Inflight) Add() {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
}

func (c *Inflight) Done() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == 0 {
		return
	}
	if c.n--; c.n == 0 {
		for _, w := range c.waiters {
			close(w)
		}
		c.waiters = nil
	}
}

// Idle returns a channel closed once no request is waiting for its answer.
func (c *Inflight) Idle() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan struct{})
	if c.n == 0 {
		close(ch)
	} else {
		c.waiters = append(c.waiters, ch)
	}
	return ch
}

// IsAnswer reports whether p, a line the SDK writes, answers a request:
// a batch's answer (the server sends no batches of its own), or an object
// whose id is followed by its result or error, as the SDK encodes them
// ({"jsonrpc":"2.0","id":ID,"result":...}; its own requests have "method"
// there).
func IsAnswer(p []byte) bool {
	if len(p) > 0 && p[0] == '[' {
		return true
	}
	return AnswerID(p) != nil
}

// AnswerID returns the id of p when p is one answer as the SDK encodes it
// (see IsAnswer), else nil, without decoding the rest of p.
func AnswerID(p []byte) []byte {
	rest, ok := bytes.CutPrefix(p, []byte(`{"jsonrpc":"2.0","id":`))
	if !ok || len(rest) == 0 {
		return nil
	}
	i := 0
	if rest[0] == '"' {
		for i = 1; i < len(rest) && rest[i] != '"'; i++ {
			if rest[i] == '\\' {
				i++
			}
		}
		i++
	} else {
		for i < len(rest) && bytes.IndexByte([]byte("-+.0123456789eE"), rest[i]) >= 0 {
			i++
		}
	}
	if i == 0 || i > len(rest) {
		return nil
	}
	if after := rest[i:]; bytes.HasPrefix(after, []byte(`,"result"`)) || bytes.HasPrefix(after, []byte(`,"error"`)) {
		return rest[:i]
	}
	return nil
}
