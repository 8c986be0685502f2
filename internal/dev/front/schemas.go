package front

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK's client decodes a tool's input and output schemas into maps,
// and the front's server would send them on with their properties sorted
// by name, where the connector sent them in the order their fields are
// declared (which hosts and the inspector's form show). So the front
// keeps the schemas of each tools/list answer as the connector sent them,
// read off the HTTP responses, and serves those bytes.

// schemaBytes records the schemas of the tools the connector lists, by
// tool name, as sent.
type schemaBytes struct {
	mu  sync.Mutex
	raw map[string][2]json.RawMessage // name → input, output schema
}

// watch wraps the body of resp, the answer to req, when req is a
// tools/list, so its tools' schemas are recorded as the SDK reads them.
func (s *schemaBytes) watch(req *http.Request, resp *http.Response) {
	if s == nil || req.Method != http.MethodPost || req.GetBody == nil || resp.Body == nil {
		return
	}
	body, err := req.GetBody()
	if err != nil {
		return
	}
	b, _ := io.ReadAll(io.LimitReader(body, 1<<16))
	body.Close()
	if !bytes.Contains(b, []byte(`"tools/list"`)) {
		return
	}
	sse := bytes.HasPrefix([]byte(resp.Header.Get("Content-Type")), []byte("text/event-stream"))
	resp.Body = &recordingBody{ReadCloser: resp.Body, sse: sse, s: s}
}

// recordingBody hands a response through while recording the tools of
// every JSON-RPC message in it: a JSON body at its end, an event stream
// event by event (before the SDK, which reads the same bytes, can act on
// the event).
type recordingBody struct {
	io.ReadCloser
	sse bool
	buf []byte
	s   *schemaBytes
}

func (b *recordingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.buf = append(b.buf, p[:n]...)
	if b.sse {
		for {
			i := bytes.Index(b.buf, []byte("\n\n"))
			if i < 0 {
				break
			}
			var data []byte
			for _, line := range bytes.Split(b.buf[:i], []byte("\n")) {
				if d, ok := bytes.CutPrefix(bytes.TrimRight(line, "\r"), []byte("data:")); ok {
					data = append(data, bytes.TrimPrefix(d, []byte(" "))...)
				}
			}
			b.s.record(data)
			b.buf = b.buf[i+2:]
		}
	} else if err == io.EOF {
		b.s.record(b.buf)
		b.buf = nil
	}
	return n, err
}

// record keeps the schemas of the tools in msg, a tools/list answer.
func (s *schemaBytes) record(msg []byte) {
	var m struct {
		Result struct {
			Tools []struct {
				Name         string          `json:"name"`
				InputSchema  json.RawMessage `json:"inputSchema"`
				OutputSchema json.RawMessage `json:"outputSchema"`
			} `json:"tools"`
		} `json:"result"`
	}
	if json.Unmarshal(msg, &m) != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.raw == nil {
		s.raw = map[string][2]json.RawMessage{}
	}
	for _, t := range m.Result.Tools {
		s.raw[t.Name] = [2]json.RawMessage{t.InputSchema, t.OutputSchema}
	}
}

// restore gives t its schemas as the connector sent them, where they say
// the same as the decoded ones.
func (s *schemaBytes) restore(t *mcp.Tool) {
	s.mu.Lock()
	raw, ok := s.raw[t.Name]
	s.mu.Unlock()
	if !ok {
		return
	}
	same := func(raw json.RawMessage, decoded any) bool {
		var v any
		return len(raw) > 0 && json.Unmarshal(raw, &v) == nil && reflect.DeepEqual(v, decoded)
	}
	if same(raw[0], t.InputSchema) {
		t.InputSchema = raw[0]
	}
	if t.OutputSchema != nil && same(raw[1], t.OutputSchema) {
		t.OutputSchema = raw[1]
	}
}
