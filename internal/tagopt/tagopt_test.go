package tagopt

import "testing"

// TestParseQuotedComma is the case two copies of the grammar once read
// differently: a quoted value holds commas and doubled quotes.
func TestParseQuotedComma(t *testing.T) {
	opts, errs := Parse(`title='Range, short',description='it''s',min=1`)
	if len(errs) != 0 {
		t.Fatalf("errors: %+v", errs)
	}
	want := []struct{ key, value string }{{"title", "Range, short"}, {"description", "it's"}, {"min", "1"}}
	if len(opts) != len(want) {
		t.Fatalf("options = %+v, want %v", opts, want)
	}
	for i, w := range want {
		if opts[i].Key != w.key || opts[i].Value != w.value || !opts[i].HasValue {
			t.Errorf("option %d = %+v, want %s=%s", i, opts[i], w.key, w.value)
		}
	}
	for tag, kind := range map[string]string{"a,,b": "empty", "a='x": "unterminated", "a='x'y": "afterQuote"} {
		if _, errs := Parse(tag); len(errs) != 1 || errs[0].Kind != kind {
			t.Errorf("Parse(%q) errors = %+v, want one %s", tag, errs, kind)
		}
	}
}
