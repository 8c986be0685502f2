package argcheck

import (
	"encoding/json"
	"testing"
)

// BenchmarkCheck measures checking find_orders' arguments (the load
// benchmark's tool) with the fast check (Check) and with the validator
// alone (checkSlow, what Check did before the fast check):
//
//	go test -run '^$' -bench Check -benchmem ./internal/argcheck/
func BenchmarkCheck(b *testing.B) {
	s, err := Compile([]byte(findOrdersSchema))
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct{ name, args string }{
		{"default", `{"customer":"C42"}`},
		{"all", `{"customer":"C42","status":"shipped","limit":5}`},
	} {
		args := json.RawMessage(tc.args)
		b.Run(tc.name+"/fast", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Check(args); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(tc.name+"/validator", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.checkSlow(args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	// A refusal costs the fast check's scan and then the validator.
	b.Run("refused/fast", func(b *testing.B) {
		b.ReportAllocs()
		args := json.RawMessage(`{"customer":"C42","limit":500}`)
		for b.Loop() {
			if _, err := s.Check(args); err == nil {
				b.Fatal("accepted")
			}
		}
	})
}
