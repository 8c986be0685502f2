package wire

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var scanMethods = []string{"tools/call", "tools/list", "resources/read"}

// v1Request is what the fast path decoded a request into with
// encoding/json before ScanRequest.
type v1Request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// sameAsV1Request fails t when ScanRequest read body, but not as
// encoding/json decodes it. A body ScanRequest leaves to encoding/json
// passes.
func sameAsV1Request(t *testing.T, body []byte) (scanned bool) {
	t.Helper()
	got, ok := ScanRequest(body, scanMethods...)
	if !ok {
		return false
	}
	var want v1Request
	if err := json.Unmarshal(body, &want); err != nil {
		t.Fatalf("ScanRequest read %q, which encoding/json refuses: %v", body, err)
	}
	if got.JSONRPC != want.JSONRPC || got.Method != want.Method || !bytes.Equal(got.ID, want.ID) ||
		!bytes.Equal(got.Params, want.Params) || (got.Params == nil) != (want.Params == nil) {
		t.Fatalf("ScanRequest read %q as %+v; encoding/json as %+v", body, got, want)
	}
	return true
}

// sameAsV1Params is sameAsV1Request for ScanCallParams, against the
// go-sdk's type. The _meta ScanCallParams hands out is decoded apart: when
// that fails, encoding/json must refuse the whole params too.
func sameAsV1Params(t *testing.T, params []byte) (scanned bool) {
	t.Helper()
	got, ok := ScanCallParams(params)
	if !ok {
		return false
	}
	var meta mcp.Meta
	var metaErr error
	if got.Meta != nil {
		metaErr = json.Unmarshal(got.Meta, &meta)
	}
	var want mcp.CallToolParamsRaw
	err := json.Unmarshal(params, &want)
	switch {
	case metaErr != nil && err == nil:
		t.Fatalf("ScanCallParams read %q with a _meta encoding/json refuses alone (%v), but not in the params", params, metaErr)
	case metaErr != nil:
		return true
	case err != nil:
		t.Fatalf("ScanCallParams read %q, which encoding/json refuses: %v", params, err)
	}
	if got.Name != want.Name || !bytes.Equal(got.Arguments, want.Arguments) || !reflect.DeepEqual(meta, want.Meta) ||
		want.InputResponses != nil || want.RequestState != "" {
		t.Fatalf("ScanCallParams read %q as %+v (_meta %v); encoding/json as %+v", params, got, meta, want)
	}
	return true
}

