// Command floorserver is the floor of the load benchmark: find_orders
// served over HTTP with nothing but net/http and encoding/json. It decodes
// the JSON-RPC request, checks find_orders' constraints by hand (the
// customer's pattern, the status enum, the bounds of limit and its
// default, no other properties), and encodes the same result the MCP
// servers give (structured content and its JSON text copy). It speaks just
// enough Streamable HTTP for the load generator: initialize with a session
// ID (unless --stateless), notifications, DELETE, requests without a
// session, and 2026-07-28 requests (the server's identity and resultType in
// the result). What any Go MCP framework does beyond this is its overhead.
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/mcpgen/mcpgen/bench/load/internal/findorders"
)

type request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// args are find_orders' arguments as sent: pointers tell what is missing.
type args struct {
	Customer *string `json:"customer"`
	Status   *string `json:"status"`
	Limit    *int    `json:"limit"`
}

type text struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type callResult struct {
	Meta              map[string]any `json:"_meta,omitempty"`
	Content           []text         `json:"content"`
	StructuredContent any            `json:"structuredContent,omitempty"`
	IsError           bool           `json:"isError,omitempty"`
	ResultType        string         `json:"resultType,omitempty"`
}

var serverInfo = map[string]any{"io.modelcontextprotocol/serverInfo": map[string]string{"name": "floorserver", "version": "1.0.0"}}

type server struct {
	stateless bool
	sessions  sync.Map // session ID -> struct{}
	toolList  json.RawMessage
}

func main() {
	f := findorders.ParseFlags()
	s := &server{stateless: f.Stateless}
	s.toolList, _ = json.Marshal(map[string]any{"tools": []any{map[string]any{
		"name": findorders.Name, "title": findorders.Title, "description": findorders.Description,
		"inputSchema": json.RawMessage(findorders.InputSchema), "outputSchema": json.RawMessage(findorders.OutputSchema),
		"annotations": map[string]bool{"readOnlyHint": true, "idempotentHint": true},
	}}})
	findorders.Serve(f.Addr, s)
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sid := r.Header.Get("Mcp-Session-Id")
	switch r.Method {
	case http.MethodPost:
	case http.MethodDelete:
		s.sessions.Delete(sid)
		w.WriteHeader(http.StatusOK)
		return
	default:
		w.Header().Set("Allow", "POST, DELETE")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if sid != "" && !s.stateless {
		if _, ok := s.sessions.Load(sid); !ok {
			http.Error(w, "session not found", http.StatusNotFound)
			return
		}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 4<<20))
	if err != nil {
		http.Error(w, "reading the body: "+err.Error(), http.StatusBadRequest)
		return
	}
	var req request
	if err := json.Unmarshal(body, &req); err != nil || req.JSONRPC != "2.0" {
		http.Error(w, "not a JSON-RPC message", http.StatusBadRequest)
		return
	}
	if req.ID == nil {
		w.WriteHeader(http.StatusAccepted) // a notification
		return
	}
	stateless := r.Header.Get("Mcp-Protocol-Version") >= "2026-07-28"
	res := response{JSONRPC: "2.0", ID: req.ID}
	switch req.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		json.Unmarshal(req.Params, &p)
		res.Result = map[string]any{
			"protocolVersion": p.ProtocolVersion,
			"capabilities":    map[string]any{"tools": map[string]any{}, "resources": map[string]any{}},
			"serverInfo":      map[string]string{"name": "floorserver", "version": "1.0.0"},
		}
		if !s.stateless {
			id := rand.Text()
			s.sessions.Store(id, struct{}{})
			w.Header().Set("Mcp-Session-Id", id)
		}
	case "tools/call":
		res.Result, res.Error = call(req.Params, stateless)
	case "tools/list":
		res.Result = s.toolList
	case "resources/read":
		var p struct {
			URI string `json:"uri"`
		}
		if json.Unmarshal(req.Params, &p) != nil || p.URI != findorders.SummaryURI {
			res.Error = &rpcError{-32002, "resource not found"}
			break
		}
		res.Result = map[string]any{"contents": []map[string]string{{"uri": findorders.SummaryURI, "mimeType": "text/plain", "text": findorders.SummaryText}}}
	default:
		res.Error = &rpcError{-32601, "method not found: " + req.Method}
	}
	out, err := json.Marshal(res)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(out)
}

// call is find_orders: its arguments checked against the input schema by
// hand, the default applied, the result with its text copy.
func call(params json.RawMessage, stateless bool) (any, *rpcError) {
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, &rpcError{-32602, "invalid params: " + err.Error()}
	}
	if p.Name != findorders.Name {
		return nil, &rpcError{-32602, "unknown tool " + p.Name}
	}
	res := &callResult{}
	if stateless {
		res.Meta, res.ResultType = serverInfo, "complete"
	}
	in, err := check(p.Arguments)
	if err != nil {
		res.Content, res.IsError = []text{{"text", "invalid arguments: " + err.Error()}}, true
		return res, nil
	}
	out, err := findorders.Find(context.Background(), in)
	if err != nil {
		res.Content, res.IsError = []text{{"text", err.Error()}}, true
		return res, nil
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, &rpcError{-32603, err.Error()}
	}
	res.Content, res.StructuredContent = []text{{"text", string(b)}}, json.RawMessage(b)
	return res, nil
}

// check decodes find_orders' arguments and checks them as its input schema
// says: customer required, matching ^C[0-9]+$; status one of the enum;
// limit an integer in [1, 50], 10 when missing; nothing else.
func check(raw json.RawMessage) (findorders.Input, error) {
	var a args
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	if err := d.Decode(&a); err != nil {
		return findorders.Input{}, err
	}
	if a.Customer == nil {
		return findorders.Input{}, errors.New("customer is required")
	}
	c := *a.Customer
	if len(c) < 2 || c[0] != 'C' || strings.IndexFunc(c[1:], func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
		return findorders.Input{}, fmt.Errorf("customer %q does not match ^C[0-9]+$", c)
	}
	in := findorders.Input{Customer: c, Limit: findorders.DefaultLimit}
	if a.Status != nil {
		switch st := findorders.Status(*a.Status); st {
		case findorders.Open, findorders.Shipped, findorders.Cancelled:
			in.Status = st
		default:
			return findorders.Input{}, fmt.Errorf("status %q is not open, shipped or cancelled", *a.Status)
		}
	}
	if a.Limit != nil {
		if *a.Limit < 1 || *a.Limit > 50 {
			return findorders.Input{}, fmt.Errorf("limit %d is not within [1, 50]", *a.Limit)
		}
		in.Limit = *a.Limit
	}
	return in, nil
}
