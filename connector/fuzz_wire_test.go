package connector

import (
	"bytes"
	"encoding/json"
	"math/big"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/wire"
)

// FuzzIntegralNumbers checks that rewriting integral numbers keeps valid
// JSON valid and every number's value unchanged.
func FuzzIntegralNumbers(f *testing.F) {
	for _, s := range []string{`{"limit":50.0}`, `[5e1,-0.0e0,1.5,"2.0",1E+2,3e-1,10e-1]`, `{"a":{"b":[1.000,2.5e3]}}`, `"\"50.0\""`, `1e400`, `{"x":12345678901234567890.0}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		out, _ := wire.IntegralNumbers(src)
		if !json.Valid(src) {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("%s became invalid: %s", src, out)
		}
		var a, b any
		da, db := json.NewDecoder(bytes.NewReader(src)), json.NewDecoder(bytes.NewReader(out))
		da.UseNumber()
		db.UseNumber()
		if da.Decode(&a) != nil || db.Decode(&b) != nil {
			t.Fatal("decode")
		}
		if !sameValue(a, b) {
			t.Fatalf("%s changed value: %s", src, out)
		}
	})
}

func sameValue(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		ra, ok1 := new(big.Rat).SetString(string(x))
		rb, ok2 := new(big.Rat).SetString(string(y))
		return ok1 && ok2 && ra.Cmp(rb) == 0
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameValue(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k := range x {
			if !sameValue(x[k], y[k]) {
				return false
			}
		}
		return true
	}
	return a == b
}

// FuzzRestoreIDs checks that an id replaced for the SDK comes back as
// the literal the client sent, and that the cheap first test lets every id
// that needs replacing through.
func FuzzRestoreIDs(f *testing.F) {
	for _, s := range []string{"9007199254740993", "-12345678901234567890", "1234567890123456.0", "1e400", "1.5", "-0", "2E-1", "10"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		msg := []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
		if !json.Valid(msg) {
			return
		}
		fixed, changed := wire.WithStringID(msg)
		if changed && !wire.MayHaveBigID(msg) {
			t.Fatalf("id %s needs replacing, but the first test passes it by", id)
		}
		if !changed {
			return
		}
		var m struct{ ID string }
		if json.Unmarshal(fixed, &m) != nil {
			t.Fatalf("bad rewrite %s", fixed)
		}
		resp := []byte(`{"jsonrpc":"2.0","id":"` + m.ID + `","result":{}}`)
		if got, want := string(wire.RestoreIDs(resp)), `{"jsonrpc":"2.0","id":`+strings.TrimSpace(id)+`,"result":{}}`; got != want {
			t.Fatalf("got %s, want %s", got, want)
		}
	})
}