func TestScanRequest(t *testing.T) {
	for _, tc := range []struct {
		body    string
		scanned bool
	}{
		// What clients send: read in one pass.
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"find_orders","arguments":{"customer":"C42"}}}`, true},
		{` { "method" : "tools/list" , "id" : "a-1" , "jsonrpc" : "2.0" } `, true},
		{`{"jsonrpc":"2.0","id":-7.5e3,"method":"resources/read","params":{"uri":"orders://summary"},"extra":[1,{"x":null}]}`, true},
		{`{"jsonrpc":"2.0","id":"\u00e9\n","method":"tools/call","params":[]}`, true},
		{"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"p\\u0061rams\":{}}", true}, // an escaped name
		// Left to encoding/json.
		{`{"jsonrpc":"2.0","id":1,"method":"initialize"}`, false},                       // another method
		{`{"jsonrpc":"2.0","id":1,"Method":"tools/call"}`, false},                       // a name in another case
		{`{"jsonrpc":"2.0","id":1,"methoD":"tools/list","method":"tools/call"}`, false}, // the same, twice
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","method":"tools/list"}`, false}, // a name twice
		{`{"jsonrpc":"2.0","id":1,"method":"tools\/call"}`, false},                      // an escaped method
		{`{"jsonrpc":"2.0","id":null,"method":"tools/call"}`, false},
		{`{"jsonrpc":2,"id":1,"method":"tools/call"}`, false},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call"} {}`, false}, // trailing data
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call",}`, false},
		{"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"tools/call\"}", false}, // invalid UTF-8
		{`[{"jsonrpc":"2.0","id":1,"method":"tools/call"}]`, false},                // a batch
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"a":}}`, false},
		{"{\"jsonrpc\":\"2.0\",\"id\":1,\"\\u004dethod\":\"tools/call\"}", false}, // an escaped name in another case
		{"{\"jsonrpc\":\"2.0\",\"id\":1,\"metho\u212a\":\"tools/call\"}", true},   // not a name encoding/json folds to method
	} {
		if got := sameAsV1Request(t, []byte(tc.body)); got != tc.scanned {
			t.Errorf("ScanRequest(%s): scanned %v, want %v", tc.body, got, tc.scanned)
		}
	}
}

func TestScanCallParams(t *testing.T) {
	for _, tc := range []struct {
		params  string
		scanned bool
	}{
		{`{"name":"find_orders","arguments":{"customer":"C42","limit":3}}`, true},
		{`{"name":"find_orders"}`, true},
		{`{"arguments":{},"name":"x","_meta":{"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01","progressToken":7}}`, true},
		{`{"name":"x","_meta":null,"other":true}`, true},
		{`{"name":"x","arguments":null}`, false},
		{`{"name":null}`, false},
		{`{"name":"x","requestState":"abc"}`, false},
		{`{"name":"x","inputResponses":{}}`, false},
		{`{"name":"x","RequestState":"abc"}`, false},
		{`{"Name":"x"}`, false},
		{`{"name":"x\ty"}`, false},
		{`{"name":"x","name":"y"}`, false},
		{`{"name":"x","_meta":5}`, true}, // _meta is decoded (and refused) apart
		{`null`, false},
	} {
		if got := sameAsV1Params(t, []byte(tc.params)); got != tc.scanned {
			t.Errorf("ScanCallParams(%s): scanned %v, want %v", tc.params, got, tc.scanned)
		}
	}
}

// The values read are the body's own bytes: nothing is copied.
func TestScanRequestNoCopy(t *testing.T) {
	body := []byte(`{"jsonrpc":"2.0","id":"abc","method":"tools/call","params":{"name":"n"}}`)
	req, ok := ScanRequest(body, scanMethods...)
	if !ok {
		t.Fatal("not scanned")
	}
	if &req.ID[0] != &body[bytes.Index(body, []byte(`"abc"`))] || &req.Params[0] != &body[bytes.Index(body, []byte(`{"name"`))] {
		t.Fatal("the id and params are not the body's bytes")
	}
	if cap(req.Params) != len(req.Params) {
		t.Fatal("params can be appended to over the body")
	}
}

func BenchmarkScanRequest(b *testing.B) {
	body := []byte(`{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"find_orders","arguments":{"customer":"C42","status":"shipped"}}}`)
	b.Run("scan", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			req, ok := ScanRequest(body, scanMethods...)
			if !ok {
				b.Fatal("not scanned")
			}
			if _, ok := ScanCallParams(req.Params); !ok {
				b.Fatal("params not scanned")
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var req v1Request
			if err := json.Unmarshal(body, &req); err != nil {
				b.Fatal(err)
			}
			var p mcp.CallToolParamsRaw
			if err := json.Unmarshal(req.Params, &p); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func FuzzScanRequest(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"find_orders","arguments":{"customer":"C42"}}}`,
		`{"jsonrpc":"2.0","id":"x","method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":1,"Method":"tools/call","method":"resources/read","params":{"uri":"a://b"}}`,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"\\u006dethod\":\"tools/call\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		sameAsV1Request(t, body)
	})
}

func FuzzScanCallParams(f *testing.F) {
	for _, s := range []string{
		`{"name":"find_orders","arguments":{"customer":"C42"}}`,
		`{"name":"x","_meta":{"progressToken":1},"requestState":""}`,
		`{"NAME":"x","arguments":[1,2]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, params []byte) {
		sameAsV1Params(t, params)
	})
}

// sameAsV1Object fails t when ScanObject decoded raw, but not as
// encoding/json decodes it into a map[string]any.
func sameAsV1Object(t *testing.T, raw []byte) (scanned bool) {
	t.Helper()
	got, ok := ScanObject(raw)
	if !ok {
		return false
	}
	var want map[string]any
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatalf("ScanObject decoded %q, which encoding/json refuses: %v", raw, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ScanObject decoded %q as %#v; encoding/json as %#v", raw, got, want)
	}
	return true
}

func TestScanObject(t *testing.T) {
	for _, tc := range []struct {
		raw     string
		scanned bool
	}{
		{`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{}}`, true},
		{`{"a":[],"b":[1,-2.5e3,"x\u00e9\n",true,false,null,{"c":[[]]}],"progressToken":7}`, true},
		{`{}`, true},
		{` {"a" : 1 } `, true},
		{`{"a":1e400}`, false}, // beyond float64: encoding/json refuses it
		{`{"a":1,"a":2}`, false},
		{`{"a":1}x`, false},
		{`[1]`, false},
		{`null`, false},
		{"{\"a\":\"\xff\"}", false},
	} {
		if got := sameAsV1Object(t, []byte(tc.raw)); got != tc.scanned {
			t.Errorf("ScanObject(%s): scanned %v, want %v", tc.raw, got, tc.scanned)
		}
	}
}

func BenchmarkScanObject(b *testing.B) {
	meta := []byte(`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"bench-load","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{}}`)
	b.Run("scan", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := ScanObject(meta); !ok {
				b.Fatal("not scanned")
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var m map[string]any
			if err := json.Unmarshal(meta, &m); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func FuzzScanObject(f *testing.F) {
	for _, s := range []string{
		`{"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1.0.0"},"x":[1,2.5,"s",null,true]}`,
		`{"a":{"b":{"c":[{}]}},"n":-0.0e-7}`,
		`{"s":"\ud83d\ude00 \u00e9"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		sameAsV1Object(t, raw)
	})
}
